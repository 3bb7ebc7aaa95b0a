// A small, fixed ladder for page tests that compare screenshots (test/browser/site.test.ts): three player
// bots with 36 rated games each against the house bots, every match at a fixed time, then one upset (the
// weakest player beating the strongest). Saved straight through the store and recorded in the rating book the
// way the match runner does (as test/server/ladder-routes.test.ts does), so ratings, leaderboard, sparklines
// and the recent-match list come out the same on every run. Each match gets a real replay: the bundled one
// the simulator recorded at build time (build/showcase.jsonl.gz).
import { readFileSync } from "node:fs";
import { HOUSE_BOTS } from "../../engine/house/index.ts";
import { MAP_NAMES } from "../../engine/rules.ts";
import { versionKey } from "../../server/ratings/book.ts";
import { SHOWCASE_FILE } from "../../server/spectate/service.ts";
import type { BotRow, MatchRecord } from "../../server/store/types.ts";
import type { TestServer } from "./server.ts";

/** Every seeded match ends at this instant plus one minute per match; pages are shot with the clock at NOW. */
export const EPOCH = Date.UTC(2026, 0, 10, 12, 0, 0);
export const NOW = new Date(EPOCH + 3 * 86_400_000);

export const PLAYERS = [
  { name: "orbit-runner", owner: "ada", strength: 0.8 },
  { name: "slow-burn", owner: "grace", strength: 0.55 },
  { name: "quiet-storm-long-name", owner: "linus", strength: 0.25 },
] as const;

export interface SiteWorld {
  /** The upset: the weakest player beat the strongest; the latest match. */
  upsetId: string;
  /** A match whose page and replay the tests open. */
  matchId: string;
  /** The winner's forecast of the upset, from the ratings before it. */
  upsetForecast: number;
}

export async function seedSite(srv: TestServer): Promise<SiteWorld> {
  const { botStore, matchStore, bus } = srv.app.ctx;
  const ratings = srv.app.ctx.ladders.main.ratings;
  const replay = readFileSync(SHOWCASE_FILE);
  const bots = new Map<string, BotRow>();
  for (const p of PLAYERS) {
    await srv.register(p.name, p.owner);
    bots.set(p.name, (await botStore.botByName(p.name))!);
  }
  const houses: BotRow[] = [];
  for (const s of Object.values(HOUSE_BOTS)) houses.push((await botStore.botByName(s.name))!);

  let seq = 0;
  async function play(x: BotRow, y: BotRow, winner: 0 | 1 | null): Promise<MatchRecord> {
    const map = MAP_NAMES[seq % MAP_NAMES.length]!;
    const xv = x.house ? "1.0.0" : "v1";
    const yv = y.house ? "1.0.0" : "v1";
    const change = ratings.record({
      a: versionKey(x.id, xv),
      b: versionKey(y.id, yv),
      score: winner === null ? 0.5 : winner === 0 ? 1 : 0,
      map,
      aHouse: x.house,
      bHouse: y.house,
    });
    await botStore.ensureVersion(x.id, xv);
    await botStore.ensureVersion(y.id, yv);
    const id = `site-${String(++seq).padStart(3, "0")}`;
    const ended = new Date(EPOCH + seq * 60_000).toISOString();
    const m: MatchRecord = {
      id,
      ladder_id: "public",
      mode: "ranked",
      seed: seq,
      map,
      started: new Date(EPOCH + seq * 60_000 - 20_000).toISOString(),
      ended,
      duration_ms: 20_000,
      final_tick: 145,
      reason: winner === null ? "timeout_draw" : "last_standing",
      winner_bot_id: winner === null ? null : [x, y][winner]!.id,
      voided: false,
      note: null,
      bots: [
        [x, xv],
        [y, yv],
      ].map(([bot, version], i) => ({
        fighter: i,
        bot_id: (bot as BotRow).id,
        name: (bot as BotRow).name,
        display_name: (bot as BotRow).display_name,
        version: version as string,
        house: (bot as BotRow).house,
        avatar: null,
        rating_before: Math.round(change.before[i]!),
        rating_after: Math.round(change.after[i]!),
      })),
      stats: null,
      replay_file: await srv.app.ctx.replays.write(id, replay),
    };
    await matchStore.saveMatch(m);
    const ratingChange = m.bots.map((b) => b.rating_after! - b.rating_before!) as [number, number];
    bus.emit("MatchFinished", {
      match: m,
      rated: true,
      ratingChange,
      accounts: [x.account_id, y.account_id],
    });
    return m;
  }

  // A fixed pattern per player: a win when (i * 7 % 20) / 20 is below its strength, a draw every 9th game.
  for (let i = 0; i < 36; i++) {
    for (const p of PLAYERS) {
      const me = bots.get(p.name)!;
      const house = houses[i % houses.length]!;
      const r = i % 9 === 8 ? null : ((i * 7) % 20) / 20 < p.strength ? 0 : 1;
      if (i % 2 === 0) await play(me, house, r);
      else await play(house, me, r === null ? null : r === 0 ? 1 : 0);
    }
  }
  const strong = bots.get(PLAYERS[0].name)!;
  const weak = bots.get(PLAYERS[2].name)!;
  const upset = await play(strong, weak, 1);
  const [a, b] = upset.bots;
  const upsetForecast = 1 / (1 + 10 ** ((a!.rating_before! - b!.rating_before!) / 400));
  return { upsetId: upset.id, matchId: "site-004", upsetForecast };
}
