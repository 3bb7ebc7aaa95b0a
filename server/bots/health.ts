// Per-version bot health (SPEC 2 "Health"): a summary of the latest 500 matches with stats_version 2 stats
// of one bot version. Only reason codes are reported, never bot-sent text.
import type { MatchStatsT } from "../../engine/protocol.ts";

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
}

const pct = (n: number, of: number) => (of === 0 ? 0 : Math.round((n / of) * 10_000) / 100);

function quantile(values: number[], q: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
}

/**
 * Summarises a version's matches. `turns` counts the ticks it had to answer. Reply percentiles are estimated
 * from the per-match percentiles (the median of the matches' p50s, the 95th percentile of their p95s), since
 * stats keep summaries, not every reply.
 */
export function summariseHealth(rows: { fighter: number; stats: MatchStatsT }[]): Health | null {
  const mine = rows.filter((r) => r.stats.stats_version === 2 && r.stats.fighters[r.fighter]);
  if (mine.length === 0) return null;
  let turns = 0;
  let idles = 0;
  let refused = 0;
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
    turns += stats.ticks;
    for (const [reason, n] of Object.entries(f.server_idles)) {
      idles += n ?? 0;
      idleBy[reason] = (idleBy[reason] ?? 0) + (n ?? 0);
    }
    refused += f.refused_turns;
    for (const [reason, n] of Object.entries(f.refused_turns_by_reason))
      refusedBy[reason] = (refusedBy[reason] ?? 0) + n;
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
  };
}
