// Admin operations of SPEC 4.6 for accounts, bots, owners, usage and audit. Each is an operation definition
// whose auth rule is `admin` (an admin's access token or agent key; checked once, before anything else) and
// answers privately. The changes are the moderation service's (moderation.ts: each change and its audit entry one
// unit of work, then its effect on the live server); these only find the target and shape the answer.
import { z } from "zod";
import type { AccountRow } from "../accounts/account-store.ts";
import { errors } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { BOT_NAME, HANDLE } from "../kernel/names.ts";
import { operationFor } from "../kernel/operation.ts";
import { operationalPolicy } from "../ladders/policy.ts";
import type { Moderation } from "./moderation.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type AdminServices = Pick<
  Services,
  | "accounts"
  | "accountStore"
  | "auditStore"
  | "botStore"
  | "identity"
  | "hub"
  | "lobby"
  | "matches"
  | "matchStore"
  | "store"
  | "lifecycle"
  | "announcements"
> &
  Pick<Kernel, "config" | "settings"> & { moderation: Moderation };
const defineOperation = operationFor<AdminServices>();

const RoleBody = z.object({ role: z.enum(["admin", "player"], { error: "role must be admin or player" }) });
const OwnerBody = z.object({
  name: z
    .string({ error: "name is required" })
    .regex(HANDLE, "name must be 2-39 letters, digits, -, _ or ., starting with a letter or digit"),
  max_bots: z.number().int().min(1, "max_bots must be at least 1").max(100_000).optional(),
});
const Limit = (def: number, max: number) =>
  z.coerce
    .number({ error: "limit must be a number" })
    .int("limit must be an integer")
    .min(1, `limit must be 1-${max}`)
    .max(max, `limit must be 1-${max}`)
    .default(def);
const AccountsQuery = z.object({ q: z.string().max(100).optional(), limit: Limit(50, 500) });
const AuditQuery = z.object({ kind: z.string().max(64).optional(), limit: Limit(100, 1000) });
const RefParams = z.object({ ref: z.string() });
const NameParams = z.object({ name: z.string() });

async function target(ctx: AdminServices, ref: string): Promise<AccountRow> {
  const a = ref.length <= 128 ? await ctx.accountStore.accountByRef(ref) : null;
  if (!a) throw errors.noSuchAccount(ref);
  return a;
}

async function listed(ctx: AdminServices, a: AccountRow) {
  const { accountStore, accounts } = ctx;
  const bots = await accountStore.accountBots(a.id);
  const keys = await accountStore.keys(a.id);
  return {
    id: a.id,
    handle: a.handle,
    created: a.created,
    admin: accounts.adminNow(a),
    configured: accounts.configuredAdmin(a),
    banned: a.banned_at,
    bots: bots.map((b) => ({ name: b.name, status: b.status, online: Boolean(ctx.lobby.get(b.id)?.conn) })),
    keys: keys.length,
    key_last_used: keys.reduce<string | null>(
      (m, k) => (k.last_used && (!m || k.last_used > m) ? k.last_used : m),
      null,
    ),
  };
}

/**
 * The admins by handle. Addresses never leave the service, so an admin without a handle yet has none here; in
 * the overview `you` marks the caller's own entry, which the console names by the email it signed in with.
 */
const admins = async (ctx: AdminServices, callerId?: string) =>
  (await ctx.accountStore.admins())
    .filter((a) => ctx.accounts.adminNow(a))
    .map((a) => ({
      handle: a.handle,
      configured: ctx.accounts.configuredAdmin(a),
      ...(callerId === undefined ? {} : { you: a.id === callerId }),
    }));

export const ADMIN_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/admin/overview",
    operationId: "adminOverview",
    summary: "You, the admins, server status, bot moderation states and recent audit entries",
    auth: "admin",
    handle: async ({ caller }, ctx) => {
      const bots = await ctx.botStore.allBots();
      return {
        you: { id: caller.account.id, handle: caller.account.handle, via: caller.kind },
        admins: await admins(ctx, caller.account.id),
        status: {
          connected_bots: ctx.hub.connections,
          running_matches: ctx.matches.size,
          max_concurrent: ctx.settings.limits().maxConcurrentMatches,
          draining: ctx.lifecycle.draining(),
        },
        bots: {
          total: bots.length,
          by_status: Object.fromEntries(
            (["active", "suspended", "banned", "retired"] as const).map((s) => [
              s,
              bots.filter((b) => b.status === s).length,
            ]),
          ),
          moderated: bots
            .filter((b) => b.status === "suspended" || b.status === "banned")
            .map((b) => ({ name: b.name, status: b.status, owner: b.owner })),
        },
        announcements: await ctx.announcements.list(),
        audit: await ctx.auditStore.auditEntries(null, 20),
      };
    },
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/admins",
    operationId: "adminAdmins",
    summary: "The admins, and whether each is one by the configured email list",
    auth: "admin",
    handle: async (_input, ctx) => admins(ctx),
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/accounts",
    operationId: "adminAccounts",
    summary: "Accounts, newest first; q matches handle, id or bot name",
    auth: "admin",
    query: AccountsQuery,
    handle: async ({ query }, ctx) => {
      const r = await ctx.accountStore.searchAccounts(query.q?.trim() || null, query.limit);
      return {
        total: r.total,
        found: r.found,
        accounts: await Promise.all(r.accounts.map((a) => listed(ctx, a))),
      };
    },
  }),
  defineOperation({
    method: "POST",
    path: "/api/admin/accounts/:ref/role",
    operationId: "adminRole",
    summary: "Give or take the admin role",
    auth: "admin",
    params: RefParams,
    body: RoleBody,
    handle: async ({ params, body, caller }, ctx) => {
      const a = await target(ctx, params.ref);
      const updated = await ctx.moderation.setRole(a, body.role, caller.account.id);
      return { handle: updated.handle, role: updated.role, admin: ctx.accounts.adminNow(updated) };
    },
  }),
  ...(["ban", "unban"] as const).map((action) =>
    defineOperation({
      method: "POST",
      path: `/api/admin/accounts/:ref/${action}`,
      operationId: action === "ban" ? "adminBan" : "adminUnban",
      summary: action === "ban" ? "Ban an account (not an admin)" : "Lift an account's ban",
      auth: "admin",
      params: RefParams,
      handle: async ({ params, caller }, ctx) => {
        const a = await target(ctx, params.ref);
        return listed(ctx, await ctx.moderation.setBanned(a, action === "ban", caller.account.id));
      },
    }),
  ),
  defineOperation({
    method: "DELETE",
    path: "/api/admin/accounts/:ref",
    operationId: "adminDeleteAccount",
    summary: "Delete an account (not an admin); its bots are banned but keep their names and history",
    auth: "admin",
    params: RefParams,
    handle: async ({ params, caller }, ctx) => {
      const a = await target(ctx, params.ref);
      const { bannedBots } = await ctx.moderation.deleteAccount(a, caller.account.id);
      return { deleted: a.id, handle: a.handle, banned_bots: bannedBots };
    },
  }),
  ...(["suspend", "activate", "ban"] as const).map((action) =>
    defineOperation({
      method: "POST",
      path: `/api/admin/bots/:name/${action}`,
      operationId: `adminBot${action[0]!.toUpperCase()}${action.slice(1)}`,
      summary: `${action[0]!.toUpperCase()}${action.slice(1)} a bot (SPEC 3.5)`,
      auth: "admin",
      params: NameParams,
      handle: async ({ params, caller }, ctx) => {
        const bot = BOT_NAME.test(params.name) ? await ctx.botStore.botByName(params.name) : null;
        if (!bot || bot.house) throw errors.noSuchBot(params.name);
        return { name: bot.name, status: await ctx.moderation.moderateBot(bot, action, caller.account.id) };
      },
    }),
  ),
  defineOperation({
    method: "POST",
    path: "/api/admin/owners",
    operationId: "adminCreateOwner",
    summary: "A legacy owner key (anonymous local ladders only); shown once",
    auth: "admin",
    body: OwnerBody,
    status: 201,
    handle: async ({ body, caller }, ctx) => {
      const { config } = ctx;
      const made = await ctx.moderation.createOwnerKey(body.name, body.max_bots ?? null, caller.account.id);
      return {
        name: made.row.name,
        max_bots: made.row.max_bots,
        owner_key: made.key,
        note: config.anonymousDev
          ? "Shown once. Send it as X-Owner-Key to register bots on this anonymous local ladder."
          : "Shown once. Legacy owner keys register bots only on anonymous local ladders; this ladder refuses them.",
      };
    },
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/owners",
    operationId: "adminOwners",
    summary: "Owners (legacy owner keys) and their bots",
    auth: "admin",
    handle: async (_input, ctx) =>
      (await ctx.accountStore.ownerKeys()).map((o) => ({
        name: o.name,
        max_bots: o.max_bots,
        created: o.created,
        bots: o.bots,
      })),
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/usage",
    operationId: "adminUsage",
    summary: "Limits in force, capacity, each bot's matches in the last hour and day, per-owner totals",
    auth: "admin",
    handle: async (_input, ctx) => {
      const { config } = ctx;
      const now = Date.now();
      const [hour, day, bots] = await Promise.all([
        ctx.matchStore.startsSince(new Date(now - 3600_000).toISOString()),
        ctx.matchStore.startsSince(new Date(now - 86_400_000).toISOString()),
        ctx.botStore.allBots(),
      ]);
      const owners = new Set([...hour.byOwner.keys(), ...day.byOwner.keys()]);
      return {
        limits: {
          ...operationalPolicy(config, ctx.settings.limits()),
          registrationsPerHourPerAccount: config.registrationRateLimit,
          authRequestsPerMinutePerAddress: config.authRateLimit,
        },
        capacity: { running: ctx.matches.size, max: ctx.settings.limits().maxConcurrentMatches },
        bots: bots
          .filter((b) => hour.byBot.has(b.id) || day.byBot.has(b.id))
          .map((b) => ({
            name: b.name,
            owner: b.owner,
            house: b.house,
            last_hour: hour.byBot.get(b.id) ?? 0,
            last_day: day.byBot.get(b.id) ?? 0,
          })),
        owners: [...owners].sort().map((o) => ({
          owner: o,
          last_hour: hour.byOwner.get(o) ?? 0,
          last_day: day.byOwner.get(o) ?? 0,
        })),
      };
    },
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/audit",
    operationId: "adminAudit",
    summary: "Registrations, throttling and admin actions, newest first",
    auth: "admin",
    query: AuditQuery,
    handle: async ({ query }, ctx) => ctx.auditStore.auditEntries(query.kind ?? null, query.limit),
  }),
];
