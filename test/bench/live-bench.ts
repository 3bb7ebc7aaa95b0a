// Live benchmarks (issue 3): the ladder server against a bare `ws` lockstep loop (test/bench/bare-ws.ts, the
// ceiling), in one run, on the same machine, with the same message sizes and the same client code.
//
// - The ladder runs as its own process: this file forked with --serve-ladder calls buildApp and listens, as
//   server/main.ts does, with --expose-gc so memory can be read after a full collection. The server's default
//   pool workers (cores - 1, or --workers N), embedded PGlite (the default), house bots off, tick deadline 10 s:
//   the figures measure the server's own path (socket in, runner, pool worker with engine and observation serialisation, socket out, and at
//   each match end the replay file and the database transaction), not deadlines.
// - Matches are between registered instant-reply bots of different owners, paired with each other: both send
//   an empty turn the moment an observation arrives, so every match runs until the zone knocks both out
//   (tick 169 on every map). The bare loop runs pairs of the same clients for the same number of ticks with a
//   real observation captured from the ladder (the median size of one match's observations).
// - 64 concurrent matches: 128 bots queue, play, and queue again after each `end` (the ladder's rematch hold
//   makes a pair wait for other partners, so "64" is the number of bots / 2; the mean number actually
//   running in the window is printed with it). Ticks are counted in a fixed window after every bot has
//   played. The bare loop pairs its 128 clients the same way (FIFO, no hold).
// - One match: a fresh pair each repetition; its rate is counted from tick 10 to its last observation.
//   Latency is the interval between two observations as one client sees them (reply, server, next
//   observation); "added latency" is ladder minus bare at the same percentile.
// - Memory: a fresh ladder process with N registered bots connected and authenticated (each sent `leave` and
//   got its `not_queued` answer), idle; the server process's VmRSS growth over N, with a full GC before each
//   reading. The clients live in this process, so their memory is not counted.
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import WebSocket from "ws";
import { buildServer } from "../../scripts/build-server.ts";
import { startOnce } from "../../scripts/start-sample.ts";
import { buildApp } from "../../server/app.ts";
import { type Config, defaultWorkers, parseConfig } from "../../server/config.ts";
import { MALLOC_TUNABLE, YOUNG_GENERATION_FLAG } from "../../server/memory-tuning.ts";
import { type BareServer, startBare } from "./bare-ws.ts";
import type { BenchLine } from "./engine-bench.ts";
import { bareTraceLines, traceLines } from "./live-trace.ts";
import {
  cpuDelta,
  cpuTotal,
  NO_KINDS,
  type ThreadCpu,
  type ThreadKinds,
  threadCpuByKind,
} from "./thread-cpu.ts";
import { wakeRoundTrips } from "./wake-bench.ts";

export interface LiveBenchLine extends BenchLine {
  /** A breakdown printed under the table (e.g. CPU per thread kind). */
  detail?: string;
  /** The target is a ceiling (memory): the ratio to target is target / value. */
  lowerIsBetter?: boolean;
}

const FROM_TICK = 10;
const MANY = 64;

// ---------------------------------------------------------------- processes

function vmRss(pid: number | "self"): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : 0;
}

interface Mem {
  rss: number;
  heapUsed: number;
  external: number;
}

async function serveLadder(args: string[]): Promise<void> {
  const { collectDbGarbage, pgliteThreadIds } = await import("../../server/db/pglite.ts");
  const { traceRows } = await import("../../pool/trace.ts");
  const config = parseConfig(args) as Config;
  const app = await buildApp(config, { houseWaitMs: 3_600_000 });
  const port = await app.listen();
  process.on("message", (m) => {
    if (m === "exit") process.exit(0);
    // The operator's figures read back from the registry (workers-table.ts), when metrics are on.
    // The per-hop trace rows so far (a ladder started with ARENA_TRACE=1; pool/trace.ts).
    if (m === "trace") {
      process.send!({ trace: traceRows() });
      return;
    }
    if (m === "metrics") {
      void (async () => process.send!({ metrics: (await app.metrics?.registry.getMetricsAsJSON()) ?? [] }))();
      return;
    }
    // Which threads are the pool's workers and the embedded database's, for the CPU split by thread kind.
    if (m === "threads") {
      process.send!({ threads: { pool: app.ctx.live.pool.osThreadIds(), database: pgliteThreadIds() } });
      return;
    }
    if (m !== "mem") return;
    void (async () => {
      // The embedded database's thread keeps its own heap: the tokens checked leave garbage there that it frees at
      // some later moment, which moved RSS by tens of MiB between the readings (a negative growth per socket).
      await collectDbGarbage();
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      gc?.();
      const u = process.memoryUsage();
      process.send!({ mem: { rss: vmRss("self"), heapUsed: u.heapUsed, external: u.external } });
    })();
  });
  process.send!({ port });
}

export interface Ladder {
  url: string;
  wsUrl: string;
  pid: number;
  mem(): Promise<Mem>;
  /** prom-client's registry as JSON (needs a metrics flag among the extra arguments). */
  metrics(): Promise<unknown[]>;
  /** The thread ids of the pool workers and the database thread. */
  threads(): Promise<ThreadKinds>;
  /** The per-hop trace rows since the last call (started with ARENA_TRACE=1; pool/trace.ts). */
  trace(): Promise<number[][]>;
  register(count: number, prefix: string): Promise<string[]>;
  stop(): Promise<void>;
}

let registered = 0;

/**
 * Starts a ladder process on a fresh data dir, or on `existingDir` (which is then left in place when it
 * stops: the caller owns it).
 */
export async function startLadder(
  workers: number,
  extraArgs: string[] = [],
  existingDir?: string,
  extraEnv: Record<string, string> = {},
): Promise<Ladder> {
  const dataDir = existingDir ?? mkdtempSync(join(tmpdir(), "ladder-bench-"));
  const args = [
    "--serve-ladder",
    "--anonymous-dev",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--data-dir",
    dataDir,
    "--workers",
    String(workers),
    "--no-house-bots",
    "--tick-ms",
    "10000",
    "--startup-ms",
    "60000",
    "--match-interval",
    "0",
    "--max-concurrent",
    "1000",
    "--owner-concurrency",
    "1000",
    "--hourly-quota",
    "1000000",
    // Every benchmark client connects from 127.0.0.1: the per-address door budgets would refuse them.
    "--socket-connects-per-minute",
    "10000000",
    "--max-connections-per-address",
    "0",
    // The memory run opens sockets 250 at a time: the whole-server upgrade budget (issue 31) would answer 503.
    "--upgrades-per-second",
    "0",
    "--listen-backlog",
    "8192",
    "--log-level",
    "warn",
    ...extraArgs,
  ];
  const env = { ...process.env, ...extraEnv };
  delete env.DATABASE_URL; // the embedded database, as on a fresh machine
  // The memory settings the real entry re-executes itself with (server/memory-tuning.ts); this process is forked
  // with an IPC channel, so it is given them at its start instead (the young generation's flag below).
  if (!env.GLIBC_TUNABLES?.includes("glibc.malloc.")) env.GLIBC_TUNABLES = MALLOC_TUNABLE;
  // BENCH_PROF=<dir>: V8's CPU profiles of every server thread (wall-clock samples: a thread descheduled inside
  // a syscall, such as a postMessage that wakes another thread, is counted there). BENCH_PERF=1: symbol maps
  // for Linux perf (`perf record -e cpu-clock -a -g`), which counts CPU time only.
  const prof = [
    ...(process.env.BENCH_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []),
    ...(process.env.BENCH_PERF
      ? [
          "--perf-basic-prof",
          "--interpreted-frames-native-stack",
          "--no-logfile-per-isolate",
          "--logfile=/dev/null",
        ]
      : []),
  ];
  // BENCH_LADDER_FLAGS: more Node or V8 flags for the ladder under test (comparing runtime settings).
  const flags = process.env.BENCH_LADDER_FLAGS?.split(" ").filter(Boolean) ?? [];
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), args, {
    execArgv: ["--import", "tsx", "--expose-gc", YOUNG_GENERATION_FLAG, ...prof, ...flags],
    env,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  let exited: Error | null = null;
  const exit = new Promise<never>((_, reject) =>
    child.once("exit", (code, signal) => {
      exited = new Error(`ladder exited with ${code ?? signal}`);
      reject(exited);
    }),
  );
  exit.catch(() => {});
  const reply = <T>(key: string) => {
    if (exited) return Promise.reject(exited);
    let onMsg: (m: unknown) => void = () => {};
    const got = new Promise<T>((resolve) => {
      onMsg = (m: unknown) => {
        if (m && typeof m === "object" && key in m) resolve((m as Record<string, T>)[key]!);
      };
      child.on("message", onMsg);
    });
    return Promise.race([got, exit]).finally(() => child.off("message", onMsg));
  };
  const port = await reply<number>("port");
  const url = `http://127.0.0.1:${port}`;
  let stopped: Promise<void> | null = null;
  return {
    url,
    wsUrl: `ws://127.0.0.1:${port}/bot`,
    pid: child.pid!,
    mem() {
      const r = reply<Mem>("mem");
      child.send("mem");
      return r;
    },
    metrics() {
      const r = reply<unknown[]>("metrics");
      child.send("metrics");
      return r;
    },
    threads() {
      const r = reply<ThreadKinds>("threads");
      child.send("threads");
      return r;
    },
    trace() {
      const r = reply<number[][]>("trace");
      child.send("trace");
      return r;
    },
    async register(count, prefix) {
      const tokens: string[] = new Array(count);
      let next = 0;
      const one = async () => {
        while (next < count) {
          const i = next++;
          const res = await fetch(`${url}/api/bots`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name: `${prefix}-${i}`, owner: `owner-${registered++}` }),
          });
          const body = (await res.json()) as { token?: string };
          if (res.status !== 201 || !body.token)
            throw new Error(`registration failed: ${JSON.stringify(body)}`);
          tokens[i] = body.token;
        }
      };
      await Promise.all(Array.from({ length: 8 }, one));
      return tokens;
    },
    stop() {
      stopped ??= (async () => {
        if (!exited) {
          // A clean exit, so --cpu-prof can write its profile; SIGKILL when that does not work.
          if (child.connected) child.send("exit", (err) => err && child.kill("SIGKILL"));
          else child.kill("SIGKILL");
          const t = setTimeout(() => child.kill("SIGKILL"), 5_000);
          await exit.catch(() => {});
          clearTimeout(t);
        }
        if (!existingDir) rmSync(dataDir, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
}

// ---------------------------------------------------------------- the clients (same code for both servers)

export interface Hooks {
  observation?(c: Client, now: number, raw: string): void;
  hello?(c: Client): void;
  end?(c: Client, raw: string): void;
}

export interface Client {
  ws: WebSocket;
  /** Observations received in the current match. */
  ticks: number;
  playing: boolean;
  queued: boolean;
  hooks: Hooks;
  queue(): void;
}

const QUEUE = '{"type":"queue","version":"bench"}';

export function connect(url: string, headers: Record<string, string>, hooks: Hooks): Client {
  const ws = new WebSocket(url, { headers, perMessageDeflate: false });
  const c: Client = {
    ws,
    ticks: 0,
    playing: false,
    queued: false,
    hooks,
    queue() {
      c.queued = true;
      ws.send(QUEUE);
    },
  };
  ws.on("error", () => {});
  ws.on("message", (data: Buffer) => {
    const now = performance.now();
    const raw = data.toString();
    const m = JSON.parse(raw) as { type: string; tick?: number };
    if (m.type === "observation") {
      ws.send(`{"type":"turn","tick":${m.tick}}`);
      if (!c.playing) {
        c.playing = true; // the bare loop sends no hello
        c.queued = false;
        c.ticks = 0;
      }
      c.ticks++;
      c.hooks.observation?.(c, now, raw);
    } else if (m.type === "hello") {
      ws.send('{"type":"ready"}');
      c.playing = true;
      c.queued = false;
      c.ticks = 0;
      c.hooks.hello?.(c);
    } else if (m.type === "end") {
      c.playing = false;
      c.hooks.end?.(c, raw);
    }
  });
  return c;
}

export const opened = (c: Client) =>
  new Promise<void>((resolve, reject) => {
    if (c.ws.readyState === WebSocket.OPEN) return resolve();
    c.ws.once("open", () => resolve());
    c.ws.once("error", reject);
  });

export async function closeAll(clients: Client[]): Promise<void> {
  await Promise.all(
    clients.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.ws.readyState === WebSocket.CLOSED) return resolve();
          const t = setTimeout(() => {
            c.ws.terminate();
            resolve();
          }, 2_000);
          c.ws.once("close", () => {
            clearTimeout(t);
            resolve();
          });
          c.ws.close();
        }),
    ),
  );
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: timed out`);
    await pause(5);
  }
}

// ---------------------------------------------------------------- runs

interface Single {
  rate: number;
  intervals: number[];
  observations: string[];
  finalTick: number;
}

/** One match between two clients, measured by the first client from tick 10 to its last observation. */
async function singleRun(clients: [Client, Client]): Promise<Single> {
  const times: number[] = [];
  const observations: string[] = [];
  let finalTick = 0;
  const [lead, other] = clients;
  lead.hooks = {
    observation(c, now, raw) {
      if (c.ticks >= FROM_TICK) times.push(now);
      observations.push(raw);
    },
    end(_c, raw) {
      finalTick = (JSON.parse(raw) as { final_tick?: number }).final_tick ?? lead.ticks;
    },
  };
  other.hooks = {};
  await Promise.all(clients.map(opened));
  for (const c of clients) c.queue();
  await until(
    () => (lead.ticks > 0 || lead.queued) && !lead.playing && !other.playing && times.length > 0,
    60_000,
    "one match",
  );
  const intervals = times.slice(1).map((t, i) => t - times[i]!);
  return {
    rate: (times.length - 1) / ((times.at(-1)! - times[0]!) / 1000),
    intervals,
    observations,
    finalTick: finalTick || lead.ticks,
  };
}

interface Many {
  rate: number;
  running: number;
  serverCpu: ThreadCpu;
  clientCpuMs: number;
  ticks: number;
}

/** `clients` play continuously (queue again after each end); ticks are counted in a window of `ms`. */
async function continuousRun(
  clients: Client[],
  serverPid: number,
  ms: number,
  kinds: () => Promise<ThreadKinds>,
): Promise<Many> {
  let obs = 0;
  let counting = false;
  let stopping = false;
  const played = new Set<Client>();
  for (const c of clients)
    c.hooks = {
      observation(cl) {
        played.add(cl);
        if (counting) obs++;
      },
      end(cl) {
        if (!stopping) cl.queue();
      },
    };
  await Promise.all(clients.map(opened));
  for (const c of clients) c.queue();
  await until(() => played.size === clients.length, 60_000, `${clients.length} clients playing`);
  await pause(300);
  const threads = await kinds();
  const cpu0 = threadCpuByKind(serverPid, threads);
  const me0 = process.cpuUsage();
  const t0 = performance.now();
  counting = true;
  let samples = 0;
  let runningSum = 0;
  const sampler = setInterval(() => {
    samples++;
    runningSum += clients.filter((c) => c.playing).length / 2;
  }, 50);
  await pause(ms);
  counting = false;
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const cpu1 = threadCpuByKind(serverPid, threads);
  const me = process.cpuUsage(me0);
  // Wind down: no more queueing; let running matches end, take queued bots out of the queue.
  stopping = true;
  for (const c of clients) if (c.queued) c.ws.send('{"type":"leave"}');
  await until(() => clients.every((c) => !c.playing), 60_000, "matches ending");
  await pause(300);
  await until(() => clients.every((c) => !c.playing), 60_000, "matches ending");
  const ticks = obs / 2;
  return {
    rate: ticks / seconds,
    running: samples ? runningSum / samples : 0,
    serverCpu: cpuDelta(cpu0, cpu1),
    clientCpuMs: (me.user + me.system) / 1000,
    ticks,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** Open-file limit of this process (the server children inherit it). */
function fileLimit(): number {
  const m = /Max open files\s+(\d+|unlimited)/.exec(readFileSync("/proc/self/limits", "utf8"));
  return !m || m[1] === "unlimited" ? Number.POSITIVE_INFINITY : Number(m[1]);
}

/**
 * Server memory per idle authenticated socket: `warm` sockets are connected first and stay connected (so
 * one-off growth, and the pages given back after the registrations, are behind the baseline), then `n` more;
 * the figure is the marginal growth over those `n`.
 */
export async function memoryRun(workers: number, wanted: number): Promise<LiveBenchLine[]> {
  // Each socket is a descriptor here and one in the server; each process has this limit.
  const warm = 1_000;
  const n = Math.min(wanted, fileLimit() - warm - 500);
  // The bots are registered by a first server process, and the sockets measured on a second one started on
  // the same data dir: registering thousands of bots leaves the first process's embedded database thread with
  // garbage that it releases at some later moment (its heap is not the one a `gc()` here collects), and when
  // that fell between the two readings the growth per socket came out negative (-23 KiB).
  const dataDir = mkdtempSync(join(tmpdir(), "ladder-bench-memory-"));
  const registrar = await startLadder(workers, [], dataDir);
  let tokens: string[];
  try {
    tokens = await registrar.register(warm + n, "idle");
  } finally {
    await registrar.stop();
  }
  const ladder = await startLadder(workers, [], dataDir);
  const trace = (what: string, m: Mem) =>
    process.env.BENCH_DEBUG &&
    console.error(
      `memory: ${what}: rss ${(m.rss / 2 ** 20).toFixed(1)} MiB, heap ${(m.heapUsed / 2 ** 20).toFixed(1)} MiB, external ${(m.external / 2 ** 20).toFixed(1)} MiB`,
    );
  const live: Client[] = [];
  try {
    const authenticate = async (batch: string[]) => {
      const cs = batch.map((t) => connect(ladder.wsUrl, { authorization: `Bearer ${t}` }, {}));
      live.push(...cs);
      await Promise.all(cs.map(opened));
      await Promise.all(
        cs.map(
          (c) =>
            new Promise<void>((resolve) => {
              c.ws.once("message", () => resolve());
              c.ws.send('{"type":"leave"}'); // answered with not_queued once the token is checked
            }),
        ),
      );
    };
    // RSS falls in steps a few seconds after activity stops (V8's memory reducer returns pooled pages), so a
    // reading counts once RSS has held still for six seconds.
    const settled = async () => {
      const seen: Mem[] = [await ladder.mem()];
      for (let i = 0; i < 40; i++) {
        await pause(1_000);
        seen.push(await ladder.mem());
        const last = seen.slice(-7).map((m) => m.rss);
        if (last.length === 7 && Math.max(...last) - Math.min(...last) < 512 * 1024) break;
      }
      return seen.at(-1)!;
    };
    for (let i = 0; i < warm; i += 250) await authenticate(tokens.slice(i, i + 250));
    const before = await settled();
    trace(`${warm} connected`, before);
    for (let i = warm; i < warm + n; i += 250) await authenticate(tokens.slice(i, i + 250));
    const after = await settled();
    trace(`${warm + n} connected`, after);
    const kib = (bytes: number) => bytes / 1024;
    return [
      {
        name: `memory per idle connected bot (server RSS growth / ${n.toLocaleString("en-US")} sockets)`,
        value: kib((after.rss - before.rss) / n),
        unit: "KiB",
        target: 16,
        lowerIsBetter: true,
      },
      {
        name: "memory per idle connected bot (server JS heap + external growth)",
        value: kib((after.heapUsed + after.external - before.heapUsed - before.external) / n),
        unit: "KiB",
      },
    ];
  } finally {
    await closeAll(live);
    await ladder.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The server build, made once per benchmark process (every repetition starts the same build). */
let built: Promise<unknown> | null = null;

/** The built server's resident set 1 s after it is ready on a fresh data dir (the build is made first). */
async function builtStartRss(): Promise<number> {
  built ??= buildServer();
  await built;
  const dir = mkdtempSync(join(tmpdir(), "ladder-bench-start-"));
  try {
    return (await startOnce("built", dir, undefined)).rssMiB;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The per-hop trace (issue 39): one-match runs on a second ladder started with ARENA_TRACE=1, so that the
 * figures above are the untraced server's. Its rows are turned into p50 and p99 per hop (test/bench/live-trace.ts).
 */
export async function tracedRun(reps: number, workers: number): Promise<LiveBenchLine[]> {
  const ladder = await startLadder(workers, [], undefined, { ARENA_TRACE: "1" });
  try {
    const tokens = await ladder.register(2 * (reps + 1), "traced");
    for (let r = 0; r <= reps; r++) {
      const cs = tokens
        .slice(2 * r, 2 * r + 2)
        .map((t) => connect(ladder.wsUrl, { authorization: `Bearer ${t}` }, {})) as [Client, Client];
      await singleRun(cs);
      await closeAll(cs);
      await pause(200);
      if (r === 0) await ladder.trace(); // the warm-up match's rows are dropped
    }
    return traceLines(await ladder.trace(), FROM_TICK);
  } finally {
    await ladder.stop();
  }
}

export async function liveBench(
  quick = false,
  memory = true,
  workers = defaultWorkers(),
): Promise<LiveBenchLine[]> {
  const singleReps = quick ? 3 : 7;
  const manyReps = quick ? 1 : 3;
  const windowMs = quick ? 2_000 : 5_000;

  const ladder = await startLadder(workers);
  const freshRss = vmRss(ladder.pid);
  let bare: BareServer | null = null;
  const ladderClients = (tokens: string[]) =>
    tokens.map((t) => connect(ladder.wsUrl, { authorization: `Bearer ${t}` }, {}));
  try {
    const singleTokens = await ladder.register(2 * (singleReps + 1), "single");
    const manyTokens = await ladder.register(2 * MANY, "many");

    // Warm-up match; its observations give the bare loop a real message of the median size, and its length
    // the number of ticks per bare match.
    const warmClients = ladderClients(singleTokens.slice(0, 2)) as [Client, Client];
    const warm = await singleRun(warmClients);
    await closeAll(warmClients);
    const bySize = [...warm.observations].sort((a, b) => Buffer.byteLength(a) - Buffer.byteLength(b));
    const observation = bySize[Math.floor(bySize.length / 2)]!;
    bare = await startBare(observation);
    const bareUrl = `${bare.url}?ticks=${warm.finalTick}`;
    const bareClients = (n: number) => Array.from({ length: n }, () => connect(bareUrl, {}, {}));
    const warmBare = bareClients(2) as [Client, Client];
    await singleRun(warmBare);
    await closeAll(warmBare);

    const ladderOne: Single[] = [];
    const bareOne: Single[] = [];
    await bare.trace(); // the warm-up pair's ticks are not counted
    for (let r = 0; r < singleReps; r++) {
      const lc = ladderClients(singleTokens.slice(2 + 2 * r, 4 + 2 * r)) as [Client, Client];
      ladderOne.push(await singleRun(lc));
      await closeAll(lc);
      await pause(200);
      const bc = bareClients(2) as [Client, Client];
      bareOne.push(await singleRun(bc));
      await closeAll(bc);
      await pause(200);
    }

    const bareTrace = await bare.trace();
    // The floor of the one-match figure, measured here between the one-match runs and the 64-match ones: a
    // round trip to a sleeping worker thread and back with no work on either side (test/bench/wake-bench.ts).
    const wake = await wakeRoundTrips(quick ? 300 : 1_000);

    const ladderMany: Many[] = [];
    const bareMany: Many[] = [];
    const lm = ladderClients(manyTokens);
    const bm = bareClients(2 * MANY);
    for (let r = 0; r < manyReps; r++) {
      ladderMany.push(await continuousRun(lm, ladder.pid, windowMs, () => ladder.threads()));
      await pause(500);
      bareMany.push(await continuousRun(bm, bare.pid, windowMs, async () => NO_KINDS));
      await pause(500);
    }
    await closeAll([...lm, ...bm]);

    const mid = <T>(runs: T[], key: (x: T) => number) =>
      [...runs].sort((a, b) => key(a) - key(b))[Math.floor(runs.length / 2)]!;
    const l64 = mid(ladderMany, (m) => m.rate);
    const b64 = mid(bareMany, (m) => m.rate);
    const l1 = median(ladderOne.map((m) => m.rate));
    const b1 = median(bareOne.map((m) => m.rate));
    const lInt = ladderOne.flatMap((m) => m.intervals);
    const bInt = bareOne.flatMap((m) => m.intervals);
    const us = (ms: number) => ms * 1000;
    const perTick = (ms: number, ticks: number) => (1000 * ms) / ticks;

    // Server CPU per tick by thread kind, and the ladder's total against the bare server's, pairing each ladder
    // window with the bare window that followed it; the median pair by ratio is reported.
    const pairs = ladderMany.map((l, i) => {
      const b = bareMany[i]!;
      const lt = perTick(cpuTotal(l.serverCpu), l.ticks);
      const bt = perTick(cpuTotal(b.serverCpu), b.ticks);
      return { l, b, lt, bt, ratio: lt / bt };
    });
    const cpu = mid(pairs, (p) => p.ratio);
    const split = (c: ThreadCpu, ticks: number) =>
      `main ${Math.round(perTick(c.main, ticks))} / pool ${Math.round(perTick(c.pool, ticks))} / database ` +
      `${Math.round(perTick(c.database, ticks))} / V8 ${Math.round(perTick(c.v8, ticks))} / libuv ` +
      `${Math.round(perTick(c.libuv, ticks))} / other ${Math.round(perTick(c.other, ticks))} µs`;

    const wake50 = pct(wake, 50);
    const lines: LiveBenchLine[] = [
      {
        name: `live: ${MANY} concurrent matches (${l64.running.toFixed(1)} running on average), aggregate`,
        value: l64.rate,
        unit: "ticks/s",
      },
      { name: `bare ws lockstep: ${MANY} concurrent pairs (ceiling)`, value: b64.rate, unit: "ticks/s" },
      {
        name: `live: ${MANY} concurrent matches, share of the ceiling`,
        value: (100 * l64.rate) / b64.rate,
        unit: "%",
        target: 70,
      },
      {
        name: `live: ${MANY} matches, server CPU per tick (all threads)`,
        value: cpu.lt,
        unit: "µs",
        detail: split(cpu.l.serverCpu, cpu.l.ticks),
      },
      {
        name: `bare ws lockstep: ${MANY} pairs, server CPU per tick (all threads)`,
        value: cpu.bt,
        unit: "µs",
        detail: split(cpu.b.serverCpu, cpu.b.ticks),
      },
      {
        name: `${MANY} matches: server CPU per tick, ladder / bare`,
        value: cpu.ratio,
        unit: "x",
        target: 2.5,
        lowerIsBetter: true,
      },
      {
        name: `${MANY} matches: client CPU per tick, in this process (ladder run / bare run)`,
        value: perTick(l64.clientCpuMs, l64.ticks),
        unit: `µs / ${Math.round(perTick(b64.clientCpuMs, b64.ticks))} µs`,
      },
      { name: "live: one match", value: l1, unit: "ticks/s" },
      { name: "bare ws lockstep: one pair (ceiling)", value: b1, unit: "ticks/s" },
      { name: "live: one match, share of the ceiling", value: (100 * l1) / b1, unit: "%" },
      {
        name: "one match: tick round trip p50 (ladder / bare)",
        value: us(pct(lInt, 50)),
        unit: `µs / ${Math.round(us(pct(bInt, 50)))} µs`,
      },
      {
        name: "one match: tick round trip p99 (ladder / bare)",
        value: us(pct(lInt, 99)),
        unit: `µs / ${Math.round(us(pct(bInt, 99)))} µs`,
      },
      {
        name: "wake: round trip to a sleeping worker and back, in this run, p50 / p99",
        value: wake50,
        unit: `µs / ${Math.round(pct(wake, 99))} µs`,
      },
      {
        // Relative to the machine: the least any design that steps the match in a pool worker pays, plus 50 µs.
        name: "one match: added latency per tick, p50 (target: this run's wake p50 + 50 µs)",
        value: us(pct(lInt, 50) - pct(bInt, 50)),
        unit: "µs",
        target: wake50 + 50,
        lowerIsBetter: true,
      },
      {
        name: "one match: added latency per tick, p99",
        value: us(pct(lInt, 99) - pct(bInt, 99)),
        unit: "µs",
        target: 1000,
        lowerIsBetter: true,
      },
      {
        name: `message sizes: observation (median) / turn, ticks per match`,
        value: Buffer.byteLength(observation),
        unit: `B / ${Buffer.byteLength('{"type":"turn","tick":100}')} B, ${warm.finalTick} ticks`,
      },
      {
        // The benchmark's own ladder runs from the sources through tsx, whose loader adds 70-80 MiB.
        name: "server RSS after start on a fresh data dir (embedded PGlite), through tsx",
        value: freshRss / 2 ** 20,
        unit: "MiB",
      },
      {
        // What operators run (`npm start`): the built server, its whole process tree, 1 s after "ladder ready".
        name: "server RSS after start on a fresh data dir (embedded PGlite), built",
        value: await builtStartRss(),
        unit: "MiB",
        target: 300,
        lowerIsBetter: true,
      },
    ];
    await ladder.stop();
    await bare.stop();
    bare = null;
    lines.push(...(await tracedRun(singleReps, workers)), ...bareTraceLines(bareTrace, FROM_TICK));

    if (memory) lines.push(...(await memoryRun(workers, quick ? 1_000 : 5_000)));
    return lines;
  } finally {
    await ladder.stop();
    await bare?.stop();
  }
}

if (
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href &&
  process.argv[2] === "--serve-ladder"
) {
  await serveLadder(process.argv.slice(3));
}
