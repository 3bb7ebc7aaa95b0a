// The worker link in isolation (issue 13 part 1): the same tick traffic between the front thread and one
// worker thread, carried three ways, measured in the same run:
// - objects: the batch of [key, message] objects the link used before (structured clone per object; each
//   observation copied out of the worker's scratch buffer, then cloned again);
// - msgpackr: that batch packed with msgpackr (turns and observations as binary fields), one byte buffer
//   each way, moved;
// - bytes: the hand-laid frame of pool/link.ts (turns as the socket read them, observations written in place).
// A round is one batch of N matches' turns to the worker and their observations back. The worker parses each
// turn and writes a real observation's bytes (the observation writer's own cost is the same in all three, so
// it is a plain copy here). Reported per match tick: the front thread's CPU, the worker's CPU (schedstat of
// each thread), and, with one match per batch, the round trip's p50 and p99.
import { readFileSync, readlinkSync } from "node:fs";
import { isMainThread, parentPort, type Worker, workerData } from "node:worker_threads";
import { Packr } from "msgpackr";
import { LinkWriter, parseMessage, readBatch } from "../../pool/link.ts";
import { tsWorker } from "../helpers/ts-worker.ts";
import type { BenchLine } from "./engine-bench.ts";

type Mode = "objects" | "msgpackr" | "bytes";
const MODES: Mode[] = ["objects", "msgpackr", "bytes"];
const enc = new TextEncoder();
const TURN = enc.encode('{"type":"turn","tick":100,"move":"N","aim":{"x":3,"y":4},"fire":true}');

const tid = (): number => Number(readlinkSync("/proc/thread-self").split("/").at(-1));
const cpuMs = (t: number): number =>
  Number(readFileSync(`/proc/${process.pid}/task/${t}/schedstat`, "utf8").split(" ")[0]) / 1e6;

// ---------------------------------------------------------------- the worker side

interface WorkerSetup {
  mode: Mode;
  observation: Uint8Array;
}

function worker(): void {
  const { mode, observation } = workerData as WorkerSetup;
  const port = parentPort!;
  const packr = new Packr({ useRecords: false });
  let scratch = new Uint8Array(16 * 1024);
  const write = (_f: number, out: Uint8Array, at: number) => {
    if (at + observation.length > out.length) return -1;
    out.set(observation, at);
    return at + observation.length;
  };
  const out = new LinkWriter(16 * 1024);
  let sink = 0;
  port.on("message", (m: unknown) => {
    if (m === "tid") return void port.postMessage({ tid: tid(), sink });
    if (mode === "bytes") {
      readBatch(m as unknown[], {
        control: () => {},
        turns: (key, tick, inputs) => {
          sink += inputs[0] && "raw" in inputs[0] ? 1 : 0;
          out.observe(key, tick + 1, 250, 250, write, true, true);
        },
      });
      const batch = out.take();
      port.postMessage(batch, [batch[0]]);
      return;
    }
    const batch =
      mode === "objects" ? (m as unknown[]) : (packr.unpack(new Uint8Array(m as ArrayBuffer)) as unknown[]);
    const reply: unknown[] = [];
    for (let i = 0; i < batch.length; i += 2) {
      const t = batch[i + 1] as { tick: number; inputs: { raw?: unknown; bytes?: Uint8Array; ms: number }[] };
      const inputs = t.inputs.map((x) => (x.bytes ? { raw: parseMessage(x.bytes), ms: x.ms } : x));
      sink += inputs.length;
      const obs = [0, 1].map(() => {
        const end = write(0, scratch, 0);
        if (end < 0) scratch = new Uint8Array(scratch.length * 2);
        return mode === "objects" ? scratch.slice(0, end) : scratch.subarray(0, end);
      });
      reply.push(batch[i], { t: "tick", tick: t.tick + 1, obs, deadlineMs: [250, 250] });
    }
    if (mode === "objects") port.postMessage(reply);
    else {
      const packed = packr.pack(reply);
      const copy = new Uint8Array(packed); // exact length, owned: moved, not cloned
      port.postMessage(copy.buffer, [copy.buffer]);
    }
  });
}

// ---------------------------------------------------------------- the front side

interface Figures {
  mainUs: number;
  workerUs: number;
  p50Us: number;
  p99Us: number;
}

async function measure(
  mode: Mode,
  observation: Uint8Array,
  matches: number,
  rounds: number,
): Promise<Figures> {
  const w: Worker = tsWorker(new URL(import.meta.url), { mode, observation } satisfies WorkerSetup);
  const next = () => new Promise<unknown>((resolve) => w.once("message", resolve));
  w.postMessage("tid");
  const workerTid = ((await next()) as { tid: number }).tid;
  const mainTid = tid();
  const packr = new Packr({ useRecords: false });
  const out = new LinkWriter();
  const parsed = JSON.parse(new TextDecoder().decode(TURN)) as unknown;
  let sink = 0;
  const round = async (tick: number, n: number) => {
    if (mode === "bytes") {
      for (let k = 0; k < n; k++)
        out.turns(
          k,
          tick,
          [
            { raw: parsed, ms: 1, bytes: TURN },
            { raw: parsed, ms: 1, bytes: TURN },
          ],
          0,
        );
      const batch = out.take();
      w.postMessage(batch, [batch[0]]);
      readBatch((await next()) as unknown[], {
        control: () => {},
        observe: (_k, _t, obs) => {
          sink += obs[0]!.length + obs[1]!.length;
        },
      });
      return;
    }
    const batch: unknown[] = [];
    for (let k = 0; k < n; k++) {
      const input = mode === "objects" ? { raw: parsed, ms: 1 } : { bytes: TURN, ms: 1 };
      batch.push(k, { t: "tick", tick, inputs: [input, input] });
    }
    if (mode === "objects") w.postMessage(batch);
    else {
      const copy = new Uint8Array(packr.pack(batch));
      w.postMessage(copy.buffer, [copy.buffer]);
    }
    const reply = await next();
    const got =
      mode === "objects"
        ? (reply as unknown[])
        : (packr.unpack(new Uint8Array(reply as ArrayBuffer)) as unknown[]);
    for (let i = 1; i < got.length; i += 2) {
      const obs = (got[i] as { obs: Uint8Array[] }).obs;
      sink += obs[0]!.length + obs[1]!.length;
    }
  };
  for (let r = 0; r < 200; r++) await round(r, matches); // warm-up: both sides optimised
  const m0 = cpuMs(mainTid);
  const w0 = cpuMs(workerTid);
  for (let r = 0; r < rounds; r++) await round(r, matches);
  const mainUs = ((cpuMs(mainTid) - m0) * 1000) / (rounds * matches);
  const workerUs = ((cpuMs(workerTid) - w0) * 1000) / (rounds * matches);
  // One match per batch: the round trip a lone match's tick pays for the two thread hops.
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    await round(r, 1);
    times.push((performance.now() - t0) * 1000);
  }
  times.sort((a, b) => a - b);
  await w.terminate();
  if (sink < 0) console.log(sink); // keeps the reads
  return {
    mainUs,
    workerUs,
    p50Us: times[Math.floor(times.length / 2)]!,
    p99Us: times[Math.floor(times.length * 0.99)]!,
  };
}

/** A real observation's bytes (median size in the live bench is about 1.2 KB). */
function sampleObservation(): Uint8Array {
  const text = JSON.stringify({
    type: "observation",
    tick: 100,
    match_id: "m_0123456789abcdef",
    you: { id: 0, x: 10, y: 10, hp: 87, energy: 40, facing: "N", cooldowns: { fire: 0, dash: 3, shield: 0 } },
    enemy: { id: 1, x: 14, y: 6, hp: 65, energy: 22, facing: "S", visible: true },
    projectiles: Array.from({ length: 6 }, (_, i) => ({
      id: i,
      x: i * 2,
      y: 20 - i,
      dx: 1,
      dy: -1,
      owner: i % 2,
    })),
    zone: { radius: 8, center: { x: 10, y: 10 }, shrinks_at: 120 },
    events: Array.from({ length: 8 }, (_, i) => ({
      type: "hit",
      tick: 99,
      by: i % 2,
      damage: 5,
      at: { x: i, y: i },
    })),
    deadline_ms: 250,
    budget_ms: 18_000,
    last_seen: { x: 14, y: 6, tick: 99 },
  });
  return enc.encode(text);
}

export async function linkBench(quick = false): Promise<BenchLine[]> {
  const observation = sampleObservation();
  const rounds = quick ? 300 : 1_500;
  const reps = quick ? 1 : 3;
  const runs = new Map<Mode, Figures[]>(MODES.map((m) => [m, []]));
  // Interleaved repetitions, so the machine's noise falls on every mode alike.
  for (let r = 0; r < reps; r++)
    for (const mode of MODES) runs.get(mode)!.push(await measure(mode, observation, 64, rounds));
  const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const range = (xs: number[]) => `[${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}]`;
  return MODES.flatMap((mode) => {
    const f = runs.get(mode)!;
    const col = (k: keyof Figures) => f.map((x) => x[k]);
    return [
      {
        name: `link (${mode}): front CPU per match tick, 64 per batch`,
        value: mid(col("mainUs")),
        unit: `µs ${range(col("mainUs"))}; worker ${mid(col("workerUs")).toFixed(1)} µs ${range(col("workerUs"))}`,
      },
      {
        name: `link (${mode}): one match round trip p50 / p99`,
        value: mid(col("p50Us")),
        unit: `µs ${range(col("p50Us"))} / ${mid(col("p99Us")).toFixed(0)} µs ${range(col("p99Us"))}`,
      },
    ];
  });
}

if (!isMainThread && (workerData as WorkerSetup | null)?.mode) worker();
