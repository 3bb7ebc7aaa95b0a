// Plays one match between two seats to its end: the lockstep loop the simulator uses, with the startup
// (ready) handshake, per-tick deadlines and the end message. A seat is anything that answers observations:
// an in-process strategy, a child process over stdin/stdout, a user's JS module.
import type { Strategy } from "../house/types.ts";
import { Match, type MatchOptions, type TurnInput } from "../match.ts";
import type { HelloMessageT, MatchStatsT, ObservationT } from "../protocol.ts";
import type { ReplayFighter } from "../replay.ts";

export interface Seat {
  fighter: ReplayFighter;
  /** Resolves true when the seat is ready to play; false or a throw forfeits it. */
  start(hello: HelloMessageT): Promise<boolean> | boolean;
  /** Answers one observation within `deadlineMs` or reports an idle. */
  turn(obs: ObservationT, deadlineMs: number): Promise<TurnInput> | TurnInput;
  /** Called once at the end, also on a forfeit; must not throw. */
  finish?(end: { winner: number | null; reason: string; stats: MatchStatsT }): Promise<void> | void;
}

export interface PlayedMatch {
  match: Match;
  stats: MatchStatsT;
}

export async function playMatch(
  seats: [Seat, Seat],
  o: Omit<MatchOptions, "fighters">,
): Promise<PlayedMatch> {
  const match = new Match({ ...o, fighters: [seats[0].fighter, seats[1].fighter] });
  const ready = await Promise.all(
    seats.map(async (s, f) => {
      try {
        return (await s.start(match.hello(f))) === true;
      } catch {
        return false;
      }
    }),
  );
  const notReady = ready.flatMap((r, f) => (r ? [] : [f]));
  if (notReady.length > 0) match.forfeit(notReady);
  // How long each seat has been gone, on the simulator's clock: the deadlines of the ticks it idled as
  // disconnected, which is what those ticks take on the server. Past the reconnect grace it is disqualified,
  // as the server does by wall time.
  const lostMs = [0, 0];
  while (!match.over) {
    const deadlines = [match.deadlineMs(0), match.deadlineMs(1)];
    const inputs = await Promise.all(
      seats.map(async (s, f): Promise<TurnInput> => {
        const deadline = deadlines[f]!;
        try {
          return await s.turn(match.observation(f), deadline);
        } catch {
          return { idle: "disconnected", ms: 0 };
        }
      }),
    );
    match.play(inputs as [TurnInput, TurnInput]);
    const expired: number[] = [];
    inputs.forEach((inp, f) => {
      lostMs[f] = "idle" in inp && inp.idle === "disconnected" ? lostMs[f]! + deadlines[f]! : 0;
      if (lostMs[f]! >= match.deadlines.reconnect_grace_ms) expired.push(f);
    });
    match.disqualify(expired);
  }
  const stats = match.stats();
  const r = match.result!;
  await Promise.all(seats.map((s) => s.finish?.({ winner: r.winner, reason: r.reason, stats })));
  return { match, stats };
}

/** An in-process seat for a strategy: synchronous, so a match of two of them runs at engine speed. */
export function strategySeat(
  strategy: Strategy,
  clock: () => number = performance.now.bind(performance),
): Seat {
  let decide: ((obs: ObservationT) => unknown) | undefined;
  return {
    fighter: { name: strategy.name, display_name: strategy.display_name, version: strategy.version },
    start(hello) {
      decide = strategy.create(hello);
      return true;
    },
    turn(obs) {
      const t0 = clock();
      const raw = decide!(obs);
      return { raw, ms: clock() - t0 };
    },
  };
}
