// Match stats (SPEC section 2 "Match stats", stats_version 2): accumulated from the decoded events of each
// tick plus what only the host knows (refusals, idles, reply times, disqualification).
import type {
  DeadlinesT,
  FighterStatsT,
  GameEventT,
  IdleReason,
  MatchStatsT,
  RejectReason,
} from "./protocol.ts";
import { DAMAGE_SOURCES, STATS_VERSION, TAKEN_SOURCES } from "./protocol.ts";
import { ATTACK_NAMES, PICKUP_KINDS } from "./rules.ts";

const HISTOGRAM_BUCKETS = 11; // tenths of the tick limit, the last one is the limit and over

const zeroes = <K extends string>(keys: readonly K[]): Record<K, number> =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

export class FighterStatsBuilder {
  readonly s: Omit<FighterStatsT, "timing" | "hp" | "alive">;
  private readonly replies: number[] = [];
  private budgetSpent = 0;
  private lastIdleWasDisconnect = false;

  constructor(id: number, name: string, version: string) {
    this.s = {
      id,
      name,
      version,
      moves: 0,
      moves_blocked: 0,
      dashes: 0,
      dash_tiles: 0,
      weapons: Object.fromEntries(ATTACK_NAMES.map((a) => [a, { uses: 0, hits: 0, damage: 0 }])),
      ricochets: { bounces: 0, hits: 0, damage: 0 },
      pickups: zeroes(PICKUP_KINDS),
      healed: 0,
      damage_dealt: 0,
      damage_taken: 0,
      dealt_by_source: zeroes(DAMAGE_SOURCES),
      taken_by_source: zeroes(TAKEN_SOURCES),
      wall_slams: 0,
      knocked_back: 0,
      stunned: 0,
      zone_ticks: 0,
      rejected: {},
      refused_turns: 0,
      refused_turns_by_reason: {},
      server_idles: {},
      disconnects: 0,
      disqualified: false,
    };
  }

  /** Wall-clock time this fighter used of its match budget (replies and waits that ran out). */
  get spentMs(): number {
    return this.budgetSpent;
  }

  reply(ms: number): void {
    this.replies.push(ms);
    this.budgetSpent += ms;
    this.lastIdleWasDisconnect = false;
  }

  idle(reason: IdleReason, waitedMs: number): void {
    const idles = this.s.server_idles;
    idles[reason] = (idles[reason] ?? 0) + 1;
    this.budgetSpent += waitedMs;
    // A run of disconnected turns counts once, not once per tick.
    if (reason === "disconnected" && !this.lastIdleWasDisconnect) this.s.disconnects++;
    this.lastIdleWasDisconnect = reason === "disconnected";
  }

  refusedTurn(reason: RejectReason): void {
    this.s.refused_turns++;
    bump(this.s.refused_turns_by_reason, reason);
  }

  rejectedPart(reason: RejectReason): void {
    bump(this.s.rejected, reason);
  }

  timing(deadlines: DeadlinesT): FighterStatsT["timing"] {
    const r = [...this.replies].sort((a, b) => a - b);
    const n = r.length;
    const pct = (p: number) => (n === 0 ? 0 : r[Math.min(n - 1, Math.ceil((p / 100) * n) - 1)]!);
    const histogram = new Array<number>(HISTOGRAM_BUCKETS).fill(0);
    let near = 0;
    for (const ms of r) {
      const bucket = Math.min(HISTOGRAM_BUCKETS - 1, Math.floor((ms / deadlines.tick_ms) * 10));
      histogram[bucket]!++;
      if (ms >= deadlines.tick_ms * 0.8) near++;
    }
    const round = (v: number) => Math.round(v * 100) / 100;
    return {
      replies: n,
      mean_ms: round(n === 0 ? 0 : r.reduce((a, b) => a + b, 0) / n),
      p50_ms: round(pct(50)),
      p95_ms: round(pct(95)),
      max_ms: round(n === 0 ? 0 : r[n - 1]!),
      near_limit: near,
      tick_ms: deadlines.tick_ms,
      budget_ms: deadlines.match_budget_ms,
      budget_ms_left: round(deadlines.match_budget_ms - this.budgetSpent),
      histogram,
    };
  }
}

function bump(counter: Record<string, number>, key: string, by = 1): void {
  counter[key] = (counter[key] ?? 0) + by;
}

/** Folds one tick's events into both fighters' stats. */
export function accumulate(fighters: FighterStatsBuilder[], events: GameEventT[]): void {
  for (const e of events) {
    switch (e.type) {
      case "move": {
        const s = fighters[e.by]!.s;
        if (e.blocked) s.moves_blocked++;
        const tiles = Math.max(Math.abs(e.to[0] - e.from[0]), Math.abs(e.to[1] - e.from[1]));
        if (e.dash) {
          s.dashes++;
          s.dash_tiles += tiles;
        } else s.moves += tiles;
        break;
      }
      case "attack": {
        const s = fighters[e.by]!.s;
        s.weapons[e.name]!.uses++;
        if (e.ricochet) s.ricochets.bounces++;
        break;
      }
      case "hit": {
        const attacker = fighters[e.by]!.s;
        const target = fighters[e.target]!.s;
        bump(target.taken_by_source, e.source, e.damage);
        target.damage_taken += e.damage;
        if (e.by === e.target) break; // own frostburst: taken, never dealt
        attacker.damage_dealt += e.damage;
        bump(attacker.dealt_by_source, e.source, e.damage);
        const weapon = attacker.weapons[e.source];
        if (weapon) {
          weapon.hits++;
          weapon.damage += e.damage;
        }
        if (e.ricochet) {
          attacker.ricochets.hits++;
          attacker.ricochets.damage += e.damage;
        }
        break;
      }
      case "zone_damage": {
        const s = fighters[e.target]!.s;
        s.zone_ticks++;
        s.damage_taken += e.damage;
        bump(s.taken_by_source, "zone", e.damage);
        break;
      }
      case "repulse": {
        const s = fighters[e.target]!.s;
        s.knocked_back++;
        if (e.wall_slam) s.wall_slams++;
        break;
      }
      case "status":
        if (e.effect === "stun") fighters[e.target]!.s.stunned++;
        break;
      case "pickup": {
        const s = fighters[e.by]!.s;
        bump(s.pickups, e.kind);
        if (e.kind === "heal") s.healed += e.amount;
        break;
      }
      default:
        break;
    }
  }
}

export function buildStats(
  fighters: FighterStatsBuilder[],
  end: {
    map: string;
    seed: number;
    ticks: number;
    winner: number | null;
    reason: string | null;
    matchId?: string;
  },
  hp: { hp: number; alive: boolean }[],
  deadlines: DeadlinesT,
): MatchStatsT {
  const stats: MatchStatsT = {
    stats_version: STATS_VERSION,
    map: end.map,
    seed: end.seed,
    ticks: end.ticks,
    winner: end.winner,
    reason: end.reason,
    fighters: fighters.map((b, i) => ({
      ...structuredClone(b.s),
      hp: hp[i]!.hp,
      alive: hp[i]!.alive,
      timing: b.timing(deadlines),
    })),
  };
  if (end.matchId !== undefined) stats.match_id = end.matchId;
  return stats;
}
