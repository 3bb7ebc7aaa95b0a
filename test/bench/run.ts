// `npm run bench`: runs every benchmark and prints one table (figure, target, ratio to target). Not part of
// `npm test`: performance targets live here, never as timing asserts in tests. `--quick` shortens each run;
// `--live` runs only the live benchmarks (ladder against the bare ws ceiling), `--no-memory` skips the idle
// socket memory run, `--storm` runs only the connect storm, `--workers-table` only the worker-tuning table of
// docs/operations.md (test/bench/workers-table.ts).
import { cpus } from "node:os";
import { type BenchLine, engineBench } from "./engine-bench.ts";
import { ladderBench } from "./ladder-bench.ts";
import { leaderboardBench } from "./leaderboard-bench.ts";
import { type LiveBenchLine, liveBench } from "./live-bench.ts";

// `--storm` runs only the connect-storm benchmark (issue 20), three times, and prints its own table.
if (process.argv.includes("--storm")) {
  const { stormBench, printStorm } = await import("./storm-bench.ts");
  printStorm(await stormBench(process.argv.includes("--quick") ? 1 : 3));
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
const fmt = (v: number) => (Math.abs(v) >= 100 ? Math.round(v).toLocaleString("en-US") : v.toFixed(2));

const lines: (BenchLine & LiveBenchLine)[] = [
  ...(liveOnly ? [] : await engineBench(quick)),
  ...(await liveBench(quick, memory)),
];
// Competitive core (issue 4): BT refit and fit, matchmaker pass; in-process, after the live runs.
if (!liveOnly) lines.push(...(await ladderBench(quick)));
// The leaderboard read against a bare Fastify route with the same body (issue 12).
if (!liveOnly) lines.push(...(await leaderboardBench(quick)));
console.log(
  `\nnode ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown cpu"}), ${new Date().toISOString().slice(0, 10)}\n`,
);
console.log("| benchmark | figure | target | ratio to target |");
console.log("|---|---|---|---|");
let failed = false;
for (const l of lines) {
  // A ceiling (memory) is met when the figure is at or below it: its ratio is target / figure.
  const ratio = l.target ? (l.lowerIsBetter ? l.target / l.value : l.value / l.target) : undefined;
  if (ratio !== undefined && ratio < 1) failed = true;
  const target = l.target ? `${l.lowerIsBetter ? "≤ " : ""}${fmt(l.target)} ${l.unit}` : "-";
  console.log(
    `| ${l.name} | ${fmt(l.value)} ${l.unit} | ${target} | ${ratio === undefined ? "-" : `${ratio.toFixed(2)}x`} |`,
  );
}
if (failed) console.log("\nsome figures are below their targets");
