// What a running match reports to, as interfaces that other parts fill: the operator's tick figures
// (server/metrics) and, in cluster mode, the match's input journal (server/cluster/match-journal.ts). The runner
// imports nothing of theirs; without them (a single server with metrics off) it pays nothing.
import type { SeatInput } from "../../pool/link.ts";

/** Where a match reports its tick timings (server/metrics): plain numbers, nothing allocated per tick. */
export interface TickMeter {
  /**
   * One tick, in seconds: `roundTrip` from the previous observations to this tick's (the bots' replies and the
   * server), `server` the server's share (from the turns posted to the pool to the observations back).
   */
  tick(roundTrip: number, server: number): void;
  /** A seat idled at its deadline: it did not answer in time, or had no socket. */
  deadlineMiss(disconnected: boolean): void;
}

/**
 * A match's inputs written down as they are applied (cluster failover, issue 36 part 5), so another node can
 * re-simulate it. The arrays and byte views handed in are the runner's and reused: copy what is kept.
 */
export interface TickJournal {
  /** Play began; `ready` are the seats that sent `ready` in the startup window. */
  started(ready: [boolean, boolean]): void;
  /** A tick's observations as they go out to the seats (null: a house seat, or none). */
  observed(tick: number, obs: readonly (Uint8Array | null)[]): void;
  /**
   * A tick's inputs, before they go to the worker: the runner steps the tick (and so sends the next
   * observations) only once the promise resolves, which it does when the entry is stored or given up on.
   */
  resolved(
    tick: number,
    inputs: readonly (SeatInput | null)[],
    expired: readonly number[] | undefined,
  ): Promise<void>;
  /** The match is over here, whichever way. */
  ended(): void;
}
