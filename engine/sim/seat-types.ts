// The shapes a simulator seat is made of (a bot spec, its runner, its notes) and the small helpers both kinds
// of runner share: its own module so the runners (seats.ts, process-seat.ts) import it, not each other.
import type { ReplayFighter } from "../replay.ts";
import type { Seat } from "./play.ts";

export type BotSpec =
  | { kind: "house"; spec: string; name: string }
  | { kind: "module"; spec: string; path: string }
  | { kind: "cmd"; spec: string; command: string };

/** Something that went wrong with a bot during a match, for the summary's error section. */
export interface SeatNote {
  kind: "exit" | "no_ready" | "start_error" | "throw" | "worker_crash" | "ignored" | "oversize" | "late";
  match_id: string;
  tick: number | null;
  message: string;
  /** How many times it happened in the match, when more than once is possible (throws). */
  count?: number;
}

export interface SimContext {
  cwd: string;
  /** Bot stderr / worker console output, already prefixed; null to drop it (--quiet). */
  log: ((line: string) => void) | null;
  maxMessageBytes: number;
}

/** A seat that also knows which match it plays and records notes. */
export interface SimSeat extends Seat {
  notes: SeatNote[];
}

/** Makes a seat per match for one side of a run. */
export interface BotRunner {
  readonly spec: BotSpec;
  readonly fighter: ReplayFighter;
  /** Loads what has to be loaded once (a module), so a broken bot fails before the first match. */
  init(): Promise<void>;
  seat(matchId: string): SimSeat;
  /** Ends anything still running; called once after the run. */
  close(): Promise<void>;
}

export const now = () => performance.now();

export function errorLine(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export function clip(s: string, n = 120): string {
  return s.length > n ? `${s.slice(0, n)}...` : s;
}
