// A stored match result as the runner writes it (two seats, stats of the current version), for tests that put
// results in a store without playing the match.
import type { FighterStatsT, MatchStatsT } from "../../engine/protocol.ts";
import type { MatchBotRecord, MatchRecord } from "../../server/store/types.ts";

export function fighterStats(id: number, name: string, version: string): FighterStatsT {
  return {
    id,
    name,
    version,
    hp: 50,
    alive: true,
    moves: 10,
    moves_blocked: 0,
    dashes: 1,
    dash_tiles: 3,
    weapons: { melee: { uses: 2, hits: 1, damage: 10 } },
    ricochets: { bounces: 0, hits: 0, damage: 0 },
    pickups: { heal: 0 },
    healed: 0,
    damage_dealt: 10,
    damage_taken: 0,
    dealt_by_source: { melee: 10 },
    taken_by_source: {},
    wall_slams: 0,
    knocked_back: 0,
    stunned: 0,
    zone_ticks: 0,
    rejected: {},
    refused_turns: 0,
    refused_turns_by_reason: {},
    server_idles: { timeout: 1 },
    timing: {
      replies: 10,
      mean_ms: 3.5,
      p50_ms: 3,
      p95_ms: 9,
      max_ms: 12,
      near_limit: 0,
      tick_ms: 1000,
      budget_ms: 300000,
      budget_ms_left: 299965,
      histogram: [10, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    },
    disconnects: 0,
    disqualified: false,
  };
}

export type Seat = { id: string; name: string; version?: string; house?: boolean };

export function matchRecord(id: string, seats: [Seat, Seat], o: Partial<MatchRecord> = {}): MatchRecord {
  const bots: MatchBotRecord[] = seats.map((s, i) => ({
    fighter: i,
    bot_id: s.id,
    name: s.name,
    display_name: s.name.toUpperCase(),
    version: s.version ?? "v1",
    house: s.house ?? false,
    avatar: i === 0 ? "ronin" : null,
    rating_before: 1500,
    rating_after: i === 0 ? 1512.5 : 1487.5,
  }));
  const stats: MatchStatsT = {
    stats_version: 2,
    map: "arena-21",
    seed: 7,
    ticks: 120,
    winner: 0,
    reason: "last_standing",
    fighters: bots.map((b) => fighterStats(b.fighter, b.name, b.version)),
  };
  return {
    id,
    ladder_id: "public",
    mode: "ranked",
    seed: 4_000_000_000,
    map: "arena-21",
    started: "2024-05-01T12:00:00+02:00",
    ended: "2024-05-01T10:00:42.250Z",
    duration_ms: 42250.5,
    final_tick: 120,
    reason: "last_standing",
    winner_bot_id: seats[0].id,
    voided: false,
    note: null,
    bots,
    stats,
    replay_file: null,
    ...o,
  };
}
