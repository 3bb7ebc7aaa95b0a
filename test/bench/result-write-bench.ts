// What storing one result costs, and how much of it is migration 0020's aggregate triggers (issue 38): results
// are saved one per statement, as a live server's group commit does when matches end apart, on a fresh PGlite
// data dir or, with DATABASE_URL, on PostgreSQL (bots of their own, names unique to the run). Rounds alternate
// with the triggers enabled and disabled (ALTER TABLE ... DISABLE TRIGGER, on this run's connection only for
// the time of the round); each round reports wall time and this process's CPU per result (PGlite runs in
// this process, so its CPU is counted; PostgreSQL's server is not).
//
//   npm run bench -- --result-writes
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BotStore } from "../../server/bots/bot-store.ts";
import { DEFAULT_LADDER } from "../../server/kernel/names.ts";
import { MatchStore } from "../../server/results/match-store.ts";
import { openStore } from "../../server/store/sql-store.ts";
import type { MatchRecord } from "../../server/store/types.ts";

const TRIGGERS_OFF =
  "ALTER TABLE matches DISABLE TRIGGER matches_rated_counts; ALTER TABLE match_bots DISABLE TRIGGER match_bots_aggregates";
const TRIGGERS_ON =
  "ALTER TABLE matches ENABLE TRIGGER matches_rated_counts; ALTER TABLE match_bots ENABLE TRIGGER match_bots_aggregates";

export interface ResultWriteRound {
  triggers: boolean;
  wallUs: number;
  cpuUs: number;
}

export async function resultWriteBench(
  rounds = 3,
  perRound = 300,
): Promise<{ driver: string; rounds: ResultWriteRound[] }> {
  const url = process.env.DATABASE_URL;
  const dir = url ? null : mkdtempSync(join(tmpdir(), "result-write-bench-"));
  const store = await openStore({ databaseUrl: url, dataDir: dir ?? "" });
  const bots = new BotStore(store);
  const matches = new MatchStore(store);
  const run = `rw${process.pid.toString(36)}${Date.now().toString(36)}`;
  try {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const { bot } = await bots.createBot({
        name: `${run}-${i}`,
        display_name: `${run} ${i}`,
        owner: `${run}-owner-${i}`,
        house: false,
      });
      await bots.ensureVersion(bot.id, "v1");
      ids.push(bot.id);
    }
    let g = 0;
    // A ranked result of two of the run's bots (no stats row: the triggers read only the match and its seats).
    const record = (): MatchRecord => {
      const a = ids[g % ids.length]!;
      const b = ids[(g + 3) % ids.length]!;
      const id = `${run}-${g++}`;
      const ended = Date.now();
      return {
        id,
        ladder_id: DEFAULT_LADDER,
        mode: "ranked",
        seed: g,
        map: "arena",
        started: new Date(ended - 5_000).toISOString(),
        ended: new Date(ended).toISOString(),
        duration_ms: 5_000,
        final_tick: 170,
        reason: "elimination",
        winner_bot_id: g % 7 === 0 ? null : a,
        voided: false,
        note: null,
        bots: [a, b].map((bot_id, fighter) => ({
          fighter,
          bot_id,
          name: bot_id,
          display_name: bot_id,
          version: "v1",
          house: false,
          avatar: null,
          rating_before: 1500,
          rating_after: 1500,
        })),
        stats: null,
        replay_file: null,
      } as MatchRecord;
    };
    const round = async (triggers: boolean): Promise<ResultWriteRound> => {
      if (!triggers) await store.db.exec(TRIGGERS_OFF);
      try {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        for (let i = 0; i < perRound; i++) await matches.saveMatches([record()]);
        const c = process.cpuUsage(c0);
        return {
          triggers,
          wallUs: ((performance.now() - t0) * 1000) / perRound,
          cpuUs: (c.user + c.system) / perRound,
        };
      } finally {
        if (!triggers) await store.db.exec(TRIGGERS_ON);
      }
    };
    await round(true); // warm-up
    await round(false);
    const out: ResultWriteRound[] = [];
    for (let r = 0; r < rounds; r++) out.push(await round(r % 2 === 0), await round(r % 2 !== 0));
    return { driver: store.driver, rounds: out };
  } finally {
    await store.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

export function printResultWrites(r: { driver: string; rounds: ResultWriteRound[] }): void {
  const fmt = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `${Math.round(s[Math.floor(s.length / 2)]!)} [${Math.round(s[0]!)}-${Math.round(s.at(-1)!)}]`;
  };
  console.log(
    `\n| ${r.driver}: one result per statement | wall µs per result, median [range] | process CPU µs per result |`,
  );
  console.log("|---|---|---|");
  for (const on of [true, false]) {
    const rs = r.rounds.filter((x) => x.triggers === on);
    console.log(
      `| aggregate triggers ${on ? "on" : "off"} (${rs.length} rounds) | ${fmt(rs.map((x) => x.wallUs))} | ${fmt(rs.map((x) => x.cpuUs))} |`,
    );
  }
}
