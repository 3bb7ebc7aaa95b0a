// Per-version bot health (SPEC 2 "Health"): a summary of the latest 500 matches with stats_version 2 stats
// of one bot version. Only reason codes are reported, never bot-sent text.
import type { FighterStatsT, MatchStatsT } from "../../engine/protocol.ts";

export const HEALTH_MATCHES = 500;

export interface Health {
  matches: number;
  turns: number;
  idle_pct: number;
  refused_pct: number;
  near_limit_pct: number;
  idle_pct_by_reason: Record<string, number>;
  refused_pct_by_reason: Record<string, number>;
  reply_ms: { replies: number; mean: number; p50: number; p95: number; max: number };
  lowest_budget_ms_left: number;
  disconnects: number;
  disqualifications: number;
  /** Turns refused: as a whole, or with every move, dash and attack part sent refused (see turnFigures). */
  refused_turns: number;
  /** Turns the server idled (timeout, disconnected): the bot's answer was not there to play. */
  idle_turns: number;
  /** Turns that did nothing the bot asked for: idle and refused turns together, and their share. */
  lost_turns: number;
  lost_pct: number;
  /** Refused parts of turns (and whole turns refused), counted by reason. */
  refused_parts_by_reason: Record<string, number>;
}

/**
 * What one fighter's turns came to in one match, as SPEC 2 (Health, Match stats) counts them: the one place
 * the bot page's health, the match page's figures and the owner's diagnostics take them from.
 *
 * - `turns`: ticks the fighter had to answer (the match's ticks).
 * - `idle`: ticks the server played for it (`server_idles`: no usable reply in time, or no connection).
 * - `refused`: ticks whose turn was refused, either as a whole (not a turn, wrong tick: `refused_turns`) or
 *   part by part with nothing left (`refused_all_parts`: each move, dash and attack it sent was refused, say an
 *   unknown direction and an unknown attack). Both did nothing the bot asked for.
 * - `lost`: idle and refused together.
 * - `refusedTicksByReason`: ticks in which some part (or the whole turn) was refused, by reason. Stats recorded
 *   before this count existed give the nearest: whole turns plus refused parts per reason, at most the ticks.
 * - `refusedPartsByReason`: refused parts and whole turns, by reason.
 */
export interface TurnFigures {
  turns: number;
  idle: number;
  idleByReason: Record<string, number>;
  refused: number;
  refusedTicksByReason: Record<string, number>;
  refusedPartsByReason: Record<string, number>;
  lost: number;
}

export function turnFigures(f: FighterStatsT, ticks: number): TurnFigures {
  const idleByReason: Record<string, number> = {};
  let idle = 0;
  for (const [reason, n] of Object.entries(f.server_idles)) {
    if (!n) continue;
    idle += n;
    idleByReason[reason] = n;
  }
  const refused = f.refused_turns + (f.refused_all_parts ?? 0);
  const refusedPartsByReason: Record<string, number> = { ...f.refused_turns_by_reason };
  for (const [reason, n] of Object.entries(f.rejected))
    refusedPartsByReason[reason] = (refusedPartsByReason[reason] ?? 0) + n;
  const refusedTicksByReason =
    f.refused_ticks_by_reason ??
    Object.fromEntries(Object.entries(refusedPartsByReason).map(([k, n]) => [k, Math.min(n, ticks)]));
  return {
    turns: ticks,
    idle,
    idleByReason,
    refused,
    refusedTicksByReason: { ...refusedTicksByReason },
    refusedPartsByReason,
    lost: Math.min(ticks, idle + refused),
  };
}

const pct = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 10_000) / 100);

function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}

/**
 * Summarises a version's matches from turnFigures() of each. `turns` counts the ticks it had to answer; each
 * percentage is of those turns (refused_pct_by_reason: turns with a part refused for that reason). Reply percentiles are estimated
 * from the per-match percentiles (the median of the matches' p50s, the 95th percentile of their p95s), since
 * stats keep summaries, not every reply.
 */
export function summariseHealth(rows: { fighter: number; stats: MatchStatsT }[]): Health | null {
  const mine = rows.filter((r) => r.stats.stats_version === 2 && r.stats.fighters[r.fighter]);
  if (mine.length === 0) return null;
  let turns = 0;
  let idles = 0;
  let refused = 0;
  let lost = 0;
  const partsBy: Record<string, number> = {};
  let near = 0;
  let replies = 0;
  let replyMsTotal = 0;
  let max = 0;
  let lowestBudget = Number.POSITIVE_INFINITY;
  let disconnects = 0;
  let dq = 0;
  const idleBy: Record<string, number> = {};
  const refusedBy: Record<string, number> = {};
  const p50s: number[] = [];
  const p95s: number[] = [];
  for (const { fighter, stats } of mine) {
    const f = stats.fighters[fighter]!;
    const t = turnFigures(f, stats.ticks);
    turns += t.turns;
    idles += t.idle;
    refused += t.refused;
    lost += t.lost;
    add(idleBy, t.idleByReason);
    add(refusedBy, t.refusedTicksByReason);
    add(partsBy, t.refusedPartsByReason);
    near += f.timing.near_limit;
    replies += f.timing.replies;
    replyMsTotal += f.timing.mean_ms * f.timing.replies;
    max = Math.max(max, f.timing.max_ms);
    if (f.timing.replies > 0) {
      p50s.push(f.timing.p50_ms);
      p95s.push(f.timing.p95_ms);
    }
    lowestBudget = Math.min(lowestBudget, f.timing.budget_ms_left);
    disconnects += f.disconnects;
    if (f.disqualified) dq++;
  }
  const byReason = (counts: Record<string, number>) =>
    Object.fromEntries(Object.entries(counts).map(([k, n]) => [k, pct(n, turns)]));
  return {
    matches: mine.length,
    turns,
    idle_pct: pct(idles, turns),
    refused_pct: pct(refused, turns),
    near_limit_pct: pct(near, replies),
    idle_pct_by_reason: byReason(idleBy),
    refused_pct_by_reason: byReason(refusedBy),
    reply_ms: {
      replies,
      mean: replies === 0 ? 0 : Math.round((replyMsTotal / replies) * 100) / 100,
      p50: quantile(p50s, 0.5),
      p95: quantile(p95s, 0.95),
      max,
    },
    lowest_budget_ms_left: Math.floor(lowestBudget),
    disconnects,
    disqualifications: dq,
    refused_turns: refused,
    idle_turns: idles,
    lost_turns: lost,
    lost_pct: pct(lost, turns),
    refused_parts_by_reason: partsBy,
  };
}

function add(into: Record<string, number>, from: Record<string, number>): void {
  for (const [k, n] of Object.entries(from)) into[k] = (into[k] ?? 0) + n;
}
