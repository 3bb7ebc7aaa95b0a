// The outbox survives kill -9 in the middle of a delivery: the server (a child process) is killed while the
// SMTP server holds its answer to one message, then restarted on the same data. Nothing accepted is sent
// again, nothing pending is lost, and the interrupted message is `unknown` and never resent; the restart opens
// an incident for it (scope `interrupted`, which pauses nothing) with an admin warning (issue 31, part 8).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { call } from "../helpers/accounts.ts";
import { type Child, startChild } from "../helpers/child-server.ts";
import { type Sink, signUpBySmtp, startSink } from "../helpers/mail-sink.ts";
import { freePort } from "../helpers/ports.ts";
import { freshDatabaseUrl } from "../helpers/server.ts";

let sink: Sink | undefined;
let child: Child | undefined;
const dataDir = mkdtempSync(join(tmpdir(), "ladder-mailcrash-"));
let dropDb: () => Promise<void> = async () => {};

afterAll(async () => {
  child?.proc.kill("SIGKILL");
  await child?.exited;
  await sink?.close();
  await dropDb();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("email outbox across kill -9", () => {
  it("sends no duplicate and loses nothing when the server dies mid-delivery", async () => {
    sink = await startSink();
    const db = await freshDatabaseUrl();
    dropDb = db.drop;
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const args = [
      "--smtp-url",
      `smtp://127.0.0.1:${sink.port}`,
      "--admin-emails",
      "boss@crash.test",
      "--port",
      String(port),
      "--public-url",
      url,
    ];
    child = await startChild(dataDir, db.url, { args });
    const boss = await signUpBySmtp(url, sink, "boss@crash.test", "boss");
    for (const n of [1, 2, 3, 4]) await signUpBySmtp(url, sink, `u${n}@crash.test`, `u${n}`);
    sink.hold.add("u2@crash.test");

    const draft = await call(url, "POST", "/api/admin/announcements/preview", {
      token: boss.access,
      body: { title: "Crash test", body: "Delivered once.", in_game: true, email: true },
    });
    expect(draft.status).toBe(200);
    const id = String(draft.body.id);
    expect(
      (await call(url, "POST", `/api/admin/announcements/${id}/publish`, { token: boss.access })).status,
    ).toBe(200);
    // boss and u1 are accepted; u2's message is received in full but never answered: kill the server now.
    expect(await sink.held()).toBe("u2@crash.test");
    const delivered = sink.of("announcements").map((m) => m.to);
    expect(delivered.sort()).toEqual(["boss@crash.test", "u1@crash.test"]);
    child.proc.kill("SIGKILL");
    await child.exited;

    child = await startChild(dataDir, db.url, { args });
    const until = Date.now() + 30_000;
    let counts: Record<string, number> = {};
    while (Date.now() < until) {
      const list = await call(url, "GET", "/api/admin/announcements", { token: boss.access });
      counts = (list.body as unknown as { id: string; delivery: Record<string, number> }[]).find(
        (a) => a.id === id,
      )!.delivery;
      if (counts.pending === 0 && counts.sending === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(counts).toEqual({ pending: 0, sending: 0, accepted: 4, failed: 0, unknown: 1, skipped: 0 });
    const all = sink.of("announcements").map((m) => m.to);
    expect(all.sort()).toEqual(["boss@crash.test", "u1@crash.test", "u3@crash.test", "u4@crash.test"]);
    // The interrupted message was submitted once, never again.
    expect(sink.submissions.filter((s) => s.to === "u2@crash.test").length).toBe(2); // confirmation + the held one
    const history = await call(url, "GET", "/api/admin/emails", { token: boss.access });
    const unknown = (history.body.history as { id: number; state: string; detail: string }[]).filter(
      (h) => h.state === "unknown",
    );
    expect(unknown.length).toBe(1);
    expect(unknown[0]!.detail).toContain("interrupted");
    // The mail in doubt opened an incident at the restart, naming it; it paused nothing (the rest was sent).
    const incidents = history.body.incidents as { scope: string; problem: string; resolved: string | null }[];
    const doubt = incidents.find((i) => i.scope === "interrupted" && i.resolved === null);
    expect(doubt?.problem).toContain(`outbox id ${unknown[0]!.id}`);
    expect(incidents.some((i) => i.scope === "*" && i.resolved === null)).toBe(false);
    await sink.until((m) => m.some((x) => x.to === "boss@crash.test" && x.category === "admin_warnings"));
  }, 120_000);
});
