// Email end to end against a real SMTP server on loopback: an announcement reaches exactly the opted-in
// accounts, one submission per second at most; a refused recipient ends `failed`, a connection dropped in
// the middle of a message `unknown` (and opens the global incident until an operator resolves it); retry
// resends only `failed`; unsubscribe works once per category; expired, tampered and cross-category tokens
// are refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers/accounts.ts";
import { type Sink, signUpBySmtp, startSink } from "../helpers/mail-sink.ts";
import { freePort } from "../helpers/ports.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let sink: Sink;
const users: Record<string, { email: string; access: string; id: string }> = {};

type Delivery = Record<"pending" | "sending" | "accepted" | "failed" | "unknown" | "skipped", number>;
interface AdminAnnouncement {
  id: string;
  state: string;
  delivery: Delivery;
  recipients?: { recipients: number; opted_out: number };
  email_html: string | null;
  email_text: string | null;
}

beforeAll(async () => {
  sink = await startSink();
  const port = await freePort();
  srv = await startServer({
    port,
    host: "127.0.0.1",
    publicUrl: `http://127.0.0.1:${port}`,
    anonymousDev: false,
    smtpUrl: `smtp://127.0.0.1:${sink.port}`,
    adminEmails: ["boss@mail.test"],
  });
  for (const name of ["boss", "ann", "bob", "cyd", "dee"])
    users[name] = await signUpBySmtp(srv.url, sink, `${name}@mail.test`, name);
  // bob opts out of announcements; cyd's mailbox refuses; dee's connection breaks mid-message.
  const r = await call(srv.url, "PUT", "/api/account/notifications", {
    token: users.bob!.access,
    body: { email_announcements: false },
  });
  expect(r.status).toBe(200);
  sink.refuse.add("cyd@mail.test");
  sink.drop.add("dee@mail.test");
}, 90_000);

afterAll(async () => {
  await srv?.stop();
  await sink?.close();
});

const admin = () => users.boss!.access;
async function announcement(id: string): Promise<AdminAnnouncement> {
  const r = await call(srv.url, "GET", "/api/admin/announcements", { token: admin() });
  return (r.body as unknown as AdminAnnouncement[]).find((a) => a.id === id)!;
}
async function waitFor<T>(f: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (ok(v)) return v;
    if (Date.now() > until) throw new Error(`timed out; last ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
const tokenOf = (raw: string) => {
  const header = /^List-Unsubscribe:\s*<([^>]+)>/im.exec(raw.replace(/\r?\n\s+/g, " "))?.[1];
  return new URL(header!).searchParams.get("token")!;
};

describe("announcement email over SMTP", () => {
  let id = "";
  it("previews a draft with the audience snapshot and the rendered email, sending nothing", async () => {
    const before = sink.submissions.length;
    const r = await call(srv.url, "POST", "/api/admin/announcements/preview", {
      token: admin(),
      body: {
        title: "Season two",
        body: "New maps arrive <soon>.\n\nGood luck!",
        in_game: true,
        email: true,
      },
    });
    expect(r.status).toBe(200);
    const a = r.body as unknown as AdminAnnouncement;
    id = a.id;
    expect(a.state).toBe("draft");
    expect(a.recipients?.recipients).toBe(4); // boss, ann, cyd, dee; bob opted out
    expect(a.recipients?.opted_out).toBe(1);
    expect(a.email_html).toContain("New maps arrive &lt;soon&gt;.");
    expect(a.email_text).toContain("Good luck!");
    await new Promise((r) => setTimeout(r, 300));
    expect(sink.submissions.length).toBe(before);
  });

  it("publishes once: opted-in recipients only, at most one submission per second, refused -> failed, dropped -> unknown", async () => {
    const start = sink.messages.length;
    const submissionsBefore = sink.submissions.length;
    const p1 = await call(srv.url, "POST", `/api/admin/announcements/${id}/publish`, { token: admin() });
    expect(p1.status).toBe(200);
    const p2 = await call(srv.url, "POST", `/api/admin/announcements/${id}/publish`, { token: admin() });
    expect(p2.status).toBe(200);
    expect(p2.body.published).toBe(p1.body.published);
    const done = await waitFor(
      () => announcement(id),
      (a) => a.delivery.pending === 0 && a.delivery.sending === 0,
    );
    expect(done.delivery).toEqual({ pending: 0, sending: 0, accepted: 2, failed: 1, unknown: 1, skipped: 0 });
    const got = sink.messages.slice(start).filter((m) => m.category === "announcements");
    expect(got.map((m) => m.to).sort()).toEqual(["ann@mail.test", "boss@mail.test"]);
    // Submissions (MAIL FROM) at least a second apart.
    const times = sink.submissions.slice(submissionsBefore).map((s) => s.at);
    // Every submission (onboarding mail may come between) at least a second after the one before.
    expect(times.length).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(990);
    // Every mail carries its link and the one-click headers.
    for (const m of got) {
      expect(m.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click/im);
      expect(m.raw.replace(/=\r?\n/g, "")).toContain("/email/unsubscribe?token=");
    }
    // The dropped connection opened the global incident: sending pauses until it is resolved.
    const emails = await call(srv.url, "GET", "/api/admin/emails", { token: admin() });
    expect(emails.body.mode).toBe("smtp");
    const incidents = emails.body.incidents as { scope: string; resolved: string | null }[];
    expect(incidents.some((i) => i.scope === "*" && i.resolved === null)).toBe(true);
    // The operator's view has no recipient addresses.
    expect(JSON.stringify(emails.body)).not.toContain("@mail.test");
  }, 30_000);

  it("pauses for an open incident, resumes when it is resolved with a reason, and retry resends only failed", async () => {
    const bad = await call(srv.url, "POST", "/api/admin/emails/incidents/*/resolve", {
      token: admin(),
      body: { reason: "" },
    });
    expect(bad.status).toBe(400);
    const before = sink.messages.length;
    sink.refuse.delete("cyd@mail.test");
    // Requeued while the incident is open: it waits.
    const retry = await call(srv.url, "POST", `/api/admin/announcements/${id}/retry`, { token: admin() });
    expect(retry.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(sink.messages.slice(before).filter((m) => m.category === "announcements")).toEqual([]);
    const ok = await call(srv.url, "POST", "/api/admin/emails/incidents/*/resolve", {
      token: admin(),
      body: { reason: "the relay was restarted" },
    });
    expect(ok.status).toBe(200);
    const done = await waitFor(
      () => announcement(id),
      (a) => a.delivery.pending === 0 && a.delivery.sending === 0,
    );
    expect(done.delivery).toMatchObject({ accepted: 3, failed: 0, unknown: 1 });
    await sink.until((m) => m.slice(before).some((x) => x.category === "admin_warnings"));
    const resent = sink.messages.slice(before).filter((m) => m.category === "announcements");
    expect(resent.map((m) => m.to)).toEqual(["cyd@mail.test"]);
    // Accepted and unknown are never resent, even when asked again.
    await call(srv.url, "POST", `/api/admin/announcements/${id}/retry`, { token: admin() });
    await new Promise((r) => setTimeout(r, 1500));
    const all = sink.messages.filter((m) => m.category === "announcements").map((m) => m.to);
    expect(all.sort()).toEqual(["ann@mail.test", "boss@mail.test", "cyd@mail.test"]);
    const audit = await call(srv.url, "GET", "/api/admin/audit?kind=email_incident", { token: admin() });
    expect(JSON.stringify(audit.body)).toContain("the relay was restarted");
  }, 30_000);

  it("unsubscribes once per category with the mail's token; expired, tampered and cross-category tokens are refused", async () => {
    const mail = sink.messages.find((m) => m.to === "ann@mail.test" && m.category === "announcements")!;
    const token = tokenOf(mail.raw);
    const look = await call(srv.url, "GET", `/api/email/unsubscribe?token=${encodeURIComponent(token)}`);
    expect(look.status).toBe(200);
    expect(look.body).toMatchObject({ valid: true, category: "announcements", label: "Announcements" });
    // GET changed nothing.
    let acct = await call(srv.url, "GET", "/api/account", { token: users.ann!.access });
    expect(acct.body.email_announcements).toBe(true);
    // RFC 8058 one-click: a form POST to the header's URL.
    const res = await fetch(`${srv.url}/api/email/unsubscribe?token=${encodeURIComponent(token)}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ unsubscribed: true, category: "announcements", already: false });
    const again = await call(srv.url, "POST", "/api/email/unsubscribe", { body: { token } });
    expect(again.status).toBe(200);
    expect(again.body.already).toBe(true);
    acct = await call(srv.url, "GET", "/api/account", { token: users.ann!.access });
    expect(acct.body.email_announcements).toBe(false);
    // Only that category: the others stay on.
    expect(Object.values(acct.body.email_preferences as Record<string, boolean>).every(Boolean)).toBe(true);

    // One signature character changed (to another: choosing by a different character left it as it was once in
    // 64 runs, and the "tampered" token was the real one).
    const tampered = `${token.slice(0, -3)}${token.at(-3) === "A" ? "B" : "A"}${token.slice(-2)}`;
    const cross = token.replace(/^announcements\./, "weekly_digest.");
    const expired = srv.app.ctx.mail.tokens.issue(
      users.ann!.id,
      "weekly_digest",
      Date.now() - 91 * 86_400_000,
    );
    for (const [bad, why] of [
      [tampered, "invalid"],
      [cross, "invalid"],
      [expired, "expired"],
      ["nonsense", "invalid"],
    ] as const) {
      const g = await call(srv.url, "GET", `/api/email/unsubscribe?token=${encodeURIComponent(bad)}`);
      expect(g.status).toBe(200);
      expect(g.body).toMatchObject({ valid: false, reason: why });
      const p = await call(srv.url, "POST", `/api/email/unsubscribe?token=${encodeURIComponent(bad)}`);
      expect(p.status).toBe(400);
      expect(p.body.code).toBe("bad_request");
    }
    acct = await call(srv.url, "GET", "/api/account", { token: users.ann!.access });
    expect((acct.body.email_preferences as Record<string, boolean>).weekly_digest).toBe(true);
  });

  it("later announcements skip the unsubscribed and count them", async () => {
    const r = await call(srv.url, "POST", "/api/admin/announcements/preview", {
      token: admin(),
      body: { title: "Second", body: "Another one", in_game: false, email: true },
    });
    // ann and bob are out now.
    expect((r.body as unknown as AdminAnnouncement).recipients?.recipients).toBe(3);
  });

  it("previews the sample emails without sending", async () => {
    const before = sink.submissions.length;
    for (const kind of ["welcome", "achievement", "admin"]) {
      const r = await call(srv.url, "GET", `/api/admin/emails/preview?kind=${kind}`, { token: admin() });
      expect(r.status).toBe(200);
      expect(typeof r.body.subject).toBe("string");
      expect(String(r.body.html)).toContain("<html>");
    }
    expect(
      (await call(srv.url, "GET", "/api/admin/emails/preview?kind=other", { token: admin() })).status,
    ).toBe(400);
    expect(sink.submissions.length).toBe(before);
  });
});
