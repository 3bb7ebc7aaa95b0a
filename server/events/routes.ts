// Event operations: the public list (SPEC 4.1 GET /api/events), the account's event routes (4.5: a browser
// session only, `Cache-Control: private, no-store`, `Vary: Authorization`, a supplied Origin must be this
// site, banned accounts 403) and the event administration (4.6). Thin: parse, call the events service, render.
import { z } from "zod";
import type { AccountRow } from "../accounts/account-store.ts";
import * as R from "../api/responses.ts";
import { errors } from "../errors.ts";
import type { Services } from "../kernel/feature.ts";
import { operationFor } from "../kernel/operation.ts";
import { HOUSE_NAMES, STAT_NAMES } from "../ladders/event-definition.ts";
import { ALT_HEADER, altText, normaliseImage } from "./image.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type EventServices = Pick<Services, "events" | "store" | "accountStore">;
const defineOperation = operationFor<EventServices>();

const EventParams = z.object({ event: z.string().max(64) });
const AchievementParams = z.object({ event: z.string().max(64), id: z.string().max(64) });
const AccountParams = z.object({ event: z.string().max(64), account: z.string().max(128) });
const RevokeParams = z.object({
  event: z.string().max(64),
  account: z.string().max(128),
  id: z.string().max(64),
});
const EventsQuery = z.object({ event: z.string().max(64).optional() });

const required = (name: string, what: string) => ({
  error: (iss: { input?: unknown }) =>
    iss.input === undefined ? `${name} is required` : `${name} must be ${what}`,
});
const ScheduleBody = z
  .object({
    opens_at: z.iso.datetime({ offset: true, ...required("opens_at", "an ISO 8601 instant with an offset") }),
    closes_at: z.iso.datetime({
      offset: true,
      ...required("closes_at", "an ISO 8601 instant with an offset"),
    }),
  })
  .strict();
const SubmissionBody = z
  .object({
    submission_url: z
      .url({ protocol: /^https$/, ...required("submission_url", "an HTTPS address or null") })
      .max(2000)
      .nullable(),
    submission_instructions: z
      .string(required("submission_instructions", "a string (empty for none)"))
      .max(4000, "submission_instructions: at most 4000 characters"),
  })
  .strict();
const OpponentBody = z
  .object({
    bot_id: z.string().min(1).max(64),
    opponent: z.string().min(1).max(64),
  })
  .strict();
const RevokeBody = z
  .object({
    reason: z.string().trim().min(1, "reason is required").max(1000, "reason: at most 1000 characters"),
  })
  .strict();
const ReconcileBody = z.object({ apply: z.boolean().default(false) }).strict();

const Range = z.object({ min: z.number().optional(), max: z.number().optional() });
/** The Event resource (SPEC 2) as /openapi.json documents it. */
export const EventSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  ladder_id: z.string(),
  ladder: R.Ladder,
  opens_at: z.string().nullable(),
  closes_at: z.string().nullable(),
  timezone: z.string().describe("IANA zone for display; times are UTC"),
  enabled: z.boolean(),
  phase: z.enum(["upcoming", "open", "closed"]),
  ready: z.boolean(),
  achievements: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      description: z.string(),
      condition: z
        .object({
          opponent: z.union([z.string(), z.array(z.string())]),
          result: z.array(z.string()).optional(),
          reason: z.array(z.string()).optional(),
          map: z.array(z.string()).optional(),
          version: z.array(z.string()).optional(),
          stats: z.partialRecord(z.enum(STAT_NAMES), Range).optional(),
          matches: z.number().int(),
          distinct_opponents: z.number().int().optional(),
          distinct_maps: z.number().int().optional(),
        })
        .describe("the machine-checkable condition (docs/events.md)"),
      condition_text: z.string(),
    }),
  ),
  opponents: z.array(z.object({ kind: z.string(), name: z.string(), display_name: z.string() })),
  metadata: z
    .object({
      kind: z.enum(["precon", "main", "community"]),
      purpose: z.string(),
      audience: z.string(),
      format: z.string(),
      preparation: z.string(),
    })
    .nullable(),
  image: z.object({ url: z.string(), alt: z.string(), width: z.number(), height: z.number() }).nullable(),
  submission_url: z.string().nullable(),
  submission_instructions: z.string(),
  flag_mode: z.enum(["official", "testing"]),
  revision: z.number().int(),
  unavailable_opponents: z.array(z.string()),
  url: z.string(),
});

const EVENT_404 = { 404: "unknown event (`unknown_event`)" };
const SESSION_ERRORS = {
  401: "no session (`missing_authorization`), or a bot token, agent key or other credential (`invalid_session`)",
  403: "banned account (`account_banned`), foreign Origin (`foreign_origin`)",
};

async function account(ctx: EventServices, ref: string): Promise<AccountRow> {
  const a = await ctx.accountStore.accountByRef(ref);
  if (!a) throw errors.noSuchAccount(ref);
  return a;
}

export const EVENT_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/events",
    operationId: "listEvents",
    summary:
      "Events of visible ladders; an event named by ?event= is included even when its ladder is hidden",
    auth: "none",
    query: EventsQuery,
    errors: EVENT_404,
    doc: { tag: "data", ok: z.array(EventSchema) },
    handle: async ({ query }, ctx) => ctx.events.list(query.event),
  }),
  defineOperation({
    method: "GET",
    path: "/api/account/events/:event/achievements",
    operationId: "eventAchievements",
    summary:
      "The event, this account's active bots and opponent request, and five cards with progress (no flags)",
    auth: "session",
    params: EventParams,
    errors: { ...SESSION_ERRORS, ...EVENT_404 },
    handle: async ({ params, caller }, ctx) => ctx.events.awards.achievements(caller.account, params.event),
  }),
  defineOperation({
    method: "POST",
    path: "/api/account/events/:event/achievements/:id/reveal",
    operationId: "revealFlag",
    summary: "The flag of an earned, non-revoked achievement; repeatable; audited without the value",
    auth: "session",
    params: AchievementParams,
    errors: {
      ...SESSION_ERRORS,
      403: "`enrollment_required`, `achievement_locked`, `achievement_revoked`, `account_banned`, `foreign_origin`",
      404: "`unknown_event`, `unknown_achievement`",
      503: "`flags_unavailable` (the operator configured no flag)",
    },
    handle: async ({ params, caller }, ctx) =>
      ctx.events.awards.reveal(caller.account, params.event, params.id),
  }),
  defineOperation({
    method: "POST",
    path: "/api/account/events/:event/opponent",
    operationId: "requestOpponent",
    summary: `Ask for an official opponent (${HOUSE_NAMES.join(", ")}) the next time the bot queues on the event's ladder`,
    auth: "session",
    params: EventParams,
    body: OpponentBody,
    status: 201,
    errors: {
      ...SESSION_ERRORS,
      400: "`unknown_opponent`",
      403: "`enrollment_required`, `account_banned`, `foreign_origin`",
      404: "`unknown_event`, `no_such_bot`",
      409: "`event_closed`, `bot_offline`, `request_exists`",
      429: "`request_cooldown` (one request per 30 s)",
      503: "`opponents_unavailable`",
    },
    handle: async ({ params, body, caller }, ctx) => {
      await ctx.events.requests.request(caller.account, params.event, body.bot_id, body.opponent);
      return ctx.events.awards.achievements(caller.account, params.event);
    },
  }),
  defineOperation({
    method: "DELETE",
    path: "/api/account/events/:event/opponent",
    operationId: "cancelOpponentRequest",
    summary: "Cancel the pending opponent request; answers the refreshed progress",
    auth: "session",
    params: EventParams,
    errors: { ...SESSION_ERRORS, ...EVENT_404 },
    handle: async ({ params, caller }, ctx) => {
      await ctx.events.requests.cancel(caller.account, params.event);
      return ctx.events.awards.achievements(caller.account, params.event);
    },
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/events",
    operationId: "adminEvents",
    summary: "Every event: readiness, definition, image upload and flags availability, award counts",
    auth: "admin",
    handle: async (_input, ctx) => ctx.events.staff.adminList(true),
  }),
  defineOperation({
    method: "PUT",
    path: "/api/admin/events/:event/schedule",
    operationId: "scheduleEvent",
    summary: "Move an event's window (an event ladder moves with its events; a Public event alone)",
    auth: "admin",
    params: EventParams,
    body: ScheduleBody,
    errors: {
      ...EVENT_404,
      400: "`invalid_window`, `bad_request`",
      409: "`window_started`, `window_closed`, `window_past`",
    },
    handle: async ({ params, body, caller }, ctx) =>
      ctx.events.staff.schedule(caller.account, params.event, body.opens_at, body.closes_at),
  }),
  defineOperation({
    method: "PUT",
    path: "/api/admin/events/:event/submission",
    operationId: "eventSubmission",
    summary: "Set the event's submission link (HTTPS or null) and instructions (at most 4000 characters)",
    auth: "admin",
    params: EventParams,
    body: SubmissionBody,
    errors: { ...EVENT_404, 400: "`bad_request`" },
    handle: async ({ params, body, caller }, ctx) =>
      ctx.events.staff.submission(
        caller.account,
        params.event,
        body.submission_url ?? null,
        body.submission_instructions!,
      ),
  }),
  defineOperation({
    method: "PUT",
    path: "/api/admin/events/:event/image",
    operationId: "eventImage",
    summary: `Upload the event's image: raw PNG, JPEG or WebP with a matching Content-Type; alt text in ${ALT_HEADER}`,
    auth: "admin",
    params: EventParams,
    body: z.unknown(),
    errors: {
      ...EVENT_404,
      400: "`invalid_image`",
      413: "`too_large` (over 5 MB or 24 megapixels)",
      415: "`unsupported_media_type` (other type, or bytes not of the declared type)",
    },
    handle: async ({ params, body, caller, req }, ctx) => {
      ctx.events.require(params.event);
      const alt = altText(req.headers[ALT_HEADER]);
      const img = await normaliseImage(req.headers["content-type"], body);
      return ctx.events.staff.setImage(caller.account, params.event, { ...img, alt });
    },
  }),
  defineOperation({
    method: "DELETE",
    path: "/api/admin/events/:event/image",
    operationId: "deleteEventImage",
    summary: "Remove the event's image",
    auth: "admin",
    params: EventParams,
    errors: EVENT_404,
    handle: async ({ params, caller }, ctx) => ctx.events.staff.deleteImage(caller.account, params.event),
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/events/:event/accounts/:account",
    operationId: "eventAccount",
    summary: "An account's facts, progress and awards in an event (no flags)",
    auth: "admin",
    params: AccountParams,
    errors: { 404: "`unknown_event`, `no_such_account`" },
    handle: async ({ params }, ctx) => {
      ctx.events.require(params.event);
      return ctx.events.awards.accountDetail(params.event, await account(ctx, params.account));
    },
  }),
  defineOperation({
    method: "POST",
    path: "/api/admin/events/:event/accounts/:account/achievements/:id/revoke",
    operationId: "revokeAward",
    summary: "Revoke an account's award with a reason (1-1000 characters); audited",
    auth: "admin",
    params: RevokeParams,
    body: RevokeBody,
    errors: {
      400: "`bad_request`",
      404: "`unknown_event`, `no_such_account`, `unknown_achievement`, `no_such_award`",
    },
    handle: async ({ params, body, caller }, ctx) => {
      ctx.events.require(params.event);
      const target = await account(ctx, params.account);
      return ctx.events.awards.revoke(caller.account, params.event, target, params.id, body.reason);
    },
  }),
  defineOperation({
    method: "POST",
    path: "/api/admin/events/:event/reconcile",
    operationId: "reconcileEvent",
    summary:
      "Recompute awards from retained facts: list what is missing, or restore it with apply (never a revoked one)",
    auth: "admin",
    params: EventParams,
    body: ReconcileBody,
    errors: EVENT_404,
    handle: async ({ params, body, caller }, ctx) =>
      ctx.events.awards.reconcile(caller.account, params.event, body.apply),
  }),
];
