// Scrimmage and batch-test operations (issue 34, parts 1 and 2): each definition yields its route, and the
// ones that name tools are MCP tools too. Thin: parse, ask the scrimmage service, return what it answers.
import { z } from "zod";
import { operationFor } from "../kernel/operation.ts";
import { MAX_BATCH_GAMES, MAX_BATCH_OPPONENTS } from "./batches.ts";
import * as S from "./schemas.ts";
import type { ScrimmageService } from "./service.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export interface ScrimmageServices {
  scrimmages: ScrimmageService;
}
const defineOperation = operationFor<ScrimmageServices>();

const SESSION_ERRORS = {
  401: "no session (`missing_authorization`), or a bot token or other credential (`invalid_session`)",
  403: "banned account (`account_banned`), foreign Origin (`foreign_origin`)",
};
const BotParams = z.object({ name: z.string().max(64).describe("the caller's bot") });
const BatchParams = z.object({ id: z.string().max(64).describe("batch id") });
const botName = z.string().min(1).max(64);
const RequestBody = z.object({
  opponent: botName.describe("a house bot, another of your bots, or a bot whose owner allows scrimmages"),
  map: z.string().max(64).optional().describe("a map name; omitted: a random map"),
});
const CancelQuery = z.object({
  id: z.string().max(64).optional().describe("one scrimmage; omitted: every waiting scrimmage of this bot"),
});
const OptInBody = z.object({
  allowed: z.boolean({ error: "allowed must be true or false" }).describe("allow other owners' scrimmages"),
});
const BatchBody = z.object({
  opponents: z
    .array(botName)
    .min(1)
    .max(MAX_BATCH_OPPONENTS)
    .describe("opponents played in turn (house bots, your bots, or bots whose owner allows scrimmages)"),
  games: z.number().int().min(1).max(MAX_BATCH_GAMES).describe(`games in all (1 to ${MAX_BATCH_GAMES})`),
  version: z.string().max(64).optional().describe("play only when the bot queues with this version"),
  map: z.string().max(64).optional().describe("one map for every game; omitted: the maps in turn"),
});

export const SCRIMMAGE_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/account/bots/:name/scrimmages",
    operationId: "listScrimmages",
    summary: "A bot's scrimmages (asked for by it or against it), its opt-in, the limits and its batch tests",
    auth: "session",
    params: BotParams,
    errors: { ...SESSION_ERRORS, 404: "not the caller's bot (`no_such_bot`)" },
    tools: [
      {
        name: "list_scrimmages",
        description:
          "A bot's unrated scrimmages (waiting, playing, finished, with results and replay links), whether other owners may ask it for scrimmages, the owner's scrimmage limits and its batch tests.",
        permission: "register",
      },
    ],
    handle: async ({ params, caller }, ctx) => ctx.scrimmages.requests.list(caller, params.name),
  }),
  defineOperation({
    method: "POST",
    path: "/api/account/bots/:name/scrimmages",
    operationId: "requestScrimmage",
    summary:
      "Ask for an unrated match between this bot and an online opponent; it starts when both have queued",
    auth: "session",
    params: BotParams,
    body: RequestBody,
    status: 201,
    errors: {
      ...SESSION_ERRORS,
      400: "bad map or the bot itself (`bad_request`)",
      403: "the opponent's owner has not opted in (`scrimmages_not_allowed`), `account_banned`, `foreign_origin`",
      404: "`no_such_bot` (yours or the opponent)",
      409: "the opponent is not connected (`opponent_offline`), a moderated bot (`bot_moderated`)",
      429: "the owner's scrimmage limits (`quota_exceeded`)",
    },
    tools: [
      {
        name: "request_scrimmage",
        description:
          "Ask for an unrated scrimmage between one of your bots and an opponent that is online now: a house bot, another of your bots, or a bot whose owner allows scrimmages. It starts when both bots have queued (a bot sees an ordinary hello ... end with mode scrimmage and rating_change null); nothing of it is rated.",
        permission: "register",
      },
    ],
    handle: async ({ params, body, caller }, ctx) =>
      ctx.scrimmages.requests.request(caller, params.name, body.opponent, body.map),
  }),
  defineOperation({
    method: "DELETE",
    path: "/api/account/bots/:name/scrimmages",
    operationId: "cancelScrimmage",
    summary:
      "Cancel a waiting scrimmage of this bot (or all of them): yours are cancelled, other owners' declined",
    auth: "session",
    params: BotParams,
    query: CancelQuery,
    errors: { ...SESSION_ERRORS, 404: "`no_such_bot`, `no_such_scrimmage`" },
    tools: [
      {
        name: "cancel_scrimmage",
        description:
          "Cancel a waiting scrimmage of one of your bots by id, or every waiting one when no id is given; one another owner asked for against your bot is declined.",
        permission: "register",
      },
    ],
    handle: async ({ params, query, caller }, ctx) =>
      ctx.scrimmages.requests.cancel(caller, params.name, query.id),
  }),
  defineOperation({
    method: "PUT",
    path: "/api/account/bots/:name/scrimmages/opt-in",
    operationId: "setScrimmageOptIn",
    summary: "Allow (or stop allowing) other owners to ask this bot for scrimmages; off by default",
    auth: "session",
    params: BotParams,
    body: OptInBody,
    errors: { ...SESSION_ERRORS, 404: "`no_such_bot`" },
    tools: [
      {
        name: "set_scrimmage_opt_in",
        description:
          "Allow or stop allowing other owners to ask one of your bots for unrated scrimmages (off by default). Turning it off declines their waiting requests.",
        permission: "manage",
      },
    ],
    handle: async ({ params, body, caller }, ctx) =>
      ctx.scrimmages.requests.setOptIn(caller, params.name, body.allowed),
  }),
  defineOperation({
    method: "POST",
    path: "/api/account/bots/:name/batches",
    operationId: "startBatchTest",
    summary: "Play N unrated games (at most 100) of this bot against these opponents, as the bots are free",
    auth: "session",
    params: BotParams,
    body: BatchBody,
    status: 201,
    errors: {
      ...SESSION_ERRORS,
      400: "bad games, opponents or map (`bad_request`)",
      403: "an opponent's owner has not opted in (`scrimmages_not_allowed`), `account_banned`, `foreign_origin`",
      404: "`no_such_bot`, `no_such_version`",
      409: "a moderated bot (`bot_moderated`)",
      429: "scrimmages are turned off (`quota_exceeded`)",
    },
    tools: [
      {
        name: "start_batch_test",
        description:
          "Play N unrated games (1 to 100) of one of your bots against a list of opponents in turn, scheduled as the bots are free and the owner's scrimmage limits allow. Answers the batch with its page; get_batch_test reports progress and the summary.",
        permission: "register",
      },
    ],
    handle: async ({ params, body, caller }, ctx) =>
      ctx.scrimmages.batchTests.createBatch(caller, params.name, body),
  }),
  defineOperation({
    method: "GET",
    path: "/api/batches/:id",
    operationId: "getBatchTest",
    summary:
      "A batch test: progress, every game with its replay, and wins, losses, draws and score with a 95 % interval, overall, per opponent and per map",
    auth: "none",
    params: BatchParams,
    errors: { 404: "`no_such_batch`" },
    doc: { tag: "data", ok: S.Batch },
    tools: [
      {
        name: "get_batch_test",
        description:
          "A batch test's progress and summary: wins, losses, draws and score with a 95 % Wilson interval, overall, per opponent and per map, and every game with links to its match page and replay.",
        permission: "register",
      },
    ],
    handle: async ({ params }, ctx) => ctx.scrimmages.batchTests.batch(params.id),
  }),
  defineOperation({
    method: "DELETE",
    path: "/api/account/batches/:id",
    operationId: "cancelBatchTest",
    summary: "Stop a batch test: games not started are dropped, a game playing is played out",
    auth: "session",
    params: BatchParams,
    errors: { ...SESSION_ERRORS, 404: "`no_such_batch` (also another account's)" },
    handle: async ({ params, caller }, ctx) => ctx.scrimmages.batchTests.cancelBatch(caller, params.id),
  }),
];
