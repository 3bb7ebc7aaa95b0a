// `npm run bench -- --workers-table`: the worker-tuning table of docs/operations.md (issue 14 part 4). For
// 1, 2 and 4 pool workers at 16, 64 and 256 concurrent matches, a fresh ladder process (live-bench.ts
// --serve-ladder, with metrics on) plays instant-reply bots against each other for a window, and the figures are
// read from its own metrics, as an operator's Prometheus would read them:
//
// - ticks/s: ranked ticks in the window (arena_tick_server_seconds_count);
// - tick time p50/p99: the server's share of a tick (arena_tick_server_seconds: turns posted to the worker ->
//   observations back) and the whole round trip (arena_tick_round_trip_seconds: observations out -> the next
//   ones, the bots' replies included), estimated from the histogram buckets as PromQL's histogram_quantile does;
// - CPU per tick: the ladder process's CPU time in the window over its ticks (main thread / other threads, from
//   /proc: the workers, GC helpers and libuv), and the benchmark clients' own CPU per tick, which shares the
//   same cores;
// - worker utilisation: arena_pool_worker_busy_seconds_total over the window and the workers;
// - event-loop delay p99 of the main thread (nodejs_eventloop_lag_p99_seconds, since the previous read).
//
// The clients live in this process and take CPU from the same cores as the server: on a 2-core machine the
// figures are a lower bound of what a server with its bots elsewhere does. `--runs N` repeats the whole table
// (ranges), `--window S` sets the measuring window (default 12 s), `--workers 1,2` and `--matches 16,64` pick
// cells, `--json <file>` also writes every cell of every run.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import {
  type Client,
  closeAll,
  connect,
  type Ladder,
  opened,
  pause,
  startLadder,
  until,
} from "./live-bench.ts";
import { threadCpu } from "./thread-cpu.ts";

interface Series {
  labels: Record<string, string | number>;
  value: number;
  metricName?: string;
}
interface Family {
  name: string;
  values: Series[];
}

export interface Cell {
  workers: number;
  matches: number;
  /** Mean matches running in the window (the rematch hold can keep some bots waiting for partners). */
  running: number;
  ticksPerS: number;
  serverP50: number;
  serverP99: number;
  roundTripP50: number;
  roundTripP99: number;
  /** µs of CPU per tick: the ladder's main thread, its other threads, the benchmark clients. */
  cpuMain: number;
  cpuOther: number;
  cpuClients: number;
  utilisation: number;
  loopP99: number;
  misses: number;
}

const find = (fams: Family[], name: string) => fams.find((f) => f.name === name)?.values ?? [];
const sumOf = (vs: Series[], pred: (s: Series) => boolean = () => true) =>
  vs.filter(pred).reduce((a, s) => a + s.value, 0);

/** Cumulative bucket counts of one histogram series, by upper bound. */
function buckets(fams: Family[], name: string, labels: Record<string, string>): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of find(fams, name)) {
    if (s.metricName !== `${name}_bucket`) continue;
    if (!Object.entries(labels).every(([k, v]) => s.labels[k] === v)) continue;
    const le = s.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(s.labels.le);
    out.set(le, s.value);
  }
  return out;
}

/** histogram_quantile over the increase between two reads: linear within the bucket the rank falls in. */
export function quantile(q: number, before: Map<number, number>, after: Map<number, number>): number {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const inc = bounds.map((b) => (after.get(b) ?? 0) - (before.get(b) ?? 0));
  const total = inc.at(-1) ?? 0;
  if (total <= 0) return Number.NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (let i = 0; i < bounds.length; i++) {
    const upper = bounds[i]!;
    if (inc[i]! >= rank) {
      if (upper === Number.POSITIVE_INFINITY) return lower; // above the highest bound: its bound is all we know
      return lower + ((upper - lower) * (rank - below)) / (inc[i]! - below);
    }
    lower = upper;
    below = inc[i]!;
  }
  return lower;
}

const TOKEN = randomBytes(18).toString("base64url");

async function cell(workers: number, matches: number, windowMs: number): Promise<Cell> {
  const ladder: Ladder = await startLadder(workers, ["--metrics-token", TOKEN]);
  const clients: Client[] = [];
  try {
    const tokens = await ladder.register(2 * matches, `w${workers}m${matches}`);
    let stopping = false;
    const played = new Set<Client>();
    for (const t of tokens) {
      const c = connect(ladder.wsUrl, { authorization: `Bearer ${t}` }, {});
      c.hooks = {
        observation: (cl) => played.add(cl),
        end: (cl) => {
          if (!stopping) cl.queue();
        },
      };
      clients.push(c);
    }
    await Promise.all(clients.map(opened));
    for (const c of clients) c.queue();
    await until(() => played.size === clients.length, 120_000, `${clients.length} clients playing`);
    await pause(500);

    const m0 = (await ladder.metrics()) as Family[];
    const cpu0 = threadCpu(ladder.pid);
    const me0 = process.cpuUsage();
    const t0 = performance.now();
    let samples = 0;
    let runningSum = 0;
    const sampler = setInterval(() => {
      samples++;
      runningSum += clients.filter((c) => c.playing).length / 2;
    }, 100);
    await pause(windowMs);
    clearInterval(sampler);
    const m1 = (await ladder.metrics()) as Family[];
    const cpu1 = threadCpu(ladder.pid);
    const me = process.cpuUsage(me0);
    const seconds = (performance.now() - t0) / 1000;
    // The route answers too, behind its token (the figures above were read from the same registry).
    const scraped = await fetch(`${ladder.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    if (scraped.status !== 200) throw new Error(`GET /metrics answered ${scraped.status}`);

    const ranked = { mode: "ranked" };
    const count = (fams: Family[], name: string) =>
      sumOf(find(fams, name), (s) => s.metricName === `${name}_count` && s.labels.mode === "ranked");
    const ticks = count(m1, "arena_tick_server_seconds") - count(m0, "arena_tick_server_seconds");
    const q = (name: string, p: number) => quantile(p, buckets(m0, name, ranked), buckets(m1, name, ranked));
    const busy = (fams: Family[]) => sumOf(find(fams, "arena_pool_worker_busy_seconds_total"));
    const misses = (fams: Family[]) => sumOf(find(fams, "arena_tick_deadline_misses_total"));
    const perTick = (ms: number) => (ticks > 0 ? (1000 * ms) / ticks : Number.NaN);
    const result: Cell = {
      workers,
      matches,
      running: samples ? runningSum / samples : 0,
      ticksPerS: ticks / seconds,
      serverP50: q("arena_tick_server_seconds", 0.5),
      serverP99: q("arena_tick_server_seconds", 0.99),
      roundTripP50: q("arena_tick_round_trip_seconds", 0.5),
      roundTripP99: q("arena_tick_round_trip_seconds", 0.99),
      cpuMain: perTick(cpu1.main - cpu0.main),
      cpuOther: perTick(cpu1.other - cpu0.other),
      cpuClients: perTick((me.user + me.system) / 1000),
      // A worker replaced in the window would restart its counter; none is (no deadline is near).
      utilisation: (busy(m1) - busy(m0)) / (seconds * workers),
      loopP99: sumOf(find(m1, "nodejs_eventloop_lag_p99_seconds")),
      misses: misses(m1) - misses(m0),
    };
    stopping = true;
    return result;
  } finally {
    // The ladder goes with its matches: each cell starts from a fresh process and data dir.
    await closeAll(clients);
    await ladder.stop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function list(flag: string, def: number[]): number[] {
  const i = process.argv.indexOf(flag);
  return i >= 0 ? process.argv[i + 1]!.split(",").map(Number) : def;
}

export async function workersTable(): Promise<void> {
  const runs = list("--runs", [1])[0]!;
  const windowMs = list("--window", [12])[0]! * 1000;
  const workerCounts = list("--workers", [1, 2, 4]);
  const matchCounts = list("--matches", [16, 64, 256]);
  const results: Cell[][] = [];
  // The machine's load before and after: on a shared machine the figures move with it.
  const load0 = loadavg()[0]!;
  for (let r = 0; r < runs; r++) {
    const run: Cell[] = [];
    for (const w of workerCounts)
      for (const m of matchCounts) {
        const c = await cell(w, m, windowMs);
        run.push(c);
        console.error(
          `run ${r + 1}/${runs}: ${w} workers, ${m} matches: ${Math.round(c.ticksPerS)} ticks/s, server p50 ${(c.serverP50 * 1000).toFixed(2)} ms`,
        );
      }
    results.push(run);
  }
  const json = process.argv.indexOf("--json");
  if (json >= 0)
    writeFileSync(
      process.argv[json + 1]!,
      `${JSON.stringify({ date: new Date().toISOString(), node: process.version, load: [load0, loadavg()[0]], windowMs, results }, null, 1)}\n`,
    );
  const ms = (s: number) => (s * 1000).toFixed(s < 0.01 ? 2 : 1);
  const span = (xs: number[], f: (x: number) => string) => {
    const s = [...xs].sort((a, b) => a - b);
    const mid = s[Math.floor(s.length / 2)]!;
    return s.length === 1 || f(s[0]!) === f(s.at(-1)!) ? f(mid) : `${f(mid)} (${f(s[0]!)}-${f(s.at(-1)!)})`;
  };
  console.log(
    `\nnode ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? "unknown cpu"}), ${new Date().toISOString().slice(0, 10)}; ` +
      `${runs} run${runs > 1 ? "s" : ""} of ${windowMs / 1000} s per cell${runs > 1 ? ": median (min-max)" : ""}; ` +
      `load average ${load0.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after\n`,
  );
  console.log(
    "| workers | matches (running) | ticks/s | server share p50 / p99 (ms) | round trip p50 / p99 (ms) | CPU per tick: main / other threads / clients (µs) | worker utilisation | loop delay p99 (ms) | deadline misses |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (let i = 0; i < results[0]!.length; i++) {
    const cs = results.map((run) => run[i]!);
    const col = (f: (c: Cell) => number, fmt: (x: number) => string) =>
      span(
        cs.map(f).filter((x) => Number.isFinite(x)),
        fmt,
      );
    const int = (x: number) => Math.round(x).toLocaleString("en-US");
    // The mean number running is close to the target in every run: its median is enough.
    const running = median(cs.map((c) => c.running)).toFixed(0);
    const pct = (x: number) => x.toFixed(0);
    console.log(
      `| ${cs[0]!.workers} | ${cs[0]!.matches} (${running}) | ${col((c) => c.ticksPerS, int)} | ` +
        `${col((c) => c.serverP50, ms)} / ${col((c) => c.serverP99, ms)} | ${col((c) => c.roundTripP50, ms)} / ${col((c) => c.roundTripP99, ms)} | ` +
        `${col((c) => c.cpuMain, int)} / ${col((c) => c.cpuOther, int)} / ${col((c) => c.cpuClients, int)} | ` +
        `${col((c) => c.utilisation * 100, pct)} % | ${col((c) => c.loopP99, ms)} | ${col((c) => c.misses, int)} |`,
    );
  }
}
