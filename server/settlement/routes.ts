// Settlement operations (issue 34, part 4): staff schedule a ladder's settlement; anyone reads its phase and
// its published final standings. Thin: parse, ask the settlement service, return what it answers.
import { z } from "zod";
import { errors } from "../errors.ts";
import type { Events } from "../events/service.ts";
import { operationFor } from "../kernel/operation.ts";
import type { Ladders } from "../ladders/registry.ts";
import { MAX_GAME_BUDGET, MAX_TOP_K } from "./ledger.ts";
import * as S from "./schemas.ts";
import type { SettlementService } from "./service.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export interface SettlementServices {
  settlement: SettlementService;
  /** Every ladder (the staff screen lists each one's phase). */
  ladders: Ladders;
  /** The events (the staff screen offers each one's window to end). */
  events: Pick<Events, "all">;
}
const defineOperation = operationFor<SettlementServices>();

const LadderParams = z.object({ id: z.string().max(64).describe("ladder id") });
const Instant = z.iso.datetime({ offset: true, error: "an ISO 8601 instant with an offset" });
const EventField = z
  .string()
  .max(64)
  .nullable()
  .optional()
  .describe(
    "an event on this ladder whose window the settlement ends: the end defaults to the event's closing and may not follow it",
  );
const ScheduleBody = z
  .object({
    top_k: z
      .number()
      .int()
      .min(2)
      .max(MAX_TOP_K)
      .describe(`how many of the top of the leaderboard settle (2 to ${MAX_TOP_K})`),
    game_budget: z
      .number()
      .int()
      .min(1)
      .max(MAX_GAME_BUDGET)
      .describe(`extra rated games at most (1 to ${MAX_GAME_BUDGET})`),
    starts_at: Instant.optional().describe("when versions freeze; omitted or past: now"),
    ends_at: Instant.optional().describe("the latest end; omitted: the ladder's closing"),
    duration_s: z
      .number()
      .int()
      .min(1)
      .max(30 * 86_400)
      .optional()
      .describe("instead of ends_at"),
    event: EventField,
  })
  .strict();

const LADDER_404 = { 404: "unknown ladder (`unknown_ladder`)" };

export const SETTLEMENT_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/ladders/:id/settlement",
    operationId: "getSettlement",
    summary: "A ladder's settlement phase: frozen top K, extra games played of the budget, the final link",
    auth: "none",
    params: LadderParams,
    errors: { 404: "`unknown_ladder`, or the ladder never had a settlement (`no_settlement`)" },
    doc: { tag: "data", ok: S.Settlement },
    tools: [
      {
        name: "get_settlement",
        description:
          "A ladder's settlement phase (id: the ladder): scheduled, settling or final; the frozen top K and their versions, extra games played of the budget, each game, and the link to the final standings.",
        permission: "register",
      },
    ],
    handle: async ({ params }, ctx) => ctx.settlement.view(params.id),
  }),
  defineOperation({
    method: "GET",
    path: "/api/ladders/:id/settlement/final",
    operationId: "getFinalStandings",
    summary: "The final standings a ladder's latest settlement published (immutable)",
    auth: "none",
    params: LadderParams,
    errors: { 404: "`unknown_ladder`, or no standings published yet (`no_settlement`)" },
    doc: { tag: "data", ok: S.FinalStandings },
    tools: [
      {
        name: "get_final_standings",
        description:
          "The immutable final standings a ladder's latest settlement published (id: the ladder): rank, bot, version, rating, 95 % rank interval and games of every ranked bot.",
        permission: "register",
      },
    ],
    handle: async ({ params }, ctx) => ctx.settlement.final(params.id),
  }),
  defineOperation({
    method: "POST",
    path: "/api/admin/ladders/:id/settlement",
    operationId: "scheduleSettlement",
    summary:
      "End a ladder's window (or a season) with a settlement: frozen versions, extra games among the top K",
    auth: "admin",
    params: LadderParams,
    body: ScheduleBody,
    status: 201,
    invalid: errors.invalidSettlement,
    errors: {
      ...LADDER_404,
      400: "`invalid_settlement` (no end for a ladder or event that never closes, an end after the closing or before the start, an unknown or closed event)",
      409: "`settlement_exists`, `ladder_closed`",
    },
    handle: async ({ params, body, caller }, ctx) =>
      ctx.settlement.staff.create(caller.account, params.id, body),
  }),
  defineOperation({
    method: "PUT",
    path: "/api/admin/ladders/:id/settlement",
    operationId: "editSettlement",
    summary:
      "Change a ladder's settlement before it begins (admins): the body replaces the schedule, read as when scheduling (starts_at omitted: now)",
    auth: "admin",
    params: LadderParams,
    body: ScheduleBody,
    invalid: errors.invalidSettlement,
    errors: {
      400: "`invalid_settlement` (as when scheduling)",
      404: "`unknown_ladder`, or no settlement that has not ended (`no_settlement`)",
      409: "`settlement_started`: it has begun and runs as scheduled",
    },
    handle: async ({ params, body, caller }, ctx) =>
      ctx.settlement.staff.edit(caller.account, params.id, body),
  }),
  defineOperation({
    method: "DELETE",
    path: "/api/admin/ladders/:id/settlement",
    operationId: "cancelSettlement",
    summary: "Cancel a ladder's settlement before it begins (one that has begun runs to its end)",
    auth: "admin",
    params: LadderParams,
    errors: {
      404: "`unknown_ladder`, or no settlement that has not ended (`no_settlement`)",
      409: "`settlement_started`: it has begun",
    },
    handle: async ({ params, caller }, ctx) => ctx.settlement.staff.cancel(caller.account, params.id),
  }),
];
