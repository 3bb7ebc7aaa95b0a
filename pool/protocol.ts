// The match-runner protocol between the front process and a pool worker. One long-lived Piscina task per
// match owns the engine instance; its lifetime (start, a crash, the outcome) is the task's. Messages travel
// two ways:
// - the match's own MessagePort, passed in the task: the worker's `hello` (which also hands over the worker's
//   link, below, the first time) and an `abort` for a match whose task has not started yet;
// - after `hello`, everything else goes over the worker thread's link, one MessagePort per worker shared by
//   all its matches, in batches: each direction posts one batch per event-loop turn instead of one message
//   per match per tick, which is what bounds the front process when many matches tick at once. A batch is one
//   byte buffer, moved rather than copied, holding every tick's turns (front to worker, the bytes the socket
//   received) or observations (worker to front, written in place), with the rare control messages beside it
//   as objects (pool/link.ts). A link keeps order, so a match's messages stay in order.
// The worker never touches a socket or the database: it returns observations already serialised to UTF-8
// bytes (the front only writes them) and, at the end, the gzipped replay bytes (moved, not copied) with the
// stats.
import type { MessagePort } from "node:worker_threads";
import type { DeadlinesT, EndReason, MatchStatsT } from "../engine/protocol.ts";
import type { ReplayFighter } from "../engine/replay.ts";
import type { SeatInput } from "./link.ts";

/** A seat is played by a remote bot (through the front process) or by a house bot inside the worker. */
export type SeatKind = { kind: "remote" } | { kind: "house"; name: string };

export interface MatchSetup {
  matchId: string;
  seed: number;
  map: string;
  mode: string;
  ladderId: string;
  deadlines: DeadlinesT;
  fighters: [ReplayFighter, ReplayFighter];
  seats: [SeatKind, SeatKind];
  /**
   * A match taken over from a node that died (cluster failover, server/cluster/failover.ts): the worker
   * re-simulates the journaled start and ticks before its hello, checking the last tick's observations against
   * the journal's hash of the ones that were sent. Absent on every match started the ordinary way.
   */
  resume?: MatchResume;
}

/** One journaled tick: the remote seats' inputs as the link carries them, and the seats expired with it. */
export interface ResumeTick {
  tick: number;
  inputs: [SeatInput | null, SeatInput | null];
  /** Bit 0, bit 1: seats whose reconnect grace ran out during the tick. */
  expired: number;
  /** obsHash (pool/obs-hash.ts) of the observations each remote seat was sent for this tick (0: none). */
  hash: [number, number];
}

export interface MatchResume {
  /** The seats that sent `ready` in the startup window. */
  ready: [boolean, boolean];
  ticks: ResumeTick[];
}

/** Front process to worker. */
export type ToWorker =
  /** Which seats sent `ready` in the startup window; a house seat is always ready. */
  | { t: "start"; ready: [boolean, boolean] }
  /** Inputs of the remote seats for the current tick (null for house seats, which the worker plays). */
  | {
      t: "tick";
      tick: number;
      inputs: [SeatInput | null, SeatInput | null];
      /** Seats whose reconnect grace ran out during this tick: disqualified once it is played. */
      expired?: number[];
    }
  /** A fresh hello and observation for a seat that reconnected. */
  | { t: "resume"; seat: number }
  /** The replay lines from index `since` on, for a spectator following the match live. */
  | { t: "peek"; id: number; since: number }
  | { t: "abort"; why: string };

/** Worker to front process. */
export type FromWorker =
  /**
   * `thread` is the worker's threadId, so the front can terminate the worker running a hung match; `tid` its
   * operating-system thread id (null where /proc is missing), so its CPU time can be read per thread.
   */
  | {
      t: "hello";
      hello: [string, string];
      thread: number;
      tid: number | null;
      /** A resumed match (setup.resume) whose re-simulation did not reproduce the journal: why. */
      resumeFailed?: string;
    }
  /** The observations for the tick to play, serialised (UTF-8 JSON text), with each seat's deadline. */
  | { t: "tick"; tick: number; obs: [Uint8Array | null, Uint8Array | null]; deadlineMs: [number, number] }
  | { t: "resume"; seat: number; hello: string; obs: string | null }
  | { t: "peek"; id: number; lines: string[] };

export interface MatchOutcome {
  winner: number | null;
  reason: EndReason;
  finalTick: number;
  stats: MatchStatsT;
  /** gzipped JSON Lines; an ArrayBuffer so it can be moved to the front process. */
  replay: ArrayBuffer;
}

/** `hello` as it crosses the match's port: the worker's link rides along with its first match's hello. */
export type WorkerHello = Extract<FromWorker, { t: "hello" }> & {
  link?: MessagePort;
  ring?: SharedArrayBuffer;
};

export interface TaskInput {
  setup: MatchSetup;
  /** The front's number for this match, used to route the messages of a link batch. */
  key: number;
  port: MessagePort;
}
