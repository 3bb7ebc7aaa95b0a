// Insight operations (issue 33): the matchups of a ladder's top versions, and an owner's diagnostics of one
// match of their bot. Thin: parse, ask the service, return what it answers; the definition yields the route,
// its /openapi.json entry and (for the diagnostics) the MCP tool.
import { z } from "zod";
import type { Caller } from "../accounts/accounts.ts";
import { operationFor } from "../kernel/operation.ts";
import type { BoardInsight } from "./board.ts";
import type { DiagnosticsService } from "./diagnostics.ts";
import { MAX_TOP, type MatchupService } from "./matchups.ts";
import type { RegressionAlerts } from "./regression.ts";
import * as S from "./schemas.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export interface InsightServices {
  matchups: MatchupService;
  board: BoardInsight;
  regressions: RegressionAlerts;
  diagnostics: DiagnosticsService;
}
const defineOperation = operationFor<InsightServices>();

const TOP_RULE = `top must be an integer from 1 to ${MAX_TOP}`;
const LadderParams = z.object({ id: z.string().max(64).describe("ladder id") });
const MatchupsQuery = z.object({
  top: z.coerce
    .number({ error: TOP_RULE })
    .int(TOP_RULE)
    .min(1, TOP_RULE)
    .max(MAX_TOP, TOP_RULE)
    .default(10)
    .describe("how many of the top leaderboard rows (1 to 50, default 10)"),
});

export const INSIGHT_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/ladders/:id/matchups",
    operationId: "getMatchups",
    summary:
      "The top N ranked versions with 95 % rank intervals, and the chance that each beats each other with its interval",
    auth: "none",
    params: LadderParams,
    query: MatchupsQuery,
    errors: { 400: "invalid `top` (`bad_request`)", 404: "unknown ladder (`unknown_ladder`)" },
    doc: { tag: "data", ok: S.Matchups },
    handle: async ({ params, query }, ctx) => ctx.matchups.matchups(params.id, query.top),
  }),
  defineOperation({
    method: "GET",
    path: "/api/account/bots/:name/matches/:id/diagnostics",
    operationId: "getMatchDiagnostics",
    summary:
      "The owner's diagnostics of one match of their bot: each refused part with its tick and reason, deadline misses with how late, disconnects, reply times and budget left",
    // Checked by the diagnostics service, not a route rule: the owner's browser session or agent key (the
    // AccountBearer credential), which no single auth rule names; the tool endpoint hands its own caller.
    auth: "none",
    params: z.object({
      name: z.string().max(64).describe("the bot's name"),
      id: z.string().max(64).describe("match id"),
    }),
    errors: {
      401: "no credential (`missing_authorization`), a bot token or a bad session (`invalid_session`), an unknown agent key (`invalid_token`)",
      403: "`account_banned`",
      404: "not the caller's bot (`no_such_bot`), a match it did not play (`no_such_match`), or no stats (`no_stats`)",
    },
    doc: { tag: "data", ok: S.Diagnostics, security: [{ AccountBearer: [] }] },
    tools: [
      {
        name: "get_match_diagnostics",
        description:
          "What went wrong for one of the account's bots in one match: every refused turn part (tick, part, reason code), every deadline missed and how late the reply came, disconnect runs, the reply-time histogram and the match budget left. Arguments: name (the bot), id (the match id, from the bot's matches).",
        permission: "register",
      },
    ],
    handle: async ({ params, caller, req, reply }, ctx) => {
      // Over HTTP the rule is `none` and caller is null; the tool endpoint hands the account it checked.
      const who = await ctx.diagnostics.caller(req, reply, caller as Caller | null);
      return ctx.diagnostics.of(who, params.name, params.id);
    },
  }),
];
