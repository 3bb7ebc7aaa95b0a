// JSON shapes of SPEC section 2 built from stored rows: the one place a Match or MyBot is rendered.

import type { z } from "zod";
import type { MatchStatsT } from "../../engine/protocol.ts";
import { QUALIFYING_GAMES, type VersionRating } from "../ratings/book.ts";
import type { BotRow, StoredMatch, VersionRow } from "../store/types.ts";
import type { Match } from "./responses.ts";

type MatchT = z.infer<typeof Match>;

export function matchView(m: StoredMatch, publicUrl: string, stats?: MatchStatsT | null): MatchT {
  const view: MatchT = {
    id: m.id,
    ladder_id: m.ladder_id,
    mode: m.mode,
    seed: m.seed,
    map: m.map,
    ...(m.started ? { started: m.started } : {}),
    ended: m.ended,
    duration_ms: m.duration_ms,
    final_tick: m.final_tick,
    reason: m.reason,
    winner: m.winner_bot_id,
    voided: m.voided,
    bots: m.bots.map((b) => ({
      id: b.bot_id,
      name: b.name,
      display_name: b.display_name,
      version: b.version,
      house: b.house,
      avatar: b.avatar,
      fighter: b.fighter,
      ...(b.rating_before !== null ? { rating_before: b.rating_before } : {}),
      ...(b.rating_after !== null ? { rating_after: b.rating_after } : {}),
    })),
    replay_url: `${publicUrl}/replays/${m.id}.jsonl.gz`,
    stats_url: `${publicUrl}/api/matches/${m.id}/stats`,
    watch_url: `${publicUrl}/view/${m.id}`,
  };
  if (stats !== undefined) view.stats = stats;
  return view;
}

export function versionView(
  v: VersionRow,
  r: VersionRating,
  record: { wins: number; losses: number; draws: number } = { wins: 0, losses: 0, draws: 0 },
) {
  const games = record.wins + record.losses + record.draws;
  return {
    label: v.label,
    notes: v.notes,
    created: v.created,
    retired: v.retired,
    rating: Math.round(r.rating),
    rating_deviation: Math.round(r.deviation),
    leaderboard_score: r.leaderboardScore,
    wins: record.wins,
    losses: record.losses,
    draws: record.draws,
    win_rate: games === 0 ? null : (record.wins + record.draws / 2) / games,
    rated_games: r.games,
    qualifying_games: QUALIFYING_GAMES,
    provisional: !r.ranked,
  };
}

export function myBotView(bot: BotRow, online: boolean, versions: ReturnType<typeof versionView>[]) {
  return {
    name: bot.name,
    display_name: bot.display_name,
    owner: bot.owner,
    created: bot.created,
    owner_url: null,
    house: bot.house,
    online,
    avatar: bot.avatar,
    versions,
  };
}
