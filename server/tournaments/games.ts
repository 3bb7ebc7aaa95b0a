// A running tournament's games (issue 34, part 3): each pairing's next game starts when both bots have queued on
// the tournament's ladder and there is room (an unrated match of mode `tournament` through the scrimmages'
// starter, or for a rated tournament an ordinary rated game of the ladder); a bot absent `forfeit_after_s` after
// its game could start forfeits it (one still playing a match is waited for); results come from MatchFinished, and
// a match that left the running set without one is scored a draw after LOST_RESULT_MS. When a round's games are
// all done the next is paired (rounds.ts).
import { randomInt } from "node:crypto";
import { MAP_NAMES } from "../../engine/rules.ts";
import type { DomainEvents } from "../kernel/bus.ts";
import type { Participant } from "../lobby/lobby.ts";
import { smoothedForecast } from "../matchmaker/pairing.ts";
import { versionKey } from "../ratings/book.ts";
import type { RunningMatch } from "../runner/match-runner.ts";
import type { PairingRecord } from "../store/pairing-record.ts";
import type { Active, TournamentCatalog, TournamentDeps } from "./catalog.ts";
import type { TournamentRounds } from "./rounds.ts";
import type { GameRow } from "./store.ts";

/** A started game whose match left the running set without a result is scored a draw after this long. */
const LOST_RESULT_MS = 60_000;

export class TournamentGames {
  constructor(
    private readonly c: TournamentCatalog,
    private readonly d: TournamentDeps,
    private readonly rounds: TournamentRounds,
  ) {}

  /** A bot that may start its tournament game now: connected, queued on the tournament's ladder, free. */
  private ready(t: Active, botId: string): Participant | null {
    const p = this.d.unrated.ready(botId);
    return p && !p.house && p.ladderId === t.row.ladder_id ? p : null;
  }

  /** Playing a match now (a ranked one begun before check-in, or the previous game of its pairing). */
  private busy(botId: string): boolean {
    return this.d.unrated.online(botId) !== null && this.d.live.ofBot(botId) !== undefined;
  }

  private room(t: Active): boolean {
    return (
      this.d.unrated.room() &&
      this.d.live.running(t.row.ladder_id) < this.d.settings.limits(t.row.ladder_id).maxConcurrentMatches
    );
  }

  /** The current round: each pairing's next game started or forfeited; the next round once all are done. */
  progress(t: Active, now: number): void {
    const current = t.games.filter((g) => g.round === t.row.round);
    const pairings = new Set(current.map((g) => g.pairing));
    for (const pairing of pairings) {
      const g = current.find((x) => x.pairing === pairing && x.state !== "done");
      if (g?.state !== "waiting" || g.b_id === null) continue;
      const since = t.since.get(g) ?? now;
      t.since.set(g, since);
      const a = this.ready(t, g.a_id);
      const b = this.ready(t, g.b_id);
      if (a && b) {
        if (this.room(t)) this.startGame(t, g, a, b, now);
        continue;
      }
      if (now - since < t.row.forfeit_after_s * 1000) continue;
      const aAbsent = !a && !this.busy(g.a_id);
      const bAbsent = !b && !this.busy(g.b_id);
      if (!aAbsent && !bAbsent) continue;
      const forfeit = aAbsent && bAbsent ? "both" : aAbsent ? "a" : "b";
      const names = [aAbsent ? this.c.name(t, g.a_id) : null, bAbsent ? this.c.name(t, g.b_id) : null].filter(
        (x) => x !== null,
      );
      this.score(
        t,
        g,
        aAbsent ? 0 : 1,
        bAbsent ? 0 : 1,
        forfeit,
        `forfeit: ${names.join(" and ")} absent (not queued on the ladder within ${t.row.forfeit_after_s} s)`,
        now,
      );
    }
    if (t.row.state === "running" && current.every((g) => g.state === "done")) this.rounds.nextRound(t, now);
  }

  private startGame(t: Active, g: GameRow, a: Participant, b: Participant, now: number): void {
    const m = t.row.rated ? this.startRated(t, a, b, now) : this.d.unrated.start(a, b, "tournament", g.map);
    g.state = "playing";
    g.match_id = m.id;
    g.map = m.setup.map;
    g.started = new Date(now).toISOString();
    this.c.playing.set(m.id, { t, g, goneSince: null });
    const id = t.row.id;
    const copy = { ...g };
    this.c.write(() => this.c.rows.saveGame(id, copy));
  }

  /**
   * A rated tournament's game: an ordinary rated game of the ladder (mode `ranked`), seated by a coin toss, on
   * the pair's least-played map as every rated game is (SPEC 3.6; the seed breaks ties), with a pairing record
   * that says it is a tournament game (the match page shows why).
   */
  private startRated(t: Active, a: Participant, b: Participant, now: number): RunningMatch {
    const ladder = this.d.ladders.require(t.row.ladder_id);
    const seed = randomInt(2 ** 31);
    const seats: [Participant, Participant] = seed % 2 === 0 ? [a, b] : [b, a];
    const [ka, kb] = seats.map((p) => versionKey(p.bot.id, p.version ?? "unversioned")) as [string, string];
    const facts = ladder.ratings.facts(ka, kb);
    const fewest = Math.min(...MAP_NAMES.map((m) => facts.mapGames.get(m) ?? 0));
    const least = MAP_NAMES.filter((m) => (facts.mapGames.get(m) ?? 0) === fewest);
    const map = least[seed % least.length]!;
    const [ra, rb] = [ladder.ratings.ratingOf(ka), ladder.ratings.ratingOf(kb)];
    const wait = (p: Participant) => (p.house ? 0 : Math.max(0, Math.round(now - p.queuedAt)));
    const pairing: PairingRecord = {
      reason: "tournament",
      weight: null,
      parts: {},
      forecast: Math.round(smoothedForecast({ rating: ra }, { rating: rb }, facts) * 10_000) / 10_000,
      pair_games: facts.games,
      rating_gap: Math.round(Math.abs(ra - rb)),
      window: null,
      waits_ms: [wait(seats[0]), wait(seats[1])],
      requested_by: null,
      map: { reason: "least_played", games: fewest, choices: least.length },
    };
    return this.d.live.start({ seats, map, seed, pairing }, ladder.id, "ranked");
  }

  /** Records a game's points; the pairing's next game may start from now. */
  private score(
    t: Active,
    g: GameRow,
    pointsA: number,
    pointsB: number,
    forfeit: GameRow["forfeit"],
    reason: string,
    now: number,
  ): void {
    g.state = "done";
    g.points_a = pointsA;
    g.points_b = pointsB;
    g.forfeit = forfeit;
    g.reason = reason;
    g.ended = new Date(now).toISOString();
    t.since.delete(g);
    const next = t.games.find((x) => x.round === g.round && x.pairing === g.pairing && x.game === g.game + 1);
    if (next) t.since.set(next, now);
    const id = t.row.id;
    const copy = { ...g };
    this.c.write(() => this.c.rows.saveGame(id, copy));
  }

  /** A MatchFinished listener: the game's result from its pairing's side `a`. True when a game was scored. */
  finished(e: DomainEvents["MatchFinished"]): boolean {
    const m = e.match;
    if (m.mode !== "tournament" && m.mode !== "ranked") return false;
    const p = this.c.playing.get(m.id);
    if (!p) return false;
    this.c.playing.delete(m.id);
    if (p.t.row.state !== "running") return false;
    const { g } = p;
    const now = Date.parse(m.ended) || Date.now();
    if (m.voided) this.score(p.t, g, 0.5, 0.5, null, `void (counted as a draw): ${m.reason}`, now);
    else if (m.winner_bot_id === null) this.score(p.t, g, 0.5, 0.5, null, m.reason, now);
    else if (m.winner_bot_id === g.a_id) this.score(p.t, g, 1, 0, null, m.reason, now);
    else this.score(p.t, g, 0, 1, null, m.reason, now);
    return true;
  }

  /** Games whose match is gone without a result: scored a draw once LOST_RESULT_MS have passed. */
  lostResults(now: number): void {
    for (const p of this.d.unrated.lost(this.c.playing, now, LOST_RESULT_MS))
      if (p.t.row.state === "running")
        this.score(p.t, p.g, 0.5, 0.5, null, "no result was stored (a draw)", now);
  }
}
