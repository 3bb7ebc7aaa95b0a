// Tournaments (issue 34, part 3). Staff schedule a round-robin or Swiss tournament on a ladder; this service
// runs it:
//
// - Check-in: from `checkin_s` seconds before the start until the start, every bot that is connected (a
//   socket open, not a house bot), active, and allowed to queue on the ladder (its enrollment, the ladder's
//   window) is checked in. At the start, the checked-in bots still connected enter, seeded in check-in order.
//   Fewer than two: the tournament is cancelled. A bot takes part in one tournament at a time: one checked in
//   to another tournament, or playing in one, is not checked in.
// - From check-in to the end, an entrant is held for the tournament (a lobby hold, as scrimmages do): it plays
//   no ranked game, and waits for its next tournament game.
// - Each round is paired (pairing.ts) and its games played through the normal pool, as unrated matches of mode
//   `tournament` started when both bots have queued on the tournament's ladder, within the server's and the
//   ladder's capacity (server/scrimmages/unrated.ts starts them). The games of a pairing are played one after
//   another, on the round's maps in turn.
// - A bot absent at its game forfeits it: when `forfeit_after_s` seconds have passed since the game could
//   start and the bot has not queued on the ladder (disconnected, idle, or queued elsewhere), the game is
//   scored a loss for it and a win for the opponent (both absent: a loss for both). A bot still playing a
//   match is waited for.
// - A game scores 1 a win, 1/2 a draw (a voided match counts as a draw), 0 a loss. The round ends when all its
//   games have; the next is paired from the standings. When the rounds are done (or no Swiss pairing without a
//   rematch is left) the final standings are written once and kept.
// - Results stay out of the ladder's ratings unless the tournament says otherwise: an unrated tournament (the
//   default) plays mode `tournament`, which no rating, forecast, leaderboard or quota reads; a `rated` one plays
//   its games as ordinary rated games of the ladder (mode `ranked`, pairing reason `tournament`), which enter
//   its ratings, forecasts and leaderboard and count against the owners' quotas like any rated game.
//
// This file puts the parts together: the tournaments at run time with their reads (catalog.ts, which this
// extends), check-in, the start and each round's pairing (`rounds`: rounds.ts), the games with their results and
// forfeits (`games`: games.ts) and staff's actions (`staff`: staff.ts, offered here as `create` and `cancel`),
// and the sweep that drives them (the job, each queue on a held bot and each result ask for one).
import type { Caller } from "../accounts/accounts.ts";
import type { DomainEvents } from "../kernel/bus.ts";
import { TournamentCatalog, type TournamentDeps } from "./catalog.ts";
import { TournamentGames } from "./games.ts";
import { TournamentRounds } from "./rounds.ts";
import { type CreateInput, TournamentStaff } from "./staff.ts";

export class TournamentService extends TournamentCatalog {
  readonly rounds: TournamentRounds;
  readonly games: TournamentGames;
  readonly staff: TournamentStaff;

  constructor(d: TournamentDeps) {
    super(d);
    this.rounds = new TournamentRounds(this, d);
    this.games = new TournamentGames(this, d, this.rounds);
    this.staff = new TournamentStaff(this, d, (now) => this.sweep(now));
    d.lobby.hold({ claims: (p) => this.claims(p), queued: () => this.sweep() });
  }

  /** Check-in, the start, and each running round's games: started, forfeited, or the next round paired. */
  sweep(now = Date.now()): void {
    for (const t of [...this.active.values()]) {
      if (t.row.state === "scheduled") {
        const start = Date.parse(t.row.starts_at);
        if (now >= start - t.row.checkin_s * 1000) this.rounds.checkIn(t, now);
        if (now >= start) this.rounds.begin(t, now);
      }
      if (t.row.state === "running") this.games.progress(t, now);
    }
    this.games.lostResults(now);
  }

  /** A MatchFinished listener: a tournament game's result, then a sweep (the pairing's next game may start). */
  finished(e: DomainEvents["MatchFinished"]): void {
    if (this.games.finished(e)) this.sweep();
  }

  create(caller: Caller, input: CreateInput, now = Date.now()) {
    return this.staff.create(caller, input, now);
  }

  cancel(caller: Caller, id: string, now = Date.now()) {
    return this.staff.cancel(caller, id, now);
  }
}
