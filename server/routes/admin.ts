// Admin routes of SPEC 4.6 for accounts, bots, owners, usage and audit. Every route needs an admin's access
// token or agent key (Accounts.admin), answers privately, and audits what it changes.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Accounts } from "../auth/accounts.ts";
import type { AppContext } from "../context.ts";
import { errors } from "../errors.ts";
import { operationalPolicy } from "../ladder/policy.ts";
import type { AccountRow } from "../store/account-store.ts";
import { BOT_NAME, HANDLE, parseBody } from "./account-bots.ts";

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

export function adminRoutes(app: FastifyInstance, ctx: AppContext, accounts: Accounts): void {
  const { store, config } = ctx;

  async function target(ref: string): Promise<AccountRow> {
    const a = ref.length <= 128 ? await store.accounts.accountByRef(ref) : null;
    if (!a) throw errors.noSuchAccount(ref);
    return a;
  }

  async function listed(a: AccountRow) {
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

  app.get("/api/admin/overview", async (req, reply) => {
    const you = await accounts.admin(req, reply);
    const bots = await store.allBots();
    const admins = (await store.accounts.admins()).filter((a) => accounts.adminNow(a));
    return {
      you: { id: you.account.id, handle: you.account.handle, via: you.kind },
      admins: admins.map((a) => ({ handle: a.handle, configured: accounts.configuredAdmin(a) })),
      status: {
        connected_bots: ctx.hub.connections,
        running_matches: ctx.matches.size,
        max_concurrent: ctx.settings.limits().maxConcurrentMatches,
        draining: ctx.draining,
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
      announcements: [],
      audit: await store.auditEntries(null, 20),
    };
  });

  app.get("/api/admin/admins", async (req, reply) => {
    await accounts.admin(req, reply);
    const admins = (await store.accounts.admins()).filter((a) => accounts.adminNow(a));
    return admins.map((a) => ({ handle: a.handle, configured: accounts.configuredAdmin(a) }));
  });

  app.get("/api/admin/accounts", async (req, reply) => {
    await accounts.admin(req, reply);
    const q = parseBody(AccountsQuery, req.query);
    const r = await store.accounts.searchAccounts(q.q?.trim() || null, q.limit);
    return { total: r.total, found: r.found, accounts: await Promise.all(r.accounts.map(listed)) };
  });

  app.post("/api/admin/accounts/:ref/role", async (req, reply) => {
    const you = await accounts.admin(req, reply);
    const a = await target((req.params as { ref: string }).ref);
    const { role } = parseBody(RoleBody, req.body);
    // No account changes its own role, and a configured admin's status comes from the list alone.
    if (a.id === you.account.id) throw errors.ownRole();
    if (accounts.configuredAdmin(a)) throw errors.configuredAdmin();
    if (role === "admin" && a.banned_at) throw errors.bannedCannotBeAdmin();
    const updated = await store.accounts.setRole(a.id, role);
    await store.audit("admin", a.handle ?? a.id, { action: "role", role, by: you.account.id });
    return { handle: updated.handle, role: updated.role, admin: accounts.adminNow(updated) };
  });

  for (const action of ["ban", "unban"] as const) {
    app.post(`/api/admin/accounts/:ref/${action}`, async (req, reply) => {
      const you = await accounts.admin(req, reply);
      const a = await target((req.params as { ref: string }).ref);
      if (action === "ban" && accounts.adminNow(a)) throw errors.adminAccount();
      const updated = await store.accounts.setBanned(a.id, action === "ban");
      if (action === "ban") {
        // SPEC 3.6: its bots are disconnected and refused while the ban lasts.
        for (const b of await store.accounts.accountBots(a.id)) accounts.disconnect(b.id, "account_banned");
      }
      await store.audit("admin", a.handle ?? a.id, { action, by: you.account.id });
      return listed(updated);
    });
  }

  app.delete("/api/admin/accounts/:ref", async (req, reply) => {
    const you = await accounts.admin(req, reply);
    const a = await target((req.params as { ref: string }).ref);
    if (accounts.adminNow(a)) throw errors.adminAccount();
    const bots = await store.accounts.accountBots(a.id);
    const banned = await store.accounts.deleteAccount(a.id);
    await accounts.endSessions(a.id, "account_deleted");
    for (const b of bots) accounts.disconnect(b.id, "banned");
    await store.audit("admin", a.handle ?? a.id, {
      action: "delete_account",
      by: you.account.id,
      banned_bots: banned,
    });
    return { deleted: a.id, handle: a.handle, banned_bots: banned };
  });

  for (const action of ["suspend", "activate", "ban"] as const) {
    app.post(`/api/admin/bots/:name/${action}`, async (req, reply) => {
      const you = await accounts.admin(req, reply);
      const { name } = req.params as { name: string };
      const bot = BOT_NAME.test(name) ? await store.botByName(name) : null;
      if (!bot || bot.house) throw errors.noSuchBot(name);
      if (action === "suspend") {
        if (bot.status === "banned" || bot.status === "retired") throw errors.botModerated(bot.status);
        await store.setBotStatus(bot.id, "suspended");
        accounts.disconnect(bot.id, "suspended");
      } else if (action === "activate") {
        if (bot.status === "banned" || bot.status === "retired") throw errors.botModerated(bot.status);
        await store.setBotStatus(bot.id, "active");
      } else {
        if (bot.status === "retired") throw errors.botModerated(bot.status);
        await store.accounts.banBot(bot.id);
        accounts.disconnect(bot.id, "banned");
      }
      await store.audit("admin", bot.name, { action, by: you.account.id });
      const now = await store.botById(bot.id);
      return { name: bot.name, status: now?.status ?? bot.status };
    });
  }

  app.post("/api/admin/owners", async (req, reply) => {
    const you = await accounts.admin(req, reply);
    const b = parseBody(OwnerBody, req.body);
    const made = await store.accounts.createOwnerKey(b.name, b.max_bots ?? null);
    if (made === "taken") throw errors.ownerTaken(b.name);
    await store.audit("admin", b.name, { action: "owner_key", by: you.account.id });
    reply.code(201);
    return {
      name: made.row.name,
      max_bots: made.row.max_bots,
      owner_key: made.key,
      note: config.anonymousDev
        ? "Shown once. Send it as X-Owner-Key to register bots on this anonymous local ladder."
        : "Shown once. Legacy owner keys register bots only on anonymous local ladders; this ladder refuses them.",
    };
  });

  app.get("/api/admin/owners", async (req, reply) => {
    await accounts.admin(req, reply);
    return (await store.accounts.ownerKeys()).map((o) => ({
      name: o.name,
      max_bots: o.max_bots,
      created: o.created,
      bots: o.bots,
    }));
  });

  app.get("/api/admin/usage", async (req, reply) => {
    await accounts.admin(req, reply);
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
  });

  app.get("/api/admin/audit", async (req, reply) => {
    await accounts.admin(req, reply);
    const q = parseBody(AuditQuery, req.query);
    return store.auditEntries(q.kind ?? null, q.limit);
  });
}
