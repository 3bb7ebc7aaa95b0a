// What one cross-thread message costs the thread that sends it (issue 13, the remaining floor): a 4 KiB
// ArrayBuffer moved over a MessagePort to a worker thread that only receives, sent either with a 1 ms pause
// between messages (the worker is asleep in its event loop each time, so every message must wake it: a write
// to its event loop's eventfd, and the kernel waking the thread on the other core) or back to back (the worker
// is mostly awake already and the wake-up is skipped). Each postMessage call is timed on its own (wall time
// of the call, which is the sender's CPU unless the sender is preempted); medians and 90th percentiles. Also the
// round trip of a small buffer to a worker that sends it straight back, both threads asleep when it starts.
//
//   npm run bench -- --wake
import { MessageChannel, Worker } from "node:worker_threads";

const RECEIVER = `
const { parentPort } = require("node:worker_threads");
parentPort.once("message", ({ port }) => port.on("message", () => {}));
`;
/** Sends every message straight back: the round trip of one tick's hop pair with no work in between. */
const ECHO = `
const { parentPort } = require("node:worker_threads");
parentPort.once("message", ({ port }) => port.on("message", (m) => port.postMessage(m, [m[0]])));
`;

export interface WakeLine {
  name: string;
  value: number;
  unit: string;
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const turn = () => new Promise((r) => setImmediate(r));
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;

/**
 * Round trips of a small buffer to a worker that sends it straight back, `n` of them 1 ms apart (both threads
 * asleep when each starts), in µs: the floor of one match's added latency, measured beside it in a live run.
 */
export async function wakeRoundTrips(n: number): Promise<number[]> {
  const echo = new Worker(ECHO, { eval: true });
  const back = new MessageChannel();
  echo.postMessage({ port: back.port2 }, [back.port2]);
  await pause(300);
  const times: number[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const buf = new ArrayBuffer(64);
      const t0 = performance.now();
      const answered = new Promise<void>((resolve) => back.port1.once("message", () => resolve()));
      back.port1.postMessage([buf], [buf]);
      await answered;
      times.push(1000 * (performance.now() - t0));
      await pause(1);
    }
  } finally {
    await echo.terminate();
    back.port1.close();
  }
  return times;
}

export async function wakeBench(reps = 3): Promise<WakeLine[]> {
  const worker = new Worker(RECEIVER, { eval: true });
  const { port1, port2 } = new MessageChannel();
  worker.postMessage({ port: port2 }, [port2]);
  await pause(300);
  /** Per-call times in µs of n messages, with a gap of gapMs between them (0: back to back). */
  const run = async (n: number, gapMs: number) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const buf = new ArrayBuffer(4096);
      const t0 = performance.now();
      port1.postMessage([buf], [buf]);
      times.push(1000 * (performance.now() - t0));
      if (gapMs > 0) await pause(gapMs);
      else if (i % 64 === 63) await turn();
    }
    return times;
  };
  const rows = { asleep: [] as number[][], awake: [] as number[][] };
  for (let r = 0; r < reps; r++) {
    rows.asleep.push(await run(2_000, 1));
    rows.awake.push(await run(20_000, 0));
  }
  await worker.terminate();
  // The round trip front -> worker -> front with both threads asleep when it starts (1 ms apart, as one match
  // ticks): the floor of the one-match added latency, whatever the work in the worker.
  const roundTrips: number[][] = [];
  for (let r = 0; r < reps; r++) roundTrips.push(await wakeRoundTrips(1_000));
  const line = (what: string, runs: number[][], q: number): WakeLine => {
    const per = runs.map((t) => quantile(t, q));
    const range = `[${Math.min(...per).toFixed(1)}-${Math.max(...per).toFixed(1)}]`;
    return {
      name: `postMessage, receiver ${what}, p${q * 100} ${range}`,
      value: quantile(per, 0.5),
      unit: "µs",
    };
  };
  const trip = (q: number): WakeLine => {
    const per = roundTrips.map((t) => quantile(t, q));
    return {
      name: `round trip to a sleeping worker and back, p${q * 100} [${Math.min(...per).toFixed(1)}-${Math.max(...per).toFixed(1)}]`,
      value: quantile(per, 0.5),
      unit: "µs",
    };
  };
  return [
    trip(0.5),
    trip(0.99),
    line("asleep", rows.asleep, 0.5),
    line("asleep", rows.asleep, 0.9),
    line("awake", rows.awake, 0.5),
    line("awake", rows.awake, 0.9),
  ];
}
