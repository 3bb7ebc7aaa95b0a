// The per-hop trace of one match's ticks (issue 39): the ladder under test started with ARENA_TRACE=1
// (pool/trace.ts) stamps each step of a tick in the thread that does it; this file turns the rows it hands
// back into one figure per hop, p50 and p99 over the measured ticks, so that every machine shows where a
// tick's time goes. The hops are consecutive (each starts where the one before ends) except the first, which
// starts at the later of the two turn reads: what the lockstep waits for. A hand-over between threads is two
// hops, the sender's postMessage call and the receiver's wake-up after it returns: the receiver can run
// before the sender's call returns (the sender descheduled on its way out), so the second hop of the pair
// can be short or negative, and only their sum is the hand-over.
import type { LiveBenchLine } from "./live-bench.ts";

// The row layout of pool/trace.ts's traceRows(): match key, tick, then one time (ms) per Hop in Hop's order.
const READ0 = 2;
const READ1 = 3;
const QUEUED = 4;
const POSTED = 5;
const WORKER_RECEIVED = 6;
const STEPPED = 7;
const WRITTEN = 8;
const WORKER_POSTED = 9;
const RECEIVED = 10;
const SENT0 = 11;
const SENT1 = 12;
const ROUTED = 13;
const SENDING0 = 14;

/** Each hop: its name and how it is computed from one row (µs). */
const HOPS: [string, (r: number[]) => number][] = [
  [
    "second turn read -> turns in the link's batch (socket thread: runner)",
    (r) => r[QUEUED]! - Math.max(r[READ0]!, r[READ1]!),
  ],
  ["-> batch posted (socket thread: postMessage to the worker)", (r) => r[POSTED]! - r[QUEUED]!],
  ["-> worker's batch handler runs (the wake-up)", (r) => r[WORKER_RECEIVED]! - r[POSTED]!],
  [
    "-> tick played (worker: turns parsed and checked, engine step, replay line)",
    (r) => r[STEPPED]! - r[WORKER_RECEIVED]!,
  ],
  ["-> observations written (worker)", (r) => r[WRITTEN]! - r[STEPPED]!],
  ["-> batch posted back (worker: postMessage to the socket thread)", (r) => r[WORKER_POSTED]! - r[WRITTEN]!],
  ["-> socket thread's batch handler runs (the wake-up)", (r) => r[RECEIVED]! - r[WORKER_POSTED]!],
  ["-> first observation written to its socket", (r) => Math.min(r[SENT0]!, r[SENT1]!) - r[RECEIVED]!],
  ["   of which: batch handler -> the runner has the observations", (r) => r[ROUTED]! - r[RECEIVED]!],
  ["   of which: -> the runner's bookkeeping done", (r) => r[SENDING0]! - r[ROUTED]!],
  ["   of which: -> ws.send of seat 0 returned", (r) => r[SENT0]! - r[SENDING0]!],
  ["-> second observation written to its socket", (r) => Math.abs(r[SENT1]! - r[SENT0]!)],
  [
    "whole server path: second turn read -> last observation written",
    (r) => Math.max(r[SENT0]!, r[SENT1]!) - Math.max(r[READ0]!, r[READ1]!),
  ],
];

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

/** The trace lines of one run from its rows, counting ticks from `fromTick` on (warm). */
export function traceLines(rows: number[][], fromTick: number): LiveBenchLine[] {
  const full = rows.filter((r) => r[1]! >= fromTick && r.slice(2).every((v) => !Number.isNaN(v)));
  if (full.length === 0) return [{ name: "trace: no complete tick rows", value: 0, unit: "" }];
  return HOPS.map(([name, hop], i) => {
    const us = full.map((r) => 1000 * hop(r));
    return {
      name: `trace ${String(i + 1).padStart(2, "0")}: ${name}, p50`,
      value: quantile(us, 0.5),
      unit: `µs (p99 ${Math.round(quantile(us, 0.99))} µs, ${full.length} ticks)`,
    };
  });
}

/** The bare server's two hops, from its flat [tick, read -> first send, first -> second send] list. */
export function bareTraceLines(flat: number[], fromTick: number): LiveBenchLine[] {
  const first: number[] = [];
  const second: number[] = [];
  for (let i = 0; i + 2 < flat.length; i += 3) {
    if (flat[i]! < fromTick) continue;
    first.push(flat[i + 1]!);
    second.push(flat[i + 2]!);
  }
  if (first.length === 0) return [];
  const line = (name: string, us: number[]): LiveBenchLine => ({
    name: `trace, bare ws server: ${name}, p50`,
    value: quantile(us, 0.5),
    unit: `µs (p99 ${Math.round(quantile(us, 0.99))} µs, ${us.length} ticks)`,
  });
  return [
    line("second turn read -> first observation written to its socket", first),
    line("-> second observation written to its socket", second),
  ];
}
