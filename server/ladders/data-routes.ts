// The public ladder data of SPEC 4.1 as operation definitions: leaderboard, lobby, a bot, its rating history,
// an owner's bots, the match list, one match and its stats. Each definition yields its route and its
// /openapi.json entry; the handlers ask the ladder reads service (reads.ts) and return what it answers.
import { z } from "zod";
import * as R from "../api/responses.ts";
import { errors } from "../errors.ts";
import type { Services } from "../kernel/feature.ts";
import { BOT_NAME, BOT_NAME_RULE, BotNameParams } from "../kernel/names.ts";
import { operationFor } from "../kernel/operation.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type DataServices = Pick<Services, "accounts" | "insight" | "reads">;
const defineOperation = operationFor<DataServices>();

/** About 270 years: more than any ladder's history. */
const ALL_TIME_DAYS = 100_000;

export const LadderQuery = z.object({ ladder: z.string().optional() });
/** A name that is not a valid bot name cannot name a bot: 404 no_such_bot, as for an unknown one. */
export const HandleParams = z.object({ handle: z.string().describe("owner handle") });
export const RatingsQuery = z.object({
  ladder: z.string().optional(),
  days: z.coerce
    .number({ error: "days must be a number above 0" })
    .positive("days must be a number above 0")
    // A span longer than any history is all time (the largest numbers would not even make a date).
    .transform((d) => (d > ALL_TIME_DAYS ? undefined : d))
    .optional(),
});
export const MatchListQuery = z.object({
  ladder: z.string().optional(),
  bot: z.string().regex(BOT_NAME, `bot must be a bot name: ${BOT_NAME_RULE}`).optional(),
  limit: z.coerce
    .number()
    .int("limit must be an integer from 1 to 500")
    .min(1, "limit must be an integer from 1 to 500")
    .max(500, "limit must be an integer from 1 to 500")
    .default(50),
  stats: z.enum(["1", "true", "0", "false"], { error: "stats must be 1 or true" }).optional(),
  before: z
    .string()
    .min(1, "before must be a match id")
    .max(100, "before must be a match id")
    .describe("a match id: only matches older than it (the next page after a page ending with that match)")
    .optional(),
});
export const MatchIdParams = z.object({ id: z.string().describe("match id") });

export const BAD_QUERY = { 400: "invalid query parameter (`bad_request`)" };
export const LADDER_404 = { 404: "unknown ladder (`?ladder=` names no ladder)" };
const noSuchBot = (params: unknown) => errors.noSuchBot(String((params as { name?: unknown }).name));

export const DATA_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/leaderboard",
    operationId: "getLeaderboard",
    summary: "Ranked bots, each once at its ranked version that last played, best leaderboard_score first",
    auth: "none",
    query: LadderQuery,
    errors: { ...BAD_QUERY, ...LADDER_404 },
    doc: { tag: "data", ok: z.array(R.LeaderboardRow) },
    // Each row with its 95 % rank interval (issue 33; server/insight/board.ts says when it is recomputed): one
    // frozen answer per board and intervals, so its body is serialised once (server/kernel/operation.ts).
    handle: async ({ query }, ctx) => ctx.insight.board.rankedRows(query.ladder),
  }),
  defineOperation({
    method: "GET",
    path: "/api/lobby",
    operationId: "getLobby",
    summary: "Bots online now, with the rating of the version they queued",
    auth: "none",
    query: LadderQuery,
    errors: { ...BAD_QUERY, ...LADDER_404 },
    doc: { tag: "data", ok: z.array(R.LobbyEntry) },
    handle: async ({ query }, ctx) => ctx.reads.lobby(query.ladder),
  }),
  defineOperation({
    method: "GET",
    path: "/api/bots/:name",
    operationId: "getBot",
    summary: "A bot with its versions, their ratings and health, and recent matches",
    auth: "none",
    params: BotNameParams,
    invalidParams: noSuchBot,
    query: LadderQuery,
    errors: { ...BAD_QUERY, 404: "`no_such_bot`, or an unknown ladder" },
    doc: { tag: "data", ok: R.Bot },
    handle: async ({ params, query }, ctx) => ctx.reads.bot(params.name, query.ladder),
  }),
  defineOperation({
    method: "GET",
    path: "/api/bots/:name/ratings",
    operationId: "getBotRatings",
    summary: "A bot's rating after each rated game, oldest first (sampled above 1000 games)",
    auth: "none",
    params: BotNameParams,
    invalidParams: noSuchBot,
    query: RatingsQuery,
    errors: { ...BAD_QUERY, 404: "`no_such_bot`, or an unknown ladder" },
    doc: { tag: "data", ok: R.RatingHistory },
    handle: async ({ params, query }, ctx) => ctx.reads.ratings(params.name, query.ladder, query.days),
  }),
  defineOperation({
    method: "GET",
    path: "/api/users/:handle",
    operationId: "getUser",
    summary: "An owner's bots with their ranks and records",
    auth: "none",
    params: HandleParams,
    query: LadderQuery,
    errors: { ...BAD_QUERY, 404: "unknown or banned user, or an unknown ladder" },
    doc: { tag: "data", ok: R.User },
    handle: async ({ params, query }, ctx) => {
      if (await ctx.accounts.hiddenUser(params.handle))
        throw errors.notFound(`user ${JSON.stringify(params.handle)}`);
      return ctx.reads.user(params.handle, query.ladder);
    },
  }),
  defineOperation({
    method: "GET",
    path: "/api/matches",
    operationId: "listMatches",
    summary:
      "Finished matches, newest first; with stats=1 each carries its stats; before=<match id> pages to older ones",
    auth: "none",
    query: MatchListQuery,
    errors: { ...BAD_QUERY, ...LADDER_404 },
    doc: { tag: "data", ok: z.array(R.Match) },
    handle: async ({ query }, ctx) =>
      ctx.reads.matches({
        limit: query.limit,
        ...(query.ladder !== undefined ? { ladder: query.ladder } : {}),
        ...(query.bot !== undefined ? { bot: query.bot } : {}),
        stats: query.stats === "1" || query.stats === "true",
        ...(query.before !== undefined ? { before: query.before } : {}),
      }),
  }),
  defineOperation({
    method: "GET",
    path: "/api/matches/:id",
    operationId: "getMatch",
    summary: "One finished match",
    auth: "none",
    params: MatchIdParams,
    errors: { 404: "`no_such_match`" },
    doc: { tag: "data", ok: R.Match },
    handle: async ({ params }, ctx) => ctx.reads.match(params.id),
  }),
  defineOperation({
    method: "GET",
    path: "/api/matches/:id/stats",
    operationId: "getMatchStats",
    summary: "Per-fighter statistics of a match",
    auth: "none",
    params: MatchIdParams,
    errors: { 404: "`no_such_match`; `no_stats` when the match was voided or its replay trimmed" },
    doc: { tag: "data", ok: R.MatchStatsBody },
    handle: async ({ params }, ctx) => ctx.reads.stats(params.id),
  }),
];
