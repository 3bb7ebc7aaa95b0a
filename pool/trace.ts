// A per-hop trace of the live path, for the benchmark only (docs/performance-live-path.md, issue 39): each
// thread notes when a tick passes each step, from the socket reads of its turns to the socket writes of the
// next observations. Off unless the process starts with ARENA_TRACE=1 (read once, here): every call site is
// `if (tracing) ...` on this constant, so a server without it does nothing more per tick than one branch.
//
// Times are performance.timeOrigin + performance.now() in every thread: each thread's own monotonic clock put
// on the same epoch, so stamps from the socket thread and a pool worker compare. The pool workers keep theirs
// and send them to the front when a match ends (a BroadcastChannel, off the tick path); the front merges them
// with its own, and `traceRows()` hands the lot to whoever asks (the benchmark's ladder process). Rows are
// kept until read, one per tick of every match: never for a production server.
import { BroadcastChannel } from "node:worker_threads";

export const tracing: boolean = process.env.ARENA_TRACE === "1";

/** The steps of one tick, in path order; a row holds one time per step (NaN: not seen). */
export const Hop = {
  /** Socket thread: seat 0's turn read (the runner has it). */
  read0: 0,
  read1: 1,
  /** Socket thread: the turns written into the link's batch. */
  queued: 2,
  /** Socket thread: the batch's postMessage returned. */
  posted: 3,
  /** Worker: its link's batch handler entered. */
  workerReceived: 4,
  /** Worker: the tick played (turns parsed and validated, engine step, replay line). */
  stepped: 5,
  /** Worker: both observations written into the outgoing batch. */
  written: 6,
  /** Worker: the outgoing batch's postMessage returned. */
  workerPosted: 7,
  /** Socket thread: its link's batch handler entered. */
  received: 8,
  /** Socket thread: seat 0's observation handed to its socket (ws.send returned). */
  sent0: 9,
  sent1: 10,
  /** Socket thread: the runner has the tick's observations (the link's record read, the match's route found). */
  routed: 11,
  /** Socket thread: seat 0's observation about to go to its socket (the runner's bookkeeping done). */
  sending0: 12,
} as const;
export const HOPS = 13;

const CHANNEL = "arena-ladder-live-trace";
/** Rows by match key and tick (key * 2^20 + tick: exact in a double for any key below 2^32). */
const rows = new Map<number, Float64Array>();

export function traceNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Notes step `hop` of match `key`'s tick `tick` at `at` (now by default); the first stamp of a step stays. */
export function stamp(key: number, tick: number, hop: number, at = traceNow()): void {
  const id = key * 2 ** 20 + tick;
  let row = rows.get(id);
  if (!row) {
    row = new Float64Array(HOPS).fill(Number.NaN);
    rows.set(id, row);
  }
  if (Number.isNaN(row[hop]!)) row[hop] = at;
}

function merge(id: number, other: Float64Array): void {
  let row = rows.get(id);
  if (!row) {
    row = new Float64Array(HOPS).fill(Number.NaN);
    rows.set(id, row);
  }
  for (let h = 0; h < HOPS; h++) if (!Number.isNaN(other[h]!)) row[h] = other[h]!;
}

let frontChannel: BroadcastChannel | null = null;

/**
 * The front (the thread that owns the pool) listens for its workers' rows: called when a pool is made, before
 * any worker can send (a BroadcastChannel message reaches only the channels open when it is sent).
 * Unreferenced, so it never keeps the process alive.
 */
export function collectTrace(): void {
  if (frontChannel) return;
  frontChannel = new BroadcastChannel(CHANNEL);
  frontChannel.onmessage = (e) => {
    const shipped = (e as { data: [number, Float64Array][] }).data;
    for (const [id, row] of shipped) merge(id, row);
  };
  frontChannel.unref();
}
let workerChannel: BroadcastChannel | null = null;

/** Worker: sends the main thread this thread's rows of match `key` (at its end) and forgets them. */
export function shipTrace(key: number): void {
  const lo = key * 2 ** 20;
  const out: [number, Float64Array][] = [];
  for (const [id, row] of rows)
    if (id >= lo && id < lo + 2 ** 20) {
      out.push([id, row]);
      rows.delete(id);
    }
  if (!workerChannel) {
    workerChannel = new BroadcastChannel(CHANNEL);
    workerChannel.unref();
  }
  workerChannel.postMessage(out);
}

/** Main thread: every row seen so far, as [match key, tick, ...one time per Hop], and forgets them. */
export function traceRows(): number[][] {
  const out: number[][] = [];
  for (const [id, row] of rows) out.push([Math.floor(id / 2 ** 20), id % 2 ** 20, ...row]);
  rows.clear();
  return out;
}
