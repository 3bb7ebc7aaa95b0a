// The local league's scaling (issue 35, engine/sim/league.ts): `arena-sim league` plays its games on worker
// threads, one per core by default. Games per second of the built simulator (dist/arena-sim.mjs, as a user
// runs it) on three house bots with 1 and with 2 workers, three runs each, every run a fresh results file
// (no resume). `npm run bench -- --league`; build first (`npm run build:sim`) when the engine changed.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const SIM = join(ROOT, "dist", "arena-sim.mjs");
const BOTS = ["kiter", "brawler", "champion"];
const RUNS = 3;

export interface LeagueRun {
  workers: number;
  games: number;
  seconds: number;
}

export function leagueBench(quick = false): LeagueRun[] {
  if (!existsSync(SIM)) throw new Error(`${SIM} is missing: run npm run build:sim`);
  const perPair = quick ? 4 : 20;
  const games = (perPair * BOTS.length * (BOTS.length - 1)) / 2;
  const dir = mkdtempSync(join(tmpdir(), "league-bench-"));
  const out: LeagueRun[] = [];
  try {
    for (let run = 0; run < RUNS; run++)
      for (const workers of [1, 2]) {
        const results = join(dir, `r-${run}-${workers}.jsonl`);
        const args = [SIM, "league", "--bots", ...BOTS, "--games", String(perPair)];
        args.push("--seed", String(100 + run), "--workers", String(workers), "--results", results);
        const t0 = performance.now();
        const r = spawnSync(process.execPath, args, { encoding: "utf8" });
        const seconds = (performance.now() - t0) / 1000;
        if (r.status !== 0) throw new Error(`league failed: ${r.stderr}`);
        out.push({ workers, games, seconds });
      }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

export function printLeague(runs: LeagueRun[]): void {
  console.log(
    `\nlocal league: ${BOTS.join(", ")}, ${runs[0]!.games} games a run, ${RUNS} runs (median, range)\n`,
  );
  console.log("| workers | games/s | seconds |");
  console.log("| --- | --- | --- |");
  for (const w of [1, 2]) {
    const mine = runs.filter((r) => r.workers === w);
    const fmt = (v: number[], d: number) => {
      const s = [...v].sort((a, b) => a - b);
      return `${s[Math.floor(s.length / 2)]!.toFixed(d)} (${s[0]!.toFixed(d)}-${s.at(-1)!.toFixed(d)})`;
    };
    console.log(
      `| ${w} | ${fmt(
        mine.map((r) => r.games / r.seconds),
        1,
      )} | ${fmt(
        mine.map((r) => r.seconds),
        2,
      )} |`,
    );
  }
}
