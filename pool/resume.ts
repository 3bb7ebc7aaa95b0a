// Re-simulation of a match taken over from a dead node (cluster failover, issue 36 part 5): the engine is
// deterministic from the seed and the inputs, so replaying the journaled start and ticks brings a fresh Match to
// the state the bots last saw. Before the last journaled tick is played, the observations the re-simulation
// would send are hashed and compared with the journal's hash of those that were sent: a difference (another
// engine, a lost entry) fails the resume, and the match is then abandoned as SPEC 3.3's crash rule says.
import type { Match, TurnInput } from "../engine/match.ts";
import { parseMessage, type SeatInput } from "./link.ts";
import { obsHash } from "./obs-hash.ts";
import type { MatchResume } from "./protocol.ts";

/** A journaled seat input as the engine takes it (the bytes parsed as the link's reader parses them). */
function toTurn(inp: SeatInput | null): TurnInput | null {
  if (inp === null) return null;
  if ("idle" in inp) return { idle: inp.idle, ms: inp.ms };
  if (inp.bytes) return { raw: parseMessage(inp.bytes), ms: inp.ms };
  return { raw: inp.raw ?? null, ms: inp.ms };
}

/**
 * Replays `r` into `match` through `play` (the worker's own tick, without sending anything); `remote` marks the
 * seats played from outside the worker. Returns why the journal could not be followed, or null.
 */
export function resimulate(
  match: Match,
  r: MatchResume,
  remote: readonly [boolean, boolean],
  play: (tick: number, inputs: readonly (TurnInput | null)[], expired: number) => void,
): string | null {
  const missing = r.ready.flatMap((ok, f) => (ok || !remote[f] ? [] : [f]));
  if (missing.length > 0) match.forfeit(missing);
  let scratch = new Uint8Array(16 * 1024);
  for (let i = 0; i < r.ticks.length; i++) {
    const t = r.ticks[i]!;
    if (match.over)
      return `the re-simulation ended at tick ${match.tick}, before the journal's tick ${t.tick}`;
    if (t.tick !== match.tick)
      return `the journal has tick ${t.tick} where the re-simulation is at ${match.tick}`;
    if (i === r.ticks.length - 1) {
      for (let f = 0; f < 2; f++) {
        if (!remote[f]) continue;
        let end = match.writeObservation(f, scratch, 0);
        while (end < 0) {
          scratch = new Uint8Array(scratch.length * 2);
          end = match.writeObservation(f, scratch, 0);
        }
        if (obsHash(scratch.subarray(0, end)) !== t.hash[f])
          return `seat ${f}'s observation of tick ${t.tick} differs from the one the journal saw sent`;
      }
    }
    play(t.tick, t.inputs.map(toTurn), t.expired);
  }
  return null;
}
