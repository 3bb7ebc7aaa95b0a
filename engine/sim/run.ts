// A run of the `play` command: N matches between two bots with seeds S, S+1, ..., maps rotated, and seats
// swapped every other match so neither bot keeps fighter 0. Each match is the same lockstep loop the ladder
// runs (playMatch over engine/match.ts), so a replay written here verifies like a ladder replay.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_DEADLINES } from "../match.ts";
import type { DeadlinesT, FighterStatsT, MatchStatsT } from "../protocol.ts";
import { MAP_NAMES } from "../rules.ts";
import { playMatch } from "./play.ts";
import type { BotRunner, SeatNote } from "./seats.ts";

export type Side = "a" | "b";
export const SIDES: readonly Side[] = ["a", "b"];

export interface PlannedMatch {
  index: number;
  matchId: string;
  seed: number;
  map: string;
  /** True when bot b sits in fighter 0. */
  swapped: boolean;
}

/** The simulator's match id for a seed and map; the ladder's ids look different, so they never collide. */
export function simMatchId(seed: number, map: string): string {
  return `sim-${map}-${seed}`;
}

/** Which matches a run plays: seeds from `seed` upward, maps rotated for `all`, seats swapped on odd matches. */
export function planMatches(o: { matches: number; seed: number; map: string }): PlannedMatch[] {
  const maps = o.map === "all" ? [...MAP_NAMES] : [o.map];
  return Array.from({ length: o.matches }, (_, index) => {
    const seed = (o.seed + index) | 0;
    const map = maps[index % maps.length]!;
    return { index, matchId: simMatchId(seed, map), seed, map, swapped: index % 2 === 1 };
  });
}

const SAMPLES_PER_MATCH = 10;

export interface RejectionSample {
  match_id: string;
  tick: number;
  part: string;
  reason: string;
  detail: string;
}

export interface MatchOutcome {
  plan: PlannedMatch;
  /** Winner by side, null for a draw or a void. */
  winner: Side | null;
  reason: string;
  ticks: number;
  stats: MatchStatsT;
  /** Per side: that bot's fighter stats, notes, and the rejections recorded in the replay. */
  fighters: Record<Side, FighterStatsT>;
  notes: Record<Side, SeatNote[]>;
  rejections: Record<Side, RejectionSample[]>;
  replay: string | null;
  wallMs: number;
}

export interface RunOptions {
  plan: PlannedMatch[];
  runners: Record<Side, BotRunner>;
  deadlines?: DeadlinesT;
  replays?: string | null;
  onMatch?: (o: MatchOutcome, done: number, total: number) => void;
}

export function deadlinesFor(o: { tickMs?: number; startupMs?: number }): DeadlinesT {
  return {
    ...DEFAULT_DEADLINES,
    ...(o.tickMs === undefined ? {} : { tick_ms: o.tickMs }),
    ...(o.startupMs === undefined ? {} : { startup_ms: o.startupMs }),
  };
}

export async function runMatches(o: RunOptions): Promise<MatchOutcome[]> {
  const out: MatchOutcome[] = [];
  if (o.replays) mkdirSync(o.replays, { recursive: true });
  for (const plan of o.plan) {
    const t0 = performance.now();
    const sideOf = (f: number): Side => ((f === 0) !== plan.swapped ? "a" : "b");
    const seatA = o.runners.a.seat(plan.matchId);
    const seatB = o.runners.b.seat(plan.matchId);
    const seats = plan.swapped ? ([seatB, seatA] as const) : ([seatA, seatB] as const);
    const { match, stats } = await playMatch([seats[0], seats[1]], {
      matchId: plan.matchId,
      seed: plan.seed,
      map: plan.map,
      deadlines: o.deadlines ?? DEFAULT_DEADLINES,
    });
    const r = match.result!;
    let replay: string | null = null;
    if (o.replays) {
      replay = join(o.replays, `${match.id}.jsonl.gz`);
      writeFileSync(replay, match.replay.gzip());
    }
    const rejections: Record<Side, RejectionSample[]> = { a: [], b: [] };
    for (const line of match.replay.linesFrom()) {
      if (!line.includes('"rejected"')) continue;
      const t = JSON.parse(line) as {
        type: string;
        tick: number;
        events?: { type: string; by: number; part: string; reason: string; detail?: string }[];
      };
      for (const ev of t.events ?? []) {
        // Refusals by the host's turn check carry a detail (protocol mistakes); the engine's (not_ready,
        // blocked, not_visible) are ordinary play and only counted in the stats.
        if (ev.type !== "rejected" || ev.detail === undefined) continue;
        const list = rejections[sideOf(ev.by)];
        if (list.length < SAMPLES_PER_MATCH) {
          list.push({
            match_id: match.id,
            tick: t.tick,
            part: ev.part,
            reason: ev.reason,
            detail: ev.detail,
          });
        }
      }
    }
    const outcome: MatchOutcome = {
      plan,
      winner: r.winner === null ? null : sideOf(r.winner),
      reason: r.reason,
      ticks: r.finalTick,
      stats,
      fighters: { a: stats.fighters[plan.swapped ? 1 : 0]!, b: stats.fighters[plan.swapped ? 0 : 1]! },
      notes: { a: seatA.notes, b: seatB.notes },
      rejections,
      replay,
      wallMs: performance.now() - t0,
    };
    out.push(outcome);
    o.onMatch?.(outcome, out.length, o.plan.length);
  }
  return out;
}
