// Issue 31, part 8, against a real SMTP server on loopback (with a TCP front that can hang): a mail server that
// accepts the connection and never greets, or goes silent after DATA, opens the global incident within the
// SMTP timeout (--smtp-timeout, 2 s here) instead of holding the one sender for nodemailer's 10 minutes, and
// mail goes out again once the server answers and the incident is resolved; sign-up mail goes through the
// outbox, paced like every other mail and ahead of older bulk mail, and its single-use link is not kept in
// the outbox (nor shown to the operator) once the mail is settled.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers/accounts.ts";
import { type Front, type Sink, signUpBySmtp, startFront, startSink } from "../helpers/mail-sink.ts";
import { freePort } from "../helpers/ports.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let sink: Sink;
let front: Front;
let boss = "";
let cyd = "";

interface Incident {
  scope: string;
  problem: string;
  resolved: string | null;
}
interface HistoryRow {
  id: number;
  category: string;
  state: string;
  detail: string | null;
  text: string;
}
interface Emails {
  interval_ms: number;
  incidents: Incident[];
  history: HistoryRow[];
}

beforeAll(async () => {
  sink = await startSink();
  front = await startFront(sink.port);
  const port = await freePort();
  srv = await startServer({
    port,
    host: "127.0.0.1",
    publicUrl: `http://127.0.0.1:${port}`,
    anonymousDev: false,
    smtpUrl: `smtp://127.0.0.1:${front.port}`,
    smtpTimeoutMs: 2000,
    adminEmails: ["boss@hang.test"],
  });
  boss = (await signUpBySmtp(srv.url, sink, "boss@hang.test", "boss")).access;
}, 60_000);

afterAll(async () => {
  await srv?.stop();
  await front?.close();
  await sink?.close();
});

const emails = async () =>
  (await call(srv.url, "GET", "/api/admin/emails", { token: boss })).body as unknown as Emails;
const openGlobal = (e: Emails) => e.incidents.find((i) => i.scope === "*" && i.resolved === null);

async function waitFor<T>(f: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (ok(v)) return v;
    if (Date.now() > until) throw new Error(`timed out; last ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Asks the built-in provider for a sign-up (the confirmation mail is queued, not awaited). */
async function askSignUp(email: string): Promise<void> {
  const res = await fetch(`${srv.url}/auth/v1/signup`, {
    method: "POST",
    headers: {
      apikey: srv.app.ctx.identity!.publishableKey,
      "content-type": "application/json",
    },
    body: JSON.stringify({ email, password: "a long test password for mail" }),
  });
  expect(res.status, await res.text()).toBe(200);
}

const verifyMailTo = (to: string) => (m: Sink["messages"]) =>
  m.some((x) => x.to === to && x.raw.includes("/auth/v1/verify"));

async function resolveGlobal(reason: string): Promise<void> {
  const r = await call(srv.url, "POST", "/api/admin/emails/incidents/*/resolve", {
    token: boss,
    body: { reason },
  });
  expect(r.status).toBe(200);
}

describe("a hung SMTP server", () => {
  it("that accepts the connection and never greets opens the incident; the mail waits and goes once it answers", async () => {
    front.hang = true;
    await askSignUp("ann@hang.test");
    const e = await waitFor(emails, (x) => openGlobal(x) !== undefined);
    expect(front.hung).toBeGreaterThan(0);
    expect(openGlobal(e)!.problem).toMatch(/did not answer in time/);
    // Nothing was submitted: the confirmation is still pending (it will be sent), and the admins' warning
    // is queued behind the incident; the operator sees neither the link nor an address.
    const ann = e.history.find((h) => h.category === "identity" && h.state === "pending");
    expect(ann?.detail).toMatch(/not sent/);
    expect(e.history.some((h) => h.category === "admin_warnings" && h.state === "pending")).toBe(true);
    expect(JSON.stringify(e.history)).not.toContain("/auth/v1/verify");
    expect(JSON.stringify(e)).not.toContain("@hang.test");

    front.hang = false;
    await resolveGlobal("the relay answers again");
    await sink.until(verifyMailTo("ann@hang.test"));
    await sink.until((m) => m.some((x) => x.to === "boss@hang.test" && x.category === "admin_warnings"));
  }, 60_000);

  it("that goes silent after DATA leaves the mail in doubt, opens the incident, and later mail still goes", async () => {
    sink.stall = true;
    await askSignUp("bob@hang.test");
    // The incident opens and the mail is settled as unknown; the two land a moment apart, so wait for both.
    const e = await waitFor(
      emails,
      (x) =>
        openGlobal(x) !== undefined &&
        x.history.some((h) => h.category === "identity" && h.state === "unknown"),
    );
    expect(openGlobal(e)!.problem).toMatch(/stopped answering/);
    const bob = e.history.find((h) => h.category === "identity" && h.state === "unknown");
    expect(bob?.detail).toMatch(/outcome unknown/);
    // The settled identity mail no longer holds its link in the database.
    const rows = await srv.app.ctx.mail.store.db.query(
      "SELECT text_body, html_body FROM email_outbox WHERE id = $1",
      [bob!.id],
    );
    expect(JSON.stringify(rows)).not.toMatch(/verify\?token=/);
    expect(sink.messages.some((m) => m.to === "bob@hang.test")).toBe(false);

    sink.stall = false;
    await resolveGlobal("the relay was restarted");
    // Later mail goes out: a new account signs up and confirms through its emailed link.
    cyd = (await signUpBySmtp(srv.url, sink, "cyd@hang.test", "cyd")).access;
    // The in-doubt mail is never resent.
    expect(sink.messages.some((m) => m.to === "bob@hang.test")).toBe(false);
  }, 60_000);
});

describe("identity mail in the outbox", () => {
  it("a burst of sign-ups reaches the SMTP server paced by the outbox, links kept out of the outbox", async () => {
    const burst = [1, 2, 3, 4, 5].map((n) => `burst${n}@hang.test`);
    const before = sink.submissions.length;
    await Promise.all(burst.map(askSignUp));
    await sink.until((m) => burst.every((to) => verifyMailTo(to)(m)), 30_000);
    const { interval_ms, history } = await emails();
    const times = sink.submissions.slice(before).map((s) => s.at);
    expect(times.length).toBeGreaterThanOrEqual(burst.length);
    // Each submission (MAIL FROM) at least the outbox's interval after the one before (the sender counts from
    // the end of a submission, which is after its MAIL FROM; 10 ms for the two clocks' rounding).
    for (let i = 1; i < times.length; i++)
      expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(interval_ms - 10);
    // The outbox's own record: every confirmation accepted, its body replaced once sent.
    const sent = history.filter((h) => h.category === "identity" && h.state === "accepted");
    expect(sent.length).toBeGreaterThanOrEqual(burst.length);
    const ids = sent.map((h) => h.id);
    const rows = await srv.app.ctx.mail.store.db.query(
      "SELECT text_body FROM email_outbox WHERE id = ANY($1::bigint[])",
      [ids],
    );
    expect(rows.length).toBe(ids.length);
    for (const r of rows) expect(String(r.text_body)).not.toContain("token=");
  }, 60_000);

  it("goes ahead of older bulk mail (announcements) and carries no unsubscribe link", async () => {
    // Pause sending, queue an announcement to every opted-in account, then a sign-up: when sending resumes
    // the confirmation is the first mail out although the announcement's rows are older.
    await srv.app.ctx.mail.openIncident("*", "test: sending held while mail is queued");
    const draft = await call(srv.url, "POST", "/api/admin/announcements/preview", {
      token: boss,
      body: { title: "Bulk", body: "For everyone.", in_game: false, email: true },
    });
    expect(draft.status).toBe(200);
    const pub = await call(srv.url, "POST", `/api/admin/announcements/${draft.body.id}/publish`, {
      token: boss,
    });
    expect(pub.status).toBe(200);
    await askSignUp("late@hang.test");
    const before = sink.messages.length;
    await resolveGlobal("test over");
    await sink.until(
      (m) => verifyMailTo("late@hang.test")(m) && m.slice(before).some((x) => x.category === "announcements"),
    );
    const order = sink.messages.slice(before).map((m) => m.category);
    expect(order[0]).toBe("identity");
    expect(order.indexOf("identity")).toBeLessThan(order.indexOf("announcements"));
    // Identity mail carries no unsubscribe link: nobody opts out of a confirmation.
    const late = sink.messages.find((m) => m.to === "late@hang.test")!;
    expect(late.raw).not.toMatch(/^List-Unsubscribe/im);
  }, 60_000);

  it("a recovery link reaches an account that opted out of every email category", async () => {
    const off = await call(srv.url, "PUT", "/api/account/notifications", {
      token: cyd,
      body: { email_announcements: false },
    });
    expect(off.status).toBe(200);
    const prefs = Object.fromEntries(
      Object.keys(off.body.email_preferences as object).map((k) => [k, false]),
    );
    const all = await call(srv.url, "PUT", "/api/account/notifications", {
      token: cyd,
      body: { email_preferences: prefs },
    });
    expect(all.status).toBe(200);
    const res = await fetch(`${srv.url}/auth/v1/recover`, {
      method: "POST",
      headers: { apikey: srv.app.ctx.identity!.publishableKey, "content-type": "application/json" },
      body: JSON.stringify({ email: "cyd@hang.test" }),
    });
    expect(res.status).toBe(200);
    await sink.until((m) =>
      m.some((x) => x.to === "cyd@hang.test" && /type=3Drecovery|type=recovery/.test(x.raw)),
    );
  }, 60_000);
});
