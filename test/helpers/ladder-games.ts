// One stored rated game at version v1 of two player bots on any ladder, recorded in that ladder's rating book,
// saved and announced as MatchFinished the way the match runner does it, without playing it (the settlement
// tests seed a ladder of known order with it; rated-game.ts does the same on the main ladder).
import { MAP_NAMES } from "../../engine/rules.ts";
import { versionKey } from "../../server/ratings/book.ts";
import type { BotRow, MatchRecord } from "../../server/store/types.ts";
import type { TestServer } from "./server.ts";

let seq = 0;
/** One stored rated game on the ladder, recorded in its rating book and announced, as the runner does. */
export async function rated(
  srv: TestServer,
  ladder: string,
  x: BotRow,
  y: BotRow,
  xScore: 0 | 0.5 | 1,
): Promise<void> {
  const { store, bus, ladders } = srv.app.ctx;
  const map = MAP_NAMES[seq % MAP_NAMES.length]!;
  const change = ladders.require(ladder).ratings.record({
    a: versionKey(x.id, "v1"),
    b: versionKey(y.id, "v1"),
    score: xScore,
    map,
    aHouse: false,
    bHouse: false,
  });
  const ended = new Date().toISOString();
  const winner = xScore === 0.5 ? null : xScore === 1 ? x : y;
  const m: MatchRecord = {
    id: `seed-${ladder}-${++seq}`,
    ladder_id: ladder,
    mode: "ranked",
    seed: seq,
    map,
    started: ended,
    ended,
    duration_ms: 1000,
    final_tick: 100,
    reason: winner ? "last_standing" : "timeout_draw",
    winner_bot_id: winner?.id ?? null,
    voided: false,
    note: null,
    bots: [x, y].map((bot, i) => ({
      fighter: i,
      bot_id: bot.id,
      name: bot.name,
      display_name: bot.display_name,
      version: "v1",
      house: false,
      avatar: null,
      rating_before: Math.round(change.before[i]!),
      rating_after: Math.round(change.after[i]!),
    })),
    stats: null,
    replay_file: null,
  };
  await store.saveMatch(m);
  await bus.emit("MatchFinished", {
    match: m,
    rated: true,
    ratingChange: [
      m.bots[0]!.rating_after! - m.bots[0]!.rating_before!,
      m.bots[1]!.rating_after! - m.bots[1]!.rating_before!,
    ],
    accounts: [x.account_id, y.account_id],
  });
}
