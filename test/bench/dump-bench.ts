// The open data dump job (issue 35, server/opendata/dumps.ts) at 100,000 stored rated games over 29 days:
// the time to write every day's file, the memory it takes (peak heap and resident size above the level before
// the run, sampled every 5 ms) and how long it holds the event loop (the longest delay a timer saw while it
// ran: what a match's tick would wait). Seeded in SQL the way the leaderboard bench seeds its games. Three
// runs, each writing every file again; `npm run bench -- --dump` (PGlite), or with DATABASE_URL on PostgreSQL.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { gunzipSync } from "node:zlib";
import { migrate } from "../../server/db/migrate.ts";
import { openDb } from "../../server/db/open.ts";
import { OpenDataDumps } from "../../server/opendata/dumps.ts";
import { freshDatabaseUrl } from "../helpers/server.ts";

const BOTS = 2_000;
const GAMES = 100_000;
const RUNS = 3;

export interface DumpRunFigures {
  ms: number;
  lines: number;
  days: number;
  heapPeakMb: number;
  rssPeakMb: number;
  loopMaxMs: number;
  loopP99Ms: number;
}

export async function dumpBench(quick = false): Promise<DumpRunFigures[]> {
  const games = quick ? GAMES / 10 : GAMES;
  const dataDir = mkdtempSync(join(tmpdir(), "ladder-dump-bench-"));
  // On PostgreSQL when DATABASE_URL is set (a fresh schema, dropped after), else embedded PGlite in the data dir.
  const place = await freshDatabaseUrl();
  const db = await openDb({ dataDir, databaseUrl: place.url });
  try {
    await migrate(db);
    // One game every 25 s from 2026-10-01: 100,000 games over 29 days.
    await db.exec(`
      INSERT INTO bots (id, name, name_lower, display_name, owner)
        SELECT 'b' || i, 'bot' || i, 'bot' || i, 'Bot ' || i, 'owner' || (i % 500) FROM generate_series(1, ${BOTS}) i;
      INSERT INTO bot_versions (bot_id, label) SELECT 'b' || i, 'v1' FROM generate_series(1, ${BOTS}) i;
      CREATE TEMP TABLE g AS
        SELECT g, a, 1 + ((a - 1 + 1 + (g % ${BOTS - 1})) % ${BOTS}) AS b
        FROM (SELECT g, 1 + ((g * 7919) % ${BOTS}) AS a FROM generate_series(1, ${games}) g) s;
      ALTER TABLE g ADD COLUMN a_wins boolean;
      UPDATE g SET a_wins = random() < 0.5 + (b - a)::float / ${BOTS * 2};
      INSERT INTO matches (id, ladder_id, mode, seed, map, started, ended, final_tick, reason, winner_bot_id, voided)
        SELECT 'm' || g, 'public', 'ranked', g, 'arena-21',
               timestamptz '2026-10-01T00:00:00Z' + g * interval '25 seconds',
               timestamptz '2026-10-01T00:00:00Z' + g * interval '25 seconds', 100, 'last_standing',
               'b' || CASE WHEN a_wins THEN a ELSE b END, false
        FROM g ORDER BY g;
      INSERT INTO match_bots (match_id, seq, fighter, bot_id, name, display_name, version, house)
        SELECT m.id, m.seq, 0, 'b' || g.a, 'bot' || g.a, 'Bot ' || g.a, 'v1', false FROM g JOIN matches m ON m.id = 'm' || g.g
        UNION ALL
        SELECT m.id, m.seq, 1, 'b' || g.b, 'bot' || g.b, 'Bot ' || g.b, 'v1', false FROM g JOIN matches m ON m.id = 'm' || g.g;
    `);
    // The planner's statistics, as autovacuum keeps them on a live database (without them a bulk-loaded table
    // is planned as if empty, and each page's join scans match_bots whole).
    await db.exec("ANALYZE matches; ANALYZE match_bots;");
    const now = Date.parse("2026-11-05T00:00:00Z");
    const out: DumpRunFigures[] = [];
    for (let r = 0; r < RUNS; r++) {
      const dumps = new OpenDataDumps(db, dataDir);
      rmSync(dumps.ladderDir("public"), { recursive: true, force: true });
      globalThis.gc?.();
      const base = process.memoryUsage();
      let heapPeak = base.heapUsed;
      let rssPeak = base.rss;
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        heapPeak = Math.max(heapPeak, m.heapUsed);
        rssPeak = Math.max(rssPeak, m.rss);
      }, 5);
      const loop = monitorEventLoopDelay({ resolution: 5 });
      loop.enable();
      const t0 = performance.now();
      const run = await dumps.run("public", now);
      const ms = performance.now() - t0;
      loop.disable();
      clearInterval(sampler);
      // Every game is in exactly one file.
      let lines = 0;
      for (const f of readdirSync(dumps.ladderDir("public")))
        lines +=
          gunzipSync(readFileSync(join(dumps.ladderDir("public"), f)))
            .toString()
            .split("\n").length - 1;
      if (lines !== games || run.lines !== games) throw new Error(`dumped ${lines} lines of ${games} games`);
      out.push({
        ms,
        lines,
        days: run.written.length,
        heapPeakMb: (heapPeak - base.heapUsed) / 2 ** 20,
        rssPeakMb: (rssPeak - base.rss) / 2 ** 20,
        loopMaxMs: loop.max / 1e6,
        loopP99Ms: loop.percentile(99) / 1e6,
      });
    }
    return out;
  } finally {
    await db.close();
    await place.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function printDump(runs: DumpRunFigures[]): void {
  const range = (f: (r: DumpRunFigures) => number, digits = 0) => {
    const v = runs.map(f).sort((a, b) => a - b);
    const med = v[Math.floor(v.length / 2)]!;
    return `${med.toFixed(digits)} (${v[0]!.toFixed(digits)}-${v.at(-1)!.toFixed(digits)})`;
  };
  console.log(
    `\nopen data dump: ${runs[0]!.lines} games, ${runs[0]!.days} daily files, ${runs.length} runs (median, range)\n`,
  );
  console.log("| figure | value |");
  console.log("| --- | --- |");
  console.log(`| time to write every file | ${range((r) => r.ms / 1000, 2)} s |`);
  console.log(`| games per second | ${range((r) => r.lines / (r.ms / 1000))} |`);
  console.log(`| peak heap above the start | ${range((r) => r.heapPeakMb, 1)} MB |`);
  console.log(`| peak resident size above the start | ${range((r) => r.rssPeakMb, 1)} MB |`);
  console.log(`| longest event-loop delay while it ran | ${range((r) => r.loopMaxMs, 1)} ms |`);
  console.log(`| event-loop delay p99 | ${range((r) => r.loopP99Ms, 1)} ms |`);
}
