// `npm run bench`: runs every benchmark and prints one table (figure, target, ratio to target). Not part of
// `npm test`: performance targets live here, never as timing asserts in tests. `--quick` shortens each run;
// `--live` runs only the live benchmarks (ladder against the bare ws ceiling), `--no-memory` skips the idle
// socket memory run, `--storm` runs only the connect storm, `--workers-table` only the worker-tuning table of
// docs/operations.md (test/bench/workers-table.ts), `--link` and `--wake` only the worker link's costs, `--cluster` only cross-node play (issue 36), `--dump` only the open data dump job, `--league` only the local league's scaling, and
// `--workers N` sets the ladder's pool workers for the live runs.
import { cpus, loadavg } from "node:os";
import { defaultWorkers } from "../../server/config.ts";
import { type BenchLine, engineBench } from "./engine-bench.ts";
import { ladderBench } from "./ladder-bench.ts";
import { leaderboardBench } from "./leaderboard-bench.ts";
import { type LiveBenchLine, liveBench, memoryRun } from "./live-bench.ts";

// `--storm` runs only the connect-storm benchmark (issue 20), three times, and prints its own table.
if (process.argv.includes("--storm")) {
  const { stormBench, printStorm } = await import("./storm-bench.ts");
  printStorm(await stormBench(process.argv.includes("--quick") ? 1 : 3));
  process.exit(0);
}

// `--cluster` measures only a cross-node match against a one-node match (issue 36; needs DATABASE_URL).
if (process.argv.includes("--cluster")) {
  const { clusterBench, printCluster } = await import("./cluster-bench.ts");
  const n = process.argv.includes("--quick") ? 1 : 3;
  const load = process.argv.indexOf("--cluster-matches");
  printCluster(await clusterBench(n, load > 0 ? Number(process.argv[load + 1]) : 16), n);
  process.exit(0);
}

// `--link` measures only the worker link's three encodings (issue 13 part 1), in one thread pair.
if (process.argv.includes("--link")) {
  const { linkBench } = await import("./link-bench.ts");
  const rows = await linkBench(process.argv.includes("--quick"));
  console.log(`\nnode ${process.version}, load average ${loadavg()[0]!.toFixed(1)}\n`);
  for (const l of rows) console.log(`| ${l.name} | ${l.value.toFixed(1)} ${l.unit} |`);
  process.exit(0);
}

// `--wake` measures what one cross-thread message costs its sender (the link's floor; Node 23.9 or later).
if (process.argv.includes("--wake")) {
  const { wakeBench } = await import("./wake-bench.ts");
  const rows = await wakeBench();
  console.log(`\nnode ${process.version}, load average ${loadavg()[0]!.toFixed(1)}\n`);
  for (const l of rows) console.log(`| ${l.name} | ${l.value.toFixed(1)} ${l.unit} |`);
  process.exit(0);
}

// `--insight` measures only the rank-uncertainty work (issue 33): intervals and matchups at 2,000 versions.
if (process.argv.includes("--insight")) {
  const { insightBench } = await import("./insight-bench.ts");
  const rows = await insightBench(process.argv.includes("--quick"));
  console.log(`\nnode ${process.version}, load average ${loadavg()[0]!.toFixed(1)}\n`);
  for (const l of rows) console.log(`| ${l.name} | ${l.value.toFixed(2)} ${l.unit} |`);
  process.exit(0);
}

// `--dump` measures only the open data dump job (issue 35): 100,000 stored games written as daily files.
if (process.argv.includes("--dump")) {
  const { dumpBench, printDump } = await import("./dump-bench.ts");
  const runs = await dumpBench(process.argv.includes("--quick"));
  console.log(`\nnode ${process.version}, load average ${loadavg()[0]!.toFixed(1)}`);
  printDump(runs);
  process.exit(0);
}

// `--league` measures only the local league's games per second with 1 and 2 worker threads (issue 35).
if (process.argv.includes("--league")) {
  const { leagueBench, printLeague } = await import("./league-bench.ts");
  const runs = leagueBench(process.argv.includes("--quick"));
  console.log(`\nnode ${process.version}, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}`);
  printLeague(runs);
  process.exit(0);
}

// `--seed-ladder BOTS:GAMES` (issue 38) stores a ladder history through the server's own insert paths, on
// PGlite in `--data-dir` (default ./data/bench-ladder-BOTS-GAMES) or, with DATABASE_URL, in a schema of its own.
if (process.argv.includes("--seed-ladder")) {
  const { parseShape, seedLadder } = await import("./seed-ladder.ts");
  const arg = (flag: string) => {
    const i = process.argv.indexOf(flag);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const dataDir = arg("--data-dir");
  const place = await seedLadder(parseShape(arg("--seed-ladder")), {
    ...(dataDir ? { dataDir } : {}),
    reseed: process.argv.includes("--reseed"),
  });
  console.log(place.databaseUrl ? `seeded: ${place.databaseUrl}` : `seeded: ${place.dataDir}`);
  process.exit(0);
}

// `--reads` (issue 38): the read routes on a seeded ladder against a bare route, start-up time and peak memory.
if (process.argv.includes("--reads")) {
  const { readsBench, printReads } = await import("./reads-bench.ts");
  printReads(await readsBench(process.argv));
  process.exit(0);
}

// `--result-writes` (issue 38): what one stored result costs, with and without migration 0020's triggers.
if (process.argv.includes("--result-writes")) {
  const { printResultWrites, resultWriteBench } = await import("./result-write-bench.ts");
  const r = await resultWriteBench(3, 300);
  console.log(
    `\nnode ${process.version}, ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  printResultWrites(r);
  process.exit(0);
}

// `--trace` (issue 39): only the per-hop trace of one match's ticks (a ladder started with ARENA_TRACE=1) and
// the wake round trip beside it, in a few seconds: for looking at one hop while changing it. `--reps N` matches.
if (process.argv.includes("--trace")) {
  const { tracedRun } = await import("./live-bench.ts");
  const { wakeRoundTrips } = await import("./wake-bench.ts");
  const repsAt = process.argv.indexOf("--reps");
  const n = repsAt > 0 ? Math.max(1, Number(process.argv[repsAt + 1]) || 1) : 8;
  const lines = await tracedRun(n, defaultWorkers());
  const wake = (await wakeRoundTrips(1_000)).sort((a, b) => a - b);
  console.log(
    `\nnode ${process.version}, ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  for (const l of lines) console.log(`${l.name}: ${l.value.toFixed(1)} ${l.unit}`);
  console.log(`wake round trip, p50: ${wake[500]!.toFixed(1)} µs (p99 ${Math.round(wake[990]!)} µs)`);
  process.exit(0);
}

// `--workers-table` prints the worker-tuning table (issue 14): 1, 2 and 4 workers at 16, 64 and 256 matches.
if (process.argv.includes("--workers-table")) {
  const { workersTable } = await import("./workers-table.ts");
  await workersTable();
  process.exit(0);
}

const quick = process.argv.includes("--quick");
const liveOnly = process.argv.includes("--live");
const memory = !process.argv.includes("--no-memory");
// `--reps N`: the live runs (fresh ladder and bare servers each time) are repeated N times and each figure is
// printed as the median with its range; the machine is shared and noisy, so one run proves little.
const repsArg = process.argv.indexOf("--reps");
const reps = repsArg > 0 ? Math.max(1, Number(process.argv[repsArg + 1]) || 1) : quick ? 1 : 3;
// `--workers N`: the ladder's pool workers for the live runs (default: the server's own default).
const workersArg = process.argv.indexOf("--workers");
const workers = workersArg > 0 ? Math.max(1, Number(process.argv[workersArg + 1]) || 1) : defaultWorkers();
const fmt = (v: number) => (Math.abs(v) >= 100 ? Math.round(v).toLocaleString("en-US") : v.toFixed(2));

/** One table row: the median run's line, with the range of its value over the repetitions. */
type Row = BenchLine & LiveBenchLine & { min?: number; max?: number };

/** Lines of repeated runs, matched by position (every run prints the same lines in the same order). */
function combine(runs: LiveBenchLine[][]): Row[] {
  return runs[0]!.map((_, i) => {
    const values = runs.map((r) => r[i]!);
    const sorted = [...values].sort((a, b) => a.value - b.value);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    return { ...median, min: sorted[0]!.value, max: sorted.at(-1)!.value };
  });
}

const live: LiveBenchLine[][] = [];
for (let r = 0; r < reps; r++) {
  if (reps > 1) console.error(`live run ${r + 1} of ${reps}`);
  live.push(await liveBench(quick, false, workers));
}
const lines: Row[] = [...(liveOnly ? [] : await engineBench(quick)), ...combine(live)];
if (memory) lines.push(...(await memoryRun(workers, quick ? 1_000 : 5_000)));
// Competitive core (issue 4): BT refit and fit, matchmaker pass; in-process, after the live runs.
if (!liveOnly) lines.push(...(await ladderBench(quick)));
// The leaderboard read against a bare Fastify route with the same body (issue 12).
if (!liveOnly) lines.push(...(await leaderboardBench(quick)));
console.log(
  `\nnode ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown cpu"}), ${new Date().toISOString().slice(0, 10)}, ` +
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}; live figures: median of ${reps} run${reps > 1 ? "s" : ""} [range]\n`,
);
console.log("| benchmark | figure | target | ratio to target |");
console.log("|---|---|---|---|");
let failed = false;
for (const l of lines) {
  // A ceiling (memory, latency, cost) is met when the figure is at or below it: its ratio is target / figure.
  const ratio = l.target ? (l.lowerIsBetter ? l.target / l.value : l.value / l.target) : undefined;
  if (ratio !== undefined && ratio < 1) failed = true;
  const target = l.target ? `${l.lowerIsBetter ? "≤ " : ""}${fmt(l.target)} ${l.unit}` : "-";
  const range =
    l.min !== undefined && l.max !== undefined && reps > 1 ? ` [${fmt(l.min)}-${fmt(l.max)}]` : "";
  console.log(
    `| ${l.name} | ${fmt(l.value)} ${l.unit}${range} | ${target} | ${ratio === undefined ? "-" : `${ratio.toFixed(2)}x`} |`,
  );
}
// CPU per tick by thread kind, for every live run (the table shows the median run's total).
const details = live.flatMap((run, r) =>
  run.filter((l) => l.detail).map((l) => `run ${r + 1}: ${l.name}: ${l.detail}`),
);
if (details.length > 0) console.log(`\n${details.join("\n")}`);
if (failed) console.log("\nsome figures are below their targets");
