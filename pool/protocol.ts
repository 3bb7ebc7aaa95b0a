// The match-runner protocol between the front process and a pool worker. One long-lived Piscina task per
// match owns the engine instance; the two sides talk over the MessagePort passed in the task. The worker
// never touches a socket or the database: it returns observations already serialised and, at the end, the
// gzipped replay bytes (moved, not copied) with the stats.
import type { TurnInput } from "../engine/match.ts";
import type { DeadlinesT, EndReason, MatchStatsT } from "../engine/protocol.ts";
import type { ReplayFighter } from "../engine/replay.ts";

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
}

/** Front process to worker. */
export type ToWorker =
  /** Which seats sent `ready` in the startup window; a house seat is always ready. */
  | { t: "start"; ready: [boolean, boolean] }
  /** Inputs of the remote seats for the current tick (null for house seats, which the worker plays). */
  | { t: "tick"; tick: number; inputs: [TurnInput | null, TurnInput | null] }
  /** A fresh hello and observation for a seat that reconnected. */
  | { t: "resume"; seat: number }
  | { t: "abort"; why: string };

/** Worker to front process. */
export type FromWorker =
  /** `thread` is the worker's threadId, so the front can terminate the worker running a hung match. */
  | { t: "hello"; hello: [string, string]; thread: number }
  /** The observations for the tick to play, serialised, with each seat's deadline. */
  | { t: "tick"; tick: number; obs: [string | null, string | null]; deadlineMs: [number, number] }
  | { t: "resume"; seat: number; hello: string; obs: string | null };

export interface MatchOutcome {
  winner: number | null;
  reason: EndReason;
  finalTick: number;
  stats: MatchStatsT;
  /** gzipped JSON Lines; an ArrayBuffer so it can be moved to the front process. */
  replay: ArrayBuffer;
}

export interface TaskInput {
  setup: MatchSetup;
  port: MessagePort;
}
