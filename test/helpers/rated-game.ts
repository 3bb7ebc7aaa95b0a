// One rated game between two bots, saved and announced the way the match runner does it, without playing it:
// recorded in the ladder's real rating book (the main ladder unless one is named), stored through the store and
// emitted as MatchFinished. The insight and settlement tests seed ladders of known strength with it.
import { HOUSE_BOTS } from "../../engine/house/index.ts";
import { MAP_NAMES } from "../../engine/rules.ts";
import { versionKey } from "../../server/ratings/book.ts";
import type { BotRow, MatchRecord } from "../../server/store/types.ts";
import type { TestServer } from "./server.ts";

let seq = 0;

/** Saves and announces one rated game of `x` against `y`; `xScore` is x's result (1 win, 0.5 draw, 0 loss). */
export async function playRated(
  srv: TestServer,
  x: BotRow,
  y: BotRow,
  xScore: 0 | 0.5 | 1,
  ladder = "public",
  /** x's version (default: a house bot's own, a player's v1). */
  xVersion?: string,
): Promise<void> {
  const { botStore, matchStore, bus } = srv.app.ctx;
  const version = (b: BotRow) =>
    b === x && xVersion !== undefined ? xVersion : b.house ? HOUSE_BOTS[b.name]!.version : "v1";
  const map = MAP_NAMES[seq % MAP_NAMES.length]!;
  const change = srv.app.ctx.ladders.require(ladder).ratings.record({
    a: versionKey(x.id, version(x)),
    b: versionKey(y.id, version(y)),
    score: xScore,
    map,
    aHouse: x.house,
    bHouse: y.house,
  });
  for (const b of [x, y]) await botStore.ensureVersion(b.id, version(b));
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
      version: version(bot),
      house: bot.house,
      avatar: null,
      rating_before: Math.round(change.before[i]!),
      rating_after: Math.round(change.after[i]!),
    })),
    stats: null,
    replay_file: null,
  };
  await matchStore.saveMatch(m);
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
