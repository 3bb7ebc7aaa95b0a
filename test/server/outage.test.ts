// No result lost through a database outage (issue 20): matches that end while the database is unreachable are
// journaled before their bots hear `end`, answered from the journal meanwhile, written to the database once it
// is back (each once), and the live ratings equal what a restart rebuilds. The database here is the one the
// suite runs on (PGlite, or PostgreSQL in the CI's second pass) behind a switch that makes it unreachable
// (test/helpers/outage.ts); test/server/outage-cluster.test.ts stops a real PostgreSQL cluster instead.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../server/store/sql-store.ts";
import { type Outage, openOutageStore } from "../helpers/outage.ts";
import { BotClient, freshDatabaseUrl, startServer, type TestServer } from "../helpers/server.ts";

type Msg = { type: string; [k: string]: unknown };

const stops: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => {});
});

async function until(
  cond: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const t0 = Date.now();
  while (!(await cond())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const journalOf = (dataDir: string) => readdirSync(join(dataDir, "journal"));

/** Rating, deviation and record of every version of the named bots. */
async function ratings(srv: TestServer, names: Iterable<string>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const { body } = await srv.get<{ versions: Record<string, unknown>[] }>(`/api/bots/${name}`);
    for (const v of body.versions)
      out[`${name}@${v.label}`] = [v.rating, v.rating_deviation, v.wins, v.losses, v.draws];
  }
  return out;
}

describe("a database outage during ranked play", () => {
  it("journals the results that end during it, stores each once afterwards, and keeps the ratings a restart rebuilds", async () => {
    const db = await freshDatabaseUrl();
    const place = { dataDir: "", ...(db.url ? { databaseUrl: db.url } : {}) };
    let outage: Outage;
    let srv: TestServer;
    {
      const { mkdtempSync } = await import("node:fs");
      const { tmpdir } = await import("node:os");
      place.dataDir = mkdtempSync(join(tmpdir(), "ladder-outage-"));
      const opened = await openOutageStore(place);
      outage = opened.outage;
      srv = await startServer(
        { dataDir: place.dataDir, tickMs: 300, startupMs: 1000, ...(db.url ? { databaseUrl: db.url } : {}) },
        { store: opened.store, results: { retryMinMs: 50, retryMaxMs: 200, commitTimeoutMs: 1000 } },
      );
    }
    // Run in reverse: the servers close, the database goes, then the data dir.
    stops.push(async () => rmSync(place.dataDir, { recursive: true, force: true }));
    stops.push(() => db.drop());
    stops.push(() => srv.app.close());

    // Three bots of three owners, each paired with a house bot (they are always queued).
    const names = ["outage-a", "outage-b", "outage-c"];
    const bots = await Promise.all(
      names.map(async (n) => {
        const b = new BotClient(srv.wsUrl, await srv.register(n, `${n}-owner`));
        await b.open();
        return b;
      }),
    );
    const ends: Msg[] = [];
    // One match with the database up, then three that end with it down.
    ends.push(await bots[0]!.queueForMatch("v1").then(() => bots[0]!.playUntilEnd()));
    const hellos = await Promise.all(bots.map((b) => b.queueForMatch("v1")));
    outage.down = true;
    const during = await Promise.all(bots.map((b) => b.playUntilEnd()));
    ends.push(...during);
    for (const [i, end] of during.entries()) {
      expect(end.match_id).toBe(hellos[i]!.match_id);
      expect(["win", "loss", "draw"]).toContain(end.result);
    }
    // Durable in the journal, and answered from it while the database is down.
    expect(journalOf(place.dataDir).sort()).toEqual(during.map((e) => `${e.match_id}.result.json`).sort());
    for (const end of during) {
      const row = await srv.get<{ id: string; reason: string; final_tick: number }>(
        `/api/matches/${end.match_id}`,
      );
      expect(row.status).toBe(200);
      expect(row.body).toMatchObject({ id: end.match_id, reason: end.reason, final_tick: end.final_tick });
      const replay = await fetch(`${srv.url}/replays/${end.match_id}.jsonl.gz`);
      expect(replay.status).toBe(200);
    }
    // A queue meanwhile is answered with the retryable code, and the bot is not left queued.
    const since = bots[0]!.received.length;
    bots[0]!.send({ type: "queue", version: "v1" });
    expect(await bots[0]!.next("error", undefined, 5_000, since)).toMatchObject({ code: "unavailable" });
    // API routes that need the database answer 503 in the error shape, pages 503 without noindex.
    const api = await fetch(`${srv.url}/api/matches?bot=outage-a`);
    expect(api.status).toBe(503);
    expect(api.headers.get("retry-after")).toBe("5");
    expect(await api.json()).toMatchObject({ code: "unavailable", error: expect.any(String) });
    for (const path of ["/ladder", "/bot/outage-a"]) {
      const page = await fetch(`${srv.url}${path}`);
      expect(page.status, path).toBe(503);
      expect(page.headers.get("x-robots-tag"), path).toBeNull();
      expect(page.headers.get("retry-after"), path).toBe("5");
      expect(await page.text(), path).toContain("Back in a moment");
    }

    // Recovery: the journal drains into the database, each result once.
    outage.down = false;
    await until(() => journalOf(place.dataDir).length === 0, "the journal to drain");
    const listed = await srv.get<{ id: string }[]>("/api/matches?limit=100");
    const ids = listed.body.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const end of ends) expect(ids.filter((id) => id === end.match_id)).toHaveLength(1);
    // The rating changes the bots were told are the stored ones.
    for (const end of ends) {
      const m = await srv.get<{ bots: { name: string; rating_before: number; rating_after: number }[] }>(
        `/api/matches/${end.match_id}`,
      );
      const me = m.body.bots.find((b) => names.includes(b.name))!;
      expect(end.rating_change).toBe(me.rating_after - me.rating_before);
    }
    // Bots play again once the database is back.
    const again = await bots[1]!.queueForMatch("v1").then(() => bots[1]!.playUntilEnd());
    expect(["win", "loss", "draw"]).toContain(again.result);

    const everyone = new Set<string>();
    for (const m of listed.body as unknown as { bots: { name: string }[] }[])
      for (const b of m.bots) everyone.add(b.name);
    const live = await ratings(srv, everyone);
    for (const b of bots) b.ws.close();
    await srv.app.close();
    stops.pop();

    // A restart rebuilds the same ratings from what was stored.
    const store = await openStore(place);
    const restarted = await startServer(
      { dataDir: place.dataDir, ...(db.url ? { databaseUrl: db.url } : {}) },
      { store },
    );
    stops.push(() => restarted.app.close());
    expect(await ratings(restarted, everyone)).toEqual(live);
  }, 120_000);
});
