// The settlement phase of a ladder (issue 34, part 4). Staff schedule one per ladder (top K, a game budget, a
// start and an end); from its start:
//
// - the top K of the leaderboard are taken, each at the version it is ranked with: those versions are frozen.
//   Only they play rated games on the ladder until the settlement ends. New versions are refused: a queue on
//   the settling ladder with another version of a top-K bot, or with a version label any other bot did not
//   have when the settlement began, is answered `settlement_frozen` (a queue error: the socket stays open, the
//   bot is not queued; the ladders' admission rule, `admits`). A bot outside the top K queueing with a version
//   it had is admitted and waits: it plays once the settlement has ended, if the window is still open;
// - the ordinary matchmaker pairs nobody on that ladder: the settlement holds every player bot queued there
//   (`Lobby.hold`, the hook scrimmages use), so the matchmaker's queue is empty and event opponent requests wait
//   too. No core file changes for this;
// - extra rated games are started among the top K only: between rank neighbours (consecutive in the current
//   leaderboard order of the K), the pair whose 95 % rank intervals (server/insight/board.ts) share the most
//   ranks first, then the pair that has played fewest settlement games, then the higher ranked; each bot
//   plays one settlement game at a time; at most `game_budget` are started.
//
// A settlement may end an event's window instead of the ladder's (`event`: an event on the ladder): its end
// defaults to the event's closing and may not follow it, and it ends when that event closes too. Before it
// begins, staff may change it (`edit`) or cancel it (`cancel`); once begun it runs to its end.
//
// It ends when its budget is started and those games have finished, or at `ends_at` (games running then are
// waited for), or when the ladder (or its event) closes. Then the standings (every ranked row with its rank interval and
// record) are written once to the database (store.ts: a second write is refused, a trigger refuses updates),
// the hold is released and the matchmaker pairs on the ladder again.
//
// This file puts the parts together and holds the two rules the core asks of it (the ladders' admission rule and
// the lobby hold): what this process knows of the settlements and what is read of them (ledger.ts, which this
// extends), the clock that begins them, starts their games and ends them (`clock`: clock.ts, its pairs in
// pairs.ts), and staff's scheduling, changing and cancelling (`staff`: staff.ts).
import type { QueueRefusal } from "../connection/rules.ts";
import type { Participant } from "../lobby/lobby.ts";
import type { BotRow } from "../store/types.ts";
import { SettlementClock } from "./clock.ts";
import { type SettlementDeps, SettlementLedger } from "./ledger.ts";
import { SettlementStaff } from "./staff.ts";

export class SettlementService extends SettlementLedger {
  readonly clock: SettlementClock;
  readonly staff: SettlementStaff;

  constructor(d: SettlementDeps) {
    super(d);
    this.clock = new SettlementClock(this, d);
    this.staff = new SettlementStaff(this, this.clock, d);
  }

  /**
   * The ladders' admission rule (server/ladders/registry.ts `admitWith`): on a settling ladder a new version is
   * refused with `settlement_frozen`: another version of a top-K bot, or a label another bot did not have when
   * the settlement began. Everything else is left to the other rules (and, for the bots outside the top K, to
   * the hold: they wait for the end).
   */
  admits(bot: BotRow, ladderId: string, version: string | undefined): QueueRefusal | null {
    const o = this.open.get(ladderId);
    if (o?.row.state !== "settling" || version === undefined || bot.house) return null;
    const until = `until the settlement ends (by ${o.row.ends_at})`;
    const top = o.row.frozen?.find((f) => f.bot_id === bot.id);
    if (top)
      return top.version === version
        ? null
        : {
            code: "settlement_frozen",
            message: `the ladder ${ladderId} is settling: ${bot.name} is one of its top ${o.row.top_k} and plays at its frozen version ${JSON.stringify(top.version)} ${until}; queue that version, or ${JSON.stringify(version)} after the end`,
          };
    if (o.known && !o.known.get(bot.id)?.has(version))
      return {
        code: "settlement_frozen",
        message: `the ladder ${ladderId} is settling: versions are frozen ${until}, and ${JSON.stringify(version)} is new since it began; queue a version ${bot.name} had before, or this one after the end`,
      };
    return null;
  }

  /** The lobby hold: every player bot queued on a settling ladder waits for the settlement, not the matchmaker. */
  claims(p: Participant): boolean {
    return this.open.get(p.ladderId)?.row.state === "settling";
  }
}
