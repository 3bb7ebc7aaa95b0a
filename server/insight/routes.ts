// Insight operations (issue 33): the matchups of a ladder's top versions. Thin: parse, ask the matchup
// service, return what it answers; the definition yields the route and its /openapi.json entry.
import { z } from "zod";
import { operationFor } from "../kernel/operation.ts";
import type { BoardInsight } from "./board.ts";
import { MAX_TOP, type MatchupService } from "./matchups.ts";
import type { RegressionAlerts } from "./regression.ts";
import * as S from "./schemas.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export interface InsightServices {
  matchups: MatchupService;
  board: BoardInsight;
  regressions: RegressionAlerts;
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
];
