// Ladder operations: the public list (SPEC 4.1), the account's ladders and enrollment (4.4), and the admin
// ladder screens: definitions, members, approvals and invitations (4.6). Thin: parse, call the membership
// service, render. The auth rule of each is part of its definition.
import { z } from "zod";
import type { AccountRow } from "../accounts/account-store.ts";
import * as R from "../api/responses.ts";
import { errors } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { operationFor } from "../kernel/operation.ts";
import { moveWindow } from "./schedule.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type LadderServices = Pick<
  Services,
  "ladders" | "ladderTables" | "membership" | "store" | "accountStore"
> &
  Pick<Kernel, "bus" | "config" | "scheduler">;
const defineOperation = operationFor<LadderServices>();

const LadderParams = z.object({ id: z.string().max(64) });
const MemberParams = z.object({ id: z.string().max(64), account: z.string().max(128) });
const InvitationParams = z.object({ id: z.string().max(64), invitation: z.string().max(64) });
export const LaddersQuery = z.object({ ladder: z.string().max(64).optional() });
const EnrollmentBody = z
  .object({
    invitation: z.string().min(1).max(200, "invitation codes are at most 200 characters").optional(),
  })
  .strict();
const ReasonBody = z
  .object({ reason: z.string().min(1).max(1000, "reason: at most 1000 characters").optional() })
  .strict();
const InvitationBody = z.object({ account: z.string().min(1).max(128).optional() }).strict();

const LADDER_404 = { 404: "unknown ladder (`unknown_ladder`)" };
const Instant = z.iso
  .datetime({ offset: true, error: "an ISO 8601 instant with an offset, or null" })
  .nullable();
const ScheduleBody = z
  .object({
    opens_at: Instant.refine((v) => v !== undefined, "opens_at is required (null: open from the start)"),
    closes_at: Instant.refine((v) => v !== undefined, "closes_at is required (null: never closes)"),
  })
  .strict();

async function account(ctx: LadderServices, ref: string): Promise<AccountRow> {
  const a = await ctx.accountStore.accountByRef(ref);
  if (!a) throw errors.noSuchAccount(ref);
  return a;
}

export const LADDER_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/ladders",
    operationId: "listLadders",
    summary: "Visible ladders with phase and window; a hidden ladder named by ?ladder= is included",
    auth: "none",
    query: LaddersQuery,
    errors: LADDER_404,
    doc: { tag: "data", ok: z.array(R.Ladder) },
    handle: async ({ query }, ctx) =>
      ctx.ladders.listed(query.ladder).map((l) => l.view(ctx.config.publicUrl)),
  }),
  defineOperation({
    method: "GET",
    path: "/api/account/ladders",
    operationId: "accountLadders",
    summary: "Ladder definitions with this account's membership (null, pending, active, revoked)",
    auth: "session",
    tools: [
      {
        name: "list_my_ladders",
        description:
          "The ladders with this account's membership on each (null, pending, active, revoked), enrollment policy, phase and window; `ladder` names a hidden one.",
        permission: "register",
        result: (ladders) => ({ ladders }),
      },
    ],
    query: LaddersQuery,
    errors: LADDER_404,
    handle: async ({ query, caller }, ctx) =>
      ctx.membership.accountLadders(caller.account.id, ctx.config.publicUrl, query.ladder),
  }),
  defineOperation({
    method: "POST",
    path: "/api/account/ladders/:id/enrollment",
    operationId: "enroll",
    summary:
      "Enroll on a ladder: open ladders at once, approval ladders as pending, invitation ladders with a code",
    auth: "session",
    params: LadderParams,
    body: EnrollmentBody,
    errors: {
      ...LADDER_404,
      403: "`invitation_required`, `invalid_invitation`, `membership_revoked`",
      409: "`ladder_closed`, `ladder_disabled`, `invitation_used`",
    },
    tools: [
      {
        name: "enroll_ladder",
        description:
          "Enroll the account on a ladder (id): open ladders at once, approval ladders as pending, invitation ladders with an invitation code. Needs the owner's approval to manage.",
        permission: "manage",
        result: (ladders) => ({ ladders }),
      },
    ],
    handle: async ({ params, body, caller }, ctx) => {
      await ctx.membership.enroll(caller.account, params.id, body.invitation);
      return ctx.membership.accountLadders(caller.account.id, ctx.config.publicUrl, params.id);
    },
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/ladders",
    operationId: "adminLadders",
    summary: "Every ladder's definition, hidden and disabled ones included",
    auth: "admin",
    handle: async (_input, ctx) => ctx.ladders.all().map((l) => l.view(ctx.config.publicUrl)),
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/ladders/:id",
    operationId: "adminLadder",
    summary: "One ladder's definition with its members and invitations",
    auth: "admin",
    params: LadderParams,
    errors: LADDER_404,
    handle: async ({ params }, ctx) => ctx.membership.detail(params.id, ctx.config.publicUrl),
  }),
  ...(["approve", "revoke"] as const).map((action) =>
    defineOperation({
      method: "POST",
      path: `/api/admin/ladders/:id/members/:account/${action}`,
      operationId: `${action}Member`,
      summary: action === "approve" ? "Approve a pending (or revoked) member" : "Revoke a membership",
      auth: "admin",
      params: MemberParams,
      body: ReasonBody,
      errors: { ...LADDER_404, 409: "`invalid_transition`" },
      handle: async ({ params, body, caller }, ctx) => {
        ctx.ladders.require(params.id);
        const target = await account(ctx, params.account);
        return ctx.membership[action](caller.account, params.id, target, body.reason);
      },
    }),
  ),
  defineOperation({
    method: "PUT",
    path: "/api/admin/ladders/:id/schedule",
    operationId: "moveLadderWindow",
    summary: "Move a ladder's window (only the future moves); outranks the manifest, also after a restart",
    auth: "admin",
    params: LadderParams,
    body: ScheduleBody,
    invalid: errors.invalidWindow,
    errors: {
      ...LADDER_404,
      400: "`invalid_window`",
      409: "`window_started`, `window_closed`, `window_past`",
    },
    handle: async ({ params, body, caller }, ctx) =>
      moveWindow(
        {
          store: ctx.store,
          ladderTables: ctx.ladderTables,
          ladders: ctx.ladders,
          scheduler: ctx.scheduler,
          bus: ctx.bus,
          publicUrl: ctx.config.publicUrl,
        },
        caller.account,
        params.id,
        body.opens_at,
        body.closes_at,
      ),
  }),
  defineOperation({
    method: "POST",
    path: "/api/admin/ladders/:id/invitations",
    operationId: "createInvitation",
    summary: "A single-use invitation for one account or for anyone; the code is shown once",
    auth: "admin",
    params: LadderParams,
    body: InvitationBody,
    status: 201,
    errors: { ...LADDER_404, 409: "`not_invitation_ladder`" },
    handle: async ({ params, body, caller }, ctx) => {
      ctx.ladders.require(params.id);
      const target = body.account ? await account(ctx, body.account) : null;
      return ctx.membership.invite(caller.account, params.id, target);
    },
  }),
  defineOperation({
    method: "DELETE",
    path: "/api/admin/ladders/:id/invitations/:invitation",
    operationId: "deleteInvitation",
    summary: "Delete an invitation (used or not)",
    auth: "admin",
    params: InvitationParams,
    errors: { ...LADDER_404, 404: "unknown ladder or invitation" },
    handle: async ({ params, caller }, ctx) =>
      ctx.membership.uninvite(caller.account, params.id, params.invitation),
  }),
];
