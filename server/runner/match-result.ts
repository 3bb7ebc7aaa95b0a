// What a finished match leaves behind, as plain values: the stored result (`matchRecord`), the stats with the
// late replies only the front process saw (`withLateReplies`), and each seat's `end` message (`endMessage`).
// Split from the runner (match-runner.ts), which keeps the order of the ending: replay file, rating book,
// durable result, MatchFinished, then the `end` messages.
import type { EndMessageT, EndReason, MatchStatsT } from "../../engine/protocol.ts";
import { publicStats, type RecordedStatsT } from "../../engine/stats.ts";
import type { MatchOutcome, MatchSetup } from "../../pool/protocol.ts";
import type { Participant } from "../lobby/lobby.ts";
import type { RatingBook } from "../ratings/book.ts";
import type { PairingRecord } from "../store/pairing-record.ts";
import type { MatchMode, MatchRecord } from "../store/types.ts";

/** A late reply to a missed tick: how late it came, for the owner's diagnostics. */
export interface LateReply {
  tick: number;
  late_ms: number;
}

/** The stats with how late each seat's late replies came, which only the front process saw (not the worker). */
export function withLateReplies(stats: MatchStatsT, late: [LateReply[], LateReply[]]): RecordedStatsT {
  const recorded = stats as RecordedStatsT;
  late.forEach((seatLate, i) => {
    const misses = recorded.diagnostics?.[i]?.deadline_misses;
    if (!misses || seatLate.length === 0) return;
    const byTick = new Map(seatLate.map((l) => [l.tick, l.late_ms]));
    for (const m of misses) m.late_ms = byTick.get(m.tick) ?? m.late_ms;
  });
  return recorded;
}

/** The result as it is stored: who played which version, the ratings before and after a rated game, the stats. */
export function matchRecord(o: {
  id: string;
  setup: MatchSetup;
  participants: [Participant, Participant];
  started: string | null;
  durationMs: number;
  outcome: MatchOutcome | null;
  reason: EndReason;
  voided: boolean;
  err: Error | null;
  /** The runner's tick when there is no outcome (an aborted match). */
  tick: number;
  change: ReturnType<RatingBook["record"]> | null;
  stats: RecordedStatsT | null;
  replayFile: string | null;
  pairing: PairingRecord | null;
}): MatchRecord {
  const rounded = (v: number | undefined) => (v === undefined ? null : Math.round(v));
  const winnerSeat = o.outcome ? o.outcome.winner : null;
  return {
    id: o.id,
    ladder_id: o.setup.ladderId,
    mode: o.setup.mode as MatchMode,
    seed: o.setup.seed,
    map: o.setup.map,
    started: o.started,
    ended: new Date().toISOString(),
    duration_ms: o.durationMs,
    final_tick: o.outcome ? o.outcome.finalTick : o.tick,
    reason: o.reason,
    winner_bot_id: winnerSeat === null ? null : o.participants[winnerSeat]!.bot.id,
    voided: o.voided,
    note: o.err ? `aborted: ${o.err.message}` : null,
    bots: o.participants.map((p, i) => ({
      fighter: i,
      bot_id: p.bot.id,
      name: p.bot.name,
      display_name: p.bot.display_name,
      version: o.setup.fighters[i]!.version,
      house: p.bot.house,
      avatar: p.bot.avatar,
      rating_before: rounded(o.change?.before[i]),
      rating_after: rounded(o.change?.after[i]),
    })),
    stats: o.stats,
    replay_file: o.replayFile,
    pairing: o.pairing,
  };
}

/** A seat's `end` message (SPEC 6.2): its result, the public stats and, for a rated game, its rating change. */
export function endMessage(o: {
  matchId: string;
  ladderId: string;
  publicUrl: string;
  seat: number;
  winner: number | null;
  reason: EndReason;
  finalTick: number;
  stats: MatchStatsT | null;
  ratingChange: number | null;
}): EndMessageT {
  const voided = o.reason === "voided" || o.reason === "aborted";
  const result = voided ? "void" : o.winner === null ? "draw" : o.winner === o.seat ? "win" : "loss";
  return {
    type: "end",
    match_id: o.matchId,
    winner: o.winner,
    result,
    reason: o.reason,
    final_tick: o.finalTick,
    stats: o.stats ? { ...publicStats(o.stats), match_id: o.matchId } : null,
    watch_url: `${o.publicUrl}/view/${o.matchId}`,
    rating_change: o.ratingChange,
    ladder_id: o.ladderId,
  };
}
