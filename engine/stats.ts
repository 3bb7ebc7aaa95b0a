// Match stats (SPEC section 2 "Match stats", stats_version 2): accumulated from the decoded events of each
// tick plus what only the host knows (refusals, idles, reply times, disqualification).
import type {
  DeadlinesT,
  FighterStatsT,
  GameEventT,
  IdleReason,
  MatchStatsT,
  RejectReason,
  TurnPart,
} from "./protocol.ts";
import { DAMAGE_SOURCES, STATS_VERSION, TAKEN_SOURCES } from "./protocol.ts";
import { ATTACK_NAMES, PICKUP_KINDS } from "./rules.ts";

const HISTOGRAM_BUCKETS = 11; // tenths of the tick limit, the last one is the limit and over

/**
 * Entries a match keeps per fighter and list for its owner's diagnostics (issue 33): a bot that errs on every
 * tick would otherwise store one entry per tick and part. Runs of the same refusal on consecutive ticks are one
 * entry, so a bot that repeats one mistake all match needs one; what is beyond the cap is counted, not listed.
 */
export const DIAGNOSTIC_ENTRIES = 300;

/** The same part refused for the same reason on each tick from `tick` to `to_tick`. */
export interface RefusalRun {
  tick: number;
  to_tick: number;
  part: TurnPart;
  reason: RejectReason;
}
/**
 * A tick the server idled as `timeout`: `waited_ms` the deadline it waited; `late_ms` how long after that the
 * bot's reply for the tick arrived (the match runner fills it in), null when it never did.
 */
export interface DeadlineMiss {
  tick: number;
  waited_ms: number;
  late_ms: number | null;
}
/** Consecutive ticks idled as `disconnected`. */
export interface DisconnectRun {
  tick: number;
  to_tick: number;
}
/** One fighter's turn-by-turn troubles, kept with the match's stats for its owner (never public). */
export interface FighterDiagnostics {
  refusals: RefusalRun[];
  refusals_dropped: number;
  deadline_misses: DeadlineMiss[];
  deadline_misses_dropped: number;
  disconnect_runs: DisconnectRun[];
}
/** Stats as recorded: the public stats plus each fighter's diagnostics (by fighter id). */
export type RecordedStatsT = MatchStatsT & { diagnostics?: FighterDiagnostics[] };

/** The stats anyone may read: the owner-only diagnostics removed. */
export function publicStats<T extends MatchStatsT>(stats: T): T {
  if (!("diagnostics" in stats)) return stats;
  const { diagnostics: _private, ...rest } = stats as T & { diagnostics?: unknown };
  return rest as T;
}

const zeroes = <K extends string>(keys: readonly K[]): Record<K, number> =>
  Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;

export class FighterStatsBuilder {
  readonly s: Omit<FighterStatsT, "timing" | "hp" | "alive">;
  private readonly replies: number[] = [];
  private budgetSpent = 0;
  private lastIdleWasDisconnect = false;
  readonly diagnostics: FighterDiagnostics = {
    refusals: [],
    refusals_dropped: 0,
    deadline_misses: [],
    deadline_misses_dropped: 0,
    disconnect_runs: [],
  };
  /** The open run of each part and reason ("part reason" to its entry), extended while the ticks follow on. */
  private readonly runs = new Map<string, RefusalRun>();
  /** The last tick each reason was counted in refused_ticks_by_reason (a tick counts once per reason). */
  private readonly reasonTick = new Map<string, number>();

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
      refused_all_parts: 0,
      refused_ticks_by_reason: {},
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

  idle(reason: IdleReason, waitedMs: number, tick: number): void {
    const idles = this.s.server_idles;
    idles[reason] = (idles[reason] ?? 0) + 1;
    this.budgetSpent += waitedMs;
    const d = this.diagnostics;
    if (reason === "timeout") {
      if (d.deadline_misses.length < DIAGNOSTIC_ENTRIES)
        d.deadline_misses.push({ tick, waited_ms: Math.round(waitedMs), late_ms: null });
      else d.deadline_misses_dropped++;
    }
    // A run of disconnected turns counts once, not once per tick.
    if (reason === "disconnected") {
      if (!this.lastIdleWasDisconnect) {
        this.s.disconnects++;
        if (d.disconnect_runs.length < DIAGNOSTIC_ENTRIES) d.disconnect_runs.push({ tick, to_tick: tick });
      } else {
        const last = d.disconnect_runs.at(-1);
        if (last) last.to_tick = tick;
      }
    }
    this.lastIdleWasDisconnect = reason === "disconnected";
  }

  /** A refused part (or a whole turn refused: part `turn`) on `tick`, for the diagnostics and the tick counts. */
  private refusal(tick: number, part: TurnPart, reason: RejectReason): void {
    if (this.reasonTick.get(reason) !== tick) {
      this.reasonTick.set(reason, tick);
      bump(this.s.refused_ticks_by_reason!, reason);
    }
    const key = `${part} ${reason}`;
    const open = this.runs.get(key);
    if (open && open.to_tick === tick - 1) {
      open.to_tick = tick;
      return;
    }
    if (open && open.to_tick === tick) return; // the same part twice in one tick (never in practice)
    const d = this.diagnostics;
    if (d.refusals.length >= DIAGNOSTIC_ENTRIES) {
      d.refusals_dropped++;
      this.runs.delete(key);
      return;
    }
    const run = { tick, to_tick: tick, part, reason };
    d.refusals.push(run);
    this.runs.set(key, run);
  }

  refusedTurn(reason: RejectReason, tick: number): void {
    this.s.refused_turns++;
    bump(this.s.refused_turns_by_reason, reason);
    this.refusal(tick, "turn", reason);
  }

  rejectedPart(reason: RejectReason, part: TurnPart, tick: number): void {
    bump(this.s.rejected, reason);
    this.refusal(tick, part, reason);
  }

  /** A turn accepted as a whole that sent move, dash or attack parts and had every one of them refused. */
  refusedAllParts(): void {
    this.s.refused_all_parts = (this.s.refused_all_parts ?? 0) + 1;
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
): RecordedStatsT {
  const stats: RecordedStatsT = {
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
    diagnostics: fighters.map((b) => structuredClone(b.diagnostics)),
  };
  if (end.matchId !== undefined) stats.match_id = end.matchId;
  return stats;
}
