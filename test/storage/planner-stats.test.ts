// The embedded database's planner statistics (issue 38): PGlite runs no autovacuum, so the store analyzes it at
// open and again by autovacuum's rule (50 + 10 % of the matches counted at the last analyze) as matches are
// written. pg_class.reltuples says when an analyze ran: -1 for a table never analyzed, the table's row count after.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BotStore } from "../../server/bots/bot-store.ts";
import { MatchStore } from "../../server/results/match-store.ts";
import { openStore, type SqlStore } from "../../server/store/sql-store.ts";
import type { BotRow } from "../../server/store/types.ts";
import { matchRecord } from "../helpers/match-records.ts";
import { seedPglite } from "../helpers/pglite-template.ts";

let dir: string;
let store: SqlStore;
let a: BotRow;
let b: BotRow;
let n = 0;

const reltuples = async (table: string) =>
  Number(
    (
      await store.db.query<{ n: unknown }>("SELECT reltuples AS n FROM pg_class WHERE oid = $1::regclass", [
        table,
      ])
    )[0]?.n,
  );

async function write(count: number): Promise<void> {
  const batch = Array.from({ length: count }, () => matchRecord(`ps-${++n}`, [a, b]));
  await new MatchStore(store).saveMatches(batch);
  await store.plannerStats.settled();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ladder-planner-"));
  store = (await openStore({ dataDir: seedPglite(dir) })) as SqlStore;
  const bots = new BotStore(store);
  a = (await bots.createBot({ name: "ps-a", owner: "x", house: false })).bot;
  b = (await bots.createBot({ name: "ps-b", owner: "y", house: false })).bot;
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("planner statistics on the embedded database", () => {
  it("analyzes at open", async () => {
    expect(store.plannerStats.active).toBe(true);
    // Analyzed while empty: 0 rows, not the -1 of a table never analyzed.
    expect(await reltuples("matches")).toBe(0);
  });

  it("analyzes again once more than 50 + 10 % of the counted matches were written, not before", async () => {
    await write(50);
    expect(await reltuples("matches")).toBe(0);
    await write(1);
    expect(await reltuples("matches")).toBe(51);
    expect(await reltuples("match_bots")).toBe(102);
    // The next one is due past 50 + 5.1 more.
    await write(55);
    expect(await reltuples("matches")).toBe(51);
    await write(1);
    expect(await reltuples("matches")).toBe(107);
  });

  it("samples match_stats lightly: no statistics on its JSON, a target of 10 on its key (migration 0022)", async () => {
    // ANALYZE samples 300 rows per unit of the largest target among a table's columns and holds each sampled
    // row with its inline JSON: at the default 100 that was 61 MiB of PGlite's memory, never given back.
    const targets = await store.db.query<{ attname: string; t: unknown }>(
      `SELECT attname, attstattarget AS t FROM pg_attribute
       WHERE attrelid = 'match_stats'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attname`,
    );
    expect(targets.map((r) => [r.attname, Number(r.t)])).toEqual([
      ["match_id", 10],
      ["stats", 0],
      ["stats_version", 10],
    ]);
    // Still analyzed: its row count is known to the planner.
    expect(await reltuples("match_stats")).toBeGreaterThan(0);
  });

  it("stays out of PostgreSQL's way (autovacuum's job there)", async () => {
    const { PlannerStats } = await import("../../server/store/planner-stats.ts");
    const calls: string[] = [];
    const pg = {
      driver: "pg",
      exec: async (sql: string) => void calls.push(sql),
      query: async () => [],
    } as unknown as ConstructorParameters<typeof PlannerStats>[0];
    const stats = new PlannerStats(pg);
    await stats.analyze();
    stats.wrote(10_000);
    await stats.settled();
    expect(calls).toEqual([]);
  });
});
