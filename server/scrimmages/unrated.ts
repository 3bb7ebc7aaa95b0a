// Starting an unrated match between two chosen bots outside the matchmaker, the way human play does: the
// piece a scrimmage, a batch-test game and a tournament game share. It knows who is ready (online and queued, or
// a house bot), whether the server has room, and starts the match in a mode that no rating, forecast,
// leaderboard or quota reads; and it finds the caller's started games whose match left without a result
// (`lost`). Which bots to hold back from the ranked queue is the caller's: it claims them with `lobby.hold`
// (server/lobby/lobby.ts).
import { randomInt } from "node:crypto";
import { MAP_NAMES } from "../../engine/rules.ts";
import type { Settings } from "../kernel/settings.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import type { LiveMatches } from "../play/live-matches.ts";
import type { RunningMatch } from "../runner/match-runner.ts";
import type { MatchMode } from "../store/types.ts";

export interface UnratedDeps {
  lobby: Lobby;
  live: LiveMatches;
  settings: Settings;
  /** The server is draining (SPEC 3.10): no new match starts, as the matchmakers are paused. */
  draining(): boolean;
}

export class UnratedMatches {
  constructor(private readonly d: UnratedDeps) {}

  /** A bot's place in the lobby when it is connected (a hosted house bot always is), else null. */
  online(botId: string): Participant | null {
    const p = this.d.lobby.get(botId);
    return p && (p.house || p.conn) ? p : null;
  }

  /**
   * A bot that may start a match now: a house bot (it plays many at once), or a connected bot that has
   * queued (SPEC 3.2: a bot plays when it asks to) and plays no other match.
   */
  ready(botId: string): Participant | null {
    const p = this.online(botId);
    if (!p) return null;
    if (p.house) return p;
    return p.state === "waiting" && p.conn && !this.d.live.ofBot(botId) ? p : null;
  }

  /** Whether a match may start now: the server is not draining and its capacity (the live limit) has room. */
  room(): boolean {
    if (this.d.draining()) return false;
    return this.d.live.size < this.d.settings.limits().maxConcurrentMatches;
  }

  /**
   * Starts a match between two ready bots: seats by a coin toss (no seat balance to keep in unrated play),
   * on `map` or a random one, on the ladder the player bot queued on (its deadlines apply).
   */
  start(
    a: Participant,
    b: Participant,
    mode: Exclude<MatchMode, "ranked">,
    map?: string | null,
  ): RunningMatch {
    const seed = randomInt(2 ** 31);
    const seats: [Participant, Participant] = seed % 2 === 0 ? [a, b] : [b, a];
    const chosen = map ?? MAP_NAMES[randomInt(MAP_NAMES.length)]!;
    const ladderId = a.house ? b.ladderId : a.ladderId;
    return this.d.live.start({ seats, map: chosen, seed }, ladderId, mode);
  }

  /**
   * The caller's started games (by match id) whose match has been gone from the running set without a result
   * for `after` ms: each is taken out of `playing` and yielded, for the caller to close (a restart or a lost
   * worker can lose a result; MatchFinished then never comes).
   */
  *lost<P extends { goneSince: number | null }>(
    playing: Map<string, P>,
    now: number,
    after: number,
  ): Generator<P> {
    for (const [matchId, p] of playing) {
      if (this.d.live.byId.has(matchId)) continue;
      p.goneSince ??= now;
      if (now - p.goneSince < after) continue;
      playing.delete(matchId);
      yield p;
    }
  }
}
