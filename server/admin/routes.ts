// Admin operations of SPEC 4.6 for accounts, bots, owners, usage and audit. Each is an operation definition
// whose auth rule is `admin` (an admin's access token or agent key; checked once, before anything else) and
// answers privately; a change and its audit entry are one unit of work. A ban is announced as AccountBanned: the bot sockets of the
// account are closed by the listener that app.ts wires, not here.
import { z } from "zod";
import { errors } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { BOT_NAME, HANDLE } from "../kernel/names.ts";
import { operationFor } from "../kernel/operation.ts";
import { operationalPolicy } from "../ladders/policy.ts";
import type { AccountRow } from "../store/account-store.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type AdminServices = Pick<
  Services,
  "accounts" | "hub" | "lobby" | "matches" | "store" | "lifecycle" | "announcements"
> &
  Pick<Kernel, "bus" | "config" | "settings">;
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
  const a = ref.length <= 128 ? await ctx.store.accounts.accountByRef(ref) : null;
  if (!a) throw errors.noSuchAccount(ref);
  return a;
}

async function listed(ctx: AdminServices, a: AccountRow) {
  const { store, accounts } = ctx;
  const bots = await store.accounts.accountBots(a.id);
  const keys = await store.accounts.keys(a.id);
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
  (await ctx.store.accounts.admins())
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
      const bots = await ctx.store.allBots();
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
        audit: await ctx.store.auditEntries(null, 20),
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
      const r = await ctx.store.accounts.searchAccounts(query.q?.trim() || null, query.limit);
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
      const { store, accounts } = ctx;
      const a = await target(ctx, params.ref);
      // No account changes its own role, and a configured admin's status comes from the list alone.
      if (a.id === caller.account.id) throw errors.ownRole();
      if (accounts.configuredAdmin(a)) throw errors.configuredAdmin();
      if (body.role === "admin" && a.banned_at) throw errors.bannedCannotBeAdmin();
      const updated = await store.work(async (u) => {
        const row = await store.accounts.setRole(a.id, body.role, u.q);
        await u.audit("admin", a.handle ?? a.id, { action: "role", role: body.role, by: caller.account.id });
        return row;
      });
      return { handle: updated.handle, role: updated.role, admin: accounts.adminNow(updated) };
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
        const { store, accounts } = ctx;
        const a = await target(ctx, params.ref);
        if (action === "ban" && accounts.adminNow(a)) throw errors.adminAccount();
        const updated = await store.work(async (u) => {
          const row = await store.accounts.setBanned(a.id, action === "ban", u.q);
          await u.audit("admin", a.handle ?? a.id, { action, by: caller.account.id });
          return row;
        });
        // SPEC 3.6: its bots are disconnected and refused while the ban lasts (the listeners do it; the
        // answer waits for them, so the ban has taken effect when the admin reads it).
        if (action === "ban")
          await ctx.bus.emit("AccountBanned", { accountId: a.id, handle: a.handle, by: caller.account.id });
        return listed(ctx, updated);
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
      const { store, accounts } = ctx;
      const a = await target(ctx, params.ref);
      if (accounts.adminNow(a)) throw errors.adminAccount();
      const bots = await store.accounts.accountBots(a.id);
      const banned = await store.work(async (u) => {
        const banned = await store.accounts.deleteAccount(a.id, u.q);
        await u.audit("admin", a.handle ?? a.id, {
          action: "delete_account",
          by: caller.account.id,
          banned_bots: banned,
        });
        return banned;
      });
      await accounts.endSessions(a.id, "account_deleted");
      for (const b of bots) accounts.disconnect(b.id, "banned");
      return { deleted: a.id, handle: a.handle, banned_bots: banned };
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
        const { store, accounts } = ctx;
        const bot = BOT_NAME.test(params.name) ? await store.botByName(params.name) : null;
        if (!bot || bot.house) throw errors.noSuchBot(params.name);
        if (bot.status === "retired" || (action !== "ban" && bot.status === "banned"))
          throw errors.botModerated(bot.status);
        await store.work(async (u) => {
          if (action === "ban") await store.accounts.banBot(bot.id, u.q);
          else await store.setBotStatus(bot.id, action === "suspend" ? "suspended" : "active", u.q);
          await u.audit("admin", bot.name, { action, by: caller.account.id });
        });
        // Committed: close the socket (refused while suspended or banned).
        if (action !== "activate") accounts.disconnect(bot.id, action === "ban" ? "banned" : "suspended");
        const now = await store.botById(bot.id);
        return { name: bot.name, status: now?.status ?? bot.status };
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
      const { store, config } = ctx;
      const made = await store.work(async (u) => {
        const key = await store.accounts.createOwnerKey(body.name, body.max_bots ?? null, u.q);
        if (key === "taken") throw errors.ownerTaken(body.name);
        await u.audit("admin", body.name, { action: "owner_key", by: caller.account.id });
        return key;
      });
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
      (await ctx.store.accounts.ownerKeys()).map((o) => ({
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
      const { store, config } = ctx;
      const now = Date.now();
      const [hour, day, bots] = await Promise.all([
        store.startsSince(new Date(now - 3600_000).toISOString()),
        store.startsSince(new Date(now - 86_400_000).toISOString()),
        store.allBots(),
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
    handle: async ({ query }, ctx) => ctx.store.auditEntries(query.kind ?? null, query.limit),
  }),
];
