// An owner's diagnostics of one match of their bot (issue 33, part 2): every refused part of a turn with its
// tick, part and reason, every deadline missed with how late the reply came, the runs of disconnected turns,
// the reply-time histogram and the budget left. All of it is read from the match's recorded stats: the counts
// are the public stats', the lists are what the engine kept per fighter (engine/stats.ts, FighterDiagnostics)
// and the late replies what the match runner added at the end. Private: only the bot's owner may read it.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FighterStatsT } from "../../engine/protocol.ts";
import type { DeadlineMiss, FighterDiagnostics, RefusalRun } from "../../engine/stats.ts";
import type { Accounts, Caller } from "../accounts/accounts.ts";
import type { BotStore } from "../bots/bot-store.ts";
import { turnFigures } from "../bots/health.ts";
import { errors } from "../errors.ts";
import { BOT_NAME } from "../kernel/names.ts";
import type { LadderReads } from "../reads/reads.ts";

export interface MatchDiagnostics {
  match_id: string;
  ladder_id: string;
  bot: string;
  version: string;
  fighter: number;
  ended: string;
  ticks: number;
  result: "win" | "loss" | "draw" | "void";
  reason: string;
  /** False for matches recorded before the lists were kept: then only the counts are known. */
  detailed: boolean;
  turns: {
    turns: number;
    idle: number;
    idle_by_reason: Record<string, number>;
    refused: number;
    refused_ticks_by_reason: Record<string, number>;
    refused_parts_by_reason: Record<string, number>;
    lost: number;
  };
  refusals: (RefusalRun & { ticks: number })[];
  refusals_dropped: number;
  deadline_misses: DeadlineMiss[];
  deadline_misses_dropped: number;
  disconnect_runs: { tick: number; to_tick: number; ticks: number }[];
  disconnects: number;
  disqualified: boolean;
  timing: FighterStatsT["timing"];
}

export interface DiagnosticsDeps {
  reads: LadderReads;
  botStore: Pick<BotStore, "botByName">;
  accounts: Accounts;
}

export class DiagnosticsService {
  constructor(private readonly d: DiagnosticsDeps) {}

  /**
   * The account asking: the tool endpoint's caller (it checked the credential), else the request's own
   * credential, a browser session or an agent key. Bot tokens and requests without a credential get the
   * account routes' answers (401 invalid_session, missing_authorization); the answer is never cached.
   */
  async caller(req: FastifyRequest, reply: FastifyReply, toolCaller: Caller | null): Promise<Caller> {
    reply.header("cache-control", "private, no-store");
    reply.header("vary", "Authorization");
    if (toolCaller) return toolCaller;
    const auth = req.headers.authorization;
    if (typeof auth === "string" && /^Bearer\s+ak_/i.test(auth)) return this.d.accounts.agentBearer(req);
    return this.d.accounts.session(req, reply);
  }

  /** The diagnostics of `name`'s seat in match `id`; 404 unless `caller` owns the bot and it played there. */
  async of(caller: Caller, name: string, id: string): Promise<MatchDiagnostics> {
    const bot = BOT_NAME.test(name) ? await this.d.botStore.botByName(name) : null;
    // Another account's bot is as unknown as a missing one: nothing says that it exists.
    if (!bot || bot.account_id !== caller.account.id) throw errors.noSuchBot(name);
    const match = await this.d.reads.storedMatch(id);
    const seat = match?.bots.find((b) => b.bot_id === bot.id);
    if (!match || !seat) throw errors.noSuchMatch(id);
    const stats = await this.d.reads.recordedStats(id);
    const f = stats.fighters[seat.fighter];
    if (!f) throw errors.noStats(id);
    const diag: FighterDiagnostics | undefined = stats.diagnostics?.[seat.fighter];
    const t = turnFigures(f, stats.ticks);
    const voided = match.voided;
    return {
      match_id: id,
      ladder_id: match.ladder_id,
      bot: bot.name,
      version: seat.version,
      fighter: seat.fighter,
      ended: match.ended,
      ticks: stats.ticks,
      result: voided
        ? "void"
        : match.winner_bot_id === null
          ? "draw"
          : match.winner_bot_id === bot.id
            ? "win"
            : "loss",
      reason: match.reason,
      detailed: diag !== undefined,
      turns: {
        turns: t.turns,
        idle: t.idle,
        idle_by_reason: t.idleByReason,
        refused: t.refused,
        refused_ticks_by_reason: t.refusedTicksByReason,
        refused_parts_by_reason: t.refusedPartsByReason,
        lost: t.lost,
      },
      refusals: (diag?.refusals ?? []).map((r) => ({ ...r, ticks: r.to_tick - r.tick + 1 })),
      refusals_dropped: diag?.refusals_dropped ?? 0,
      deadline_misses: diag?.deadline_misses ?? [],
      deadline_misses_dropped: diag?.deadline_misses_dropped ?? 0,
      disconnect_runs: (diag?.disconnect_runs ?? []).map((r) => ({ ...r, ticks: r.to_tick - r.tick + 1 })),
      disconnects: f.disconnects,
      disqualified: f.disqualified,
      timing: f.timing,
    };
  }
}
