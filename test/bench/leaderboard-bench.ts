// The leaderboard read (issue 12): GET /api/leaderboard requests per second on a ladder of 2,000 bots and
// 100,000 stored rated games, against a bare Fastify route that returns a constant of the same size, measured
// in the same run by the same keep-alive client. Both servers share this process with the client, so the
// ratio, not the absolute figure, is what carries over to another machine.
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Fastify from "fastify";
import { buildApp } from "../../server/app.ts";
import { testConfig } from "../../server/config.ts";
import { migrate } from "../../server/db/migrate.ts";
import { openDb } from "../../server/db/open.ts";
import type { BenchLine } from "./engine-bench.ts";

const BOTS = 2_000;
const GAMES = 100_000;
const CONCURRENCY = 16;

/** Stored ladder history made in SQL: bots with one version each, and rated games where lower ids win more. */
async function seed(dataDir: string): Promise<void> {
  const db = await openDb({ dataDir });
  await migrate(db);
  await db.exec(`
    INSERT INTO bots (id, name, name_lower, display_name, owner)
      SELECT 'b' || i, 'bot' || i, 'bot' || i, 'Bot ' || i, 'owner' || (i % 500) FROM generate_series(1, ${BOTS}) i;
    INSERT INTO bot_versions (bot_id, label) SELECT 'b' || i, 'v1' FROM generate_series(1, ${BOTS}) i;
    CREATE TEMP TABLE g AS
      SELECT g, a, 1 + ((a - 1 + 1 + (g % ${BOTS - 1})) % ${BOTS}) AS b
      FROM (SELECT g, 1 + ((g * 7919) % ${BOTS}) AS a FROM generate_series(1, ${GAMES}) g) s;
    ALTER TABLE g ADD COLUMN a_wins boolean;
    UPDATE g SET a_wins = random() < 0.5 + (b - a)::float / ${BOTS * 2};
    INSERT INTO matches (id, ladder_id, mode, seed, map, started, ended, final_tick, reason, winner_bot_id, voided)
      SELECT 'm' || g, 'public', 'ranked', g, 'arena-21', now(), now(), 100, 'last_standing',
             'b' || CASE WHEN a_wins THEN a ELSE b END, false
      FROM g ORDER BY g;
    INSERT INTO match_bots (match_id, seq, fighter, bot_id, name, display_name, version, house)
      SELECT m.id, m.seq, 0, 'b' || g.a, 'bot' || g.a, 'Bot ' || g.a, 'v1', false FROM g JOIN matches m ON m.id = 'm' || g.g
      UNION ALL
      SELECT m.id, m.seq, 1, 'b' || g.b, 'bot' || g.b, 'Bot ' || g.b, 'v1', false FROM g JOIN matches m ON m.id = 'm' || g.g;
  `);
  await db.close();
}

/** Requests per second that CONCURRENCY keep-alive clients get from `url` in `ms`. */
async function load(url: string, ms: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const until = performance.now() + ms;
  let done = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = request(url, { agent }, (res) => {
        res.on("data", () => {});
        res.on("end", () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`status ${res.statusCode}`)),
        );
      });
      req.on("error", reject);
      req.end();
    });
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        await one();
        done++;
      }
    }),
  );
  const elapsed = performance.now() - t0;
  agent.destroy();
  return (done * 1000) / elapsed;
}

export async function leaderboardBench(quick = false): Promise<BenchLine[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "ladder-lb-bench-"));
  try {
    await seed(dataDir);
    const app = await buildApp(
      testConfig({ dataDir, port: 0, host: "127.0.0.1", houseBots: false, workers: 1 }),
      {},
    );
    const port = await app.listen();
    const url = `http://127.0.0.1:${port}/api/leaderboard`;
    const first = (await (await fetch(url)).json()) as unknown[];
    if (first.length < BOTS * 0.9) throw new Error(`only ${first.length} ranked bots on the leaderboard`);
    const bare = Fastify({ logger: false });
    bare.get("/constant", async () => first);
    await bare.listen({ port: 0, host: "127.0.0.1" });
    const bareUrl = `http://127.0.0.1:${(bare.server.address() as { port: number }).port}/constant`;

    // Alternate the two, several rounds, so drifts in machine load fall on both alike.
    const ms = quick ? 1_000 : 3_000;
    const rounds = quick ? 2 : 3;
    const ours: number[] = [];
    const base: number[] = [];
    await load(url, 300); // warm-up
    await load(bareUrl, 300);
    for (let r = 0; r < rounds; r++) {
      base.push(await load(bareUrl, ms));
      ours.push(await load(url, ms));
    }
    await bare.close();
    await app.close();
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const ratio = (100 * sum(ours)) / sum(base);
    return [
      { name: `leaderboard read, ${BOTS} bots / ${GAMES} games`, value: sum(ours) / rounds, unit: "req/s" },
      { name: "bare Fastify route, same body", value: sum(base) / rounds, unit: "req/s" },
      { name: "leaderboard read vs bare route", value: ratio, unit: "%", target: 50 },
    ];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await leaderboardBench(process.argv.includes("--quick")))
    console.log(
      `${line.name}: ${line.value.toFixed(1)} ${line.unit}${line.target ? ` (target ${line.target})` : ""}`,
    );
}
