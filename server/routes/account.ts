// Account routes of SPEC 4.4 (browser session only): the account, its handle and email preferences, its
// bots (register, rename, token, avatar, delete or retire, claim) and its agent keys. Every response is
// private and uncacheable; the Accounts service checks the session, ban, origin and handle.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { Accounts, Caller } from "../auth/accounts.ts";
import type { AppContext } from "../context.ts";
import { errors } from "../errors.ts";
import { EMAIL_PREFERENCE_KEYS, MAX_AGENT_KEYS } from "../store/account-store.ts";
import type { BotRow } from "../store/types.ts";
import { AVATARS, BOT_NAME, HANDLE, parseBody, registerBot, removeBot } from "./account-bots.ts";

const HandleBody = z.object({
  handle: z
    .string({ error: "handle is required" })
    .regex(HANDLE, "handle must be 2-39 letters, digits, -, _ or ., starting with a letter or digit"),
});
const Notifications = z
  .object({
    email_announcements: z.boolean({ error: "email_announcements must be a boolean" }).optional(),
    email_preferences: z
      .object(
        Object.fromEntries(
          EMAIL_PREFERENCE_KEYS.map((k) => [
            k,
            z.boolean({ error: `email_preferences.${k} must be a boolean` }).optional(),
          ]),
        ) as Record<(typeof EMAIL_PREFERENCE_KEYS)[number], z.ZodOptional<z.ZodBoolean>>,
      )
      .strict()
      .optional(),
  })
  .strict();
const NameBody = z.object({
  name: z.string({ error: "name is required" }).regex(BOT_NAME, "name must be 2-24 letters, digits, - or _"),
});
const AvatarBody = z.object({
  avatar: z.union([z.string(), z.null()], { error: "avatar must be a string or null" }),
});
const ClaimBody = z.object({ token: z.string({ error: "token is required" }).min(1).max(200) });
const KeyBody = z.object({
  label: z.string().max(64, "label must be at most 64 characters").optional(),
  expires_in_days: z
    .number({ error: "expires_in_days must be a number of days" })
    .int("expires_in_days must be a whole number of days")
    .min(1, "expires_in_days must be 1-365")
    .max(365, "expires_in_days must be 1-365")
    .optional(),
});

export function accountRoutes(app: FastifyInstance, ctx: AppContext, accounts: Accounts): void {
  const { store, config } = ctx;

  async function view(caller: Caller) {
    const a = caller.account;
    const [bots, keys] = await Promise.all([store.accounts.accountBots(a.id), store.accounts.keys(a.id)]);
    return {
      id: a.id,
      handle: a.handle,
      // Sign-ups here are by email, for which SPEC 2 says the suggestion is empty.
      suggested_handle: "",
      max_bots: a.max_bots ?? ctx.settings.limits().maxBotsPerOwner,
      bot_count: bots.filter((b) => b.status !== "retired").length,
      email_announcements: a.email_announcements,
      email_preferences: a.email_preferences,
      admin: accounts.adminNow(a) || caller.admin,
      bots: bots.map((b) => ({
        name: b.name,
        display_name: b.display_name,
        status: b.status,
        played: b.played,
        avatar: b.avatar,
        created: b.created,
        online: Boolean(ctx.lobby.get(b.id)?.conn),
        bot_url: `${config.publicUrl}/bot/${encodeURIComponent(b.name)}`,
      })),
      agent_keys: keys.map((k) => ({
        id: k.id,
        label: k.label,
        created: k.created,
        last_used: k.last_used,
        expires: k.expires,
      })),
      max_agent_keys: MAX_AGENT_KEYS,
      mcp_url: null,
      mcp_clients: [],
    };
  }

  /** The caller's bot by name, or 404 no_such_bot (also for another account's bot: no existence leak). */
  async function ownBot(caller: Caller, name: string): Promise<BotRow> {
    const bot = BOT_NAME.test(name) ? await store.botByName(name) : null;
    if (!bot || bot.account_id !== caller.account.id) throw errors.noSuchBot(name);
    return bot;
  }

  app.get("/api/account", async (req, reply) => view(await accounts.session(req, reply)));

  app.put("/api/account/handle", async (req, reply) => {
    const caller = await accounts.session(req, reply);
    const { handle } = parseBody(HandleBody, req.body, errors.invalidHandle);
    if (handle.toLowerCase() === "house") throw errors.handleTaken(handle);
    const r = await store.accounts.setHandle(caller.account.id, handle);
    if (r === "taken") throw errors.handleTaken(handle);
    for (const b of await store.accounts.accountBots(caller.account.id)) accounts.refreshLive(b);
    await store.audit("handle", handle, { account: caller.account.id, previous: caller.account.handle });
    return view({ ...caller, account: r });
  });

  app.put("/api/account/notifications", async (req, reply) => {
    const caller = await accounts.session(req, reply);
    const b = parseBody(Notifications, req.body);
    const a = await store.accounts.setNotifications(
      caller.account.id,
      b.email_announcements,
      b.email_preferences,
    );
    return view({ ...caller, account: a });
  });

  app.post("/api/account/bots", async (req, reply) => {
    const caller = await accounts.session(req, reply, { handle: true });
    const { name } = parseBody(NameBody, req.body, errors.invalidBot);
    const made = await registerBot(ctx, accounts, caller, name);
    reply.code(201);
    return made;
  });

  app.put("/api/account/bots/:name/name", async (req, reply) => {
    const caller = await accounts.session(req, reply, { handle: true });
    const bot = await ownBot(caller, (req.params as { name: string }).name);
    const { name } = parseBody(NameBody, req.body, errors.invalidBot);
    if (bot.status === "suspended" || bot.status === "banned") throw errors.botModerated(bot.status);
    if (accounts.inMatch(bot.id)) throw errors.botInMatch(bot.name);
    if (name === bot.name) return { name };
    const renamed = await store.accounts.renameBot(bot.id, name);
    if (renamed === "taken") throw errors.invalidBot(`the name ${JSON.stringify(name)} is taken`);
    accounts.refreshLive(renamed);
    await store.audit("rename", renamed.name, { from: bot.name, account: caller.account.id });
    return { name: renamed.name };
  });

  app.post("/api/account/bots/:name/token", async (req, reply) => {
    const caller = await accounts.session(req, reply, { handle: true });
    const bot = await ownBot(caller, (req.params as { name: string }).name);
    if (bot.status === "banned") throw errors.botModerated(bot.status);
    const token = await store.rotateToken(bot.id);
    accounts.disconnect(bot.id, "invalid_token");
    await store.audit("token_rotated", bot.name, { account: caller.account.id });
    return { name: bot.name, token };
  });

  app.put("/api/account/bots/:name/avatar", async (req, reply) => {
    const caller = await accounts.session(req, reply, { handle: true });
    const bot = await ownBot(caller, (req.params as { name: string }).name);
    const { avatar } = parseBody(AvatarBody, req.body);
    if (avatar !== null && !(AVATARS as readonly string[]).includes(avatar))
      throw errors.unknownAvatar(AVATARS);
    await store.accounts.setAvatar(bot.id, avatar);
    accounts.refreshLive({ ...bot, avatar });
    return { name: bot.name, avatar };
  });

  app.delete("/api/account/bots/:name", async (req, reply) => {
    const caller = await accounts.session(req, reply, { handle: true });
    const bot = await ownBot(caller, (req.params as { name: string }).name);
    return removeBot(ctx, accounts, bot, "retire", `account:${caller.account.id}`);
  });

  app.post("/api/account/claim", async (req, reply) => {
    const caller = await accounts.session(req, reply, { handle: true });
    const { token } = parseBody(ClaimBody, req.body);
    const bot = await store.botByToken(token);
    if (!bot) throw errors.invalidToken();
    if (bot.account_id === caller.account.id) return { name: bot.name, owner: caller.account.handle };
    if (bot.account_id !== null || bot.house) throw errors.alreadyClaimed();
    const limit = caller.account.max_bots ?? ctx.settings.limits().maxBotsPerOwner;
    if (bot.status !== "retired" && (await store.accounts.countBots(caller.account.id)) >= limit)
      throw errors.botLimit(limit);
    const handle = caller.account.handle!;
    if (!(await store.accounts.claimBot(bot.id, caller.account.id, handle))) throw errors.alreadyClaimed();
    accounts.refreshLive({ ...bot, account_id: caller.account.id, owner: handle });
    await store.audit("claim", bot.name, { account: caller.account.id, previous_owner: bot.owner });
    return { name: bot.name, owner: handle };
  });

  app.post("/api/account/keys", async (req, reply) => {
    const caller = await accounts.session(req, reply, { handle: true });
    const { label, expires_in_days } = parseBody(KeyBody, req.body);
    await accounts.throttle("key creations", caller.account.id, config.registrationRateLimit, 3600_000);
    const made = await store.accounts.createKey(caller.account.id, label ?? "", expires_in_days ?? null);
    if (made === "limit") throw errors.keyLimit(MAX_AGENT_KEYS);
    await store.audit("agent_key", made.row.id, { account: caller.account.id, action: "created" });
    reply.code(201);
    return {
      id: made.row.id,
      label: made.row.label,
      created: made.row.created,
      expires: made.row.expires,
      key: made.key,
      note: "Keep this key secret: it is shown once. Send it as Authorization: Bearer <key> or X-Owner-Key to register bots.",
    };
  });

  // SPEC 4.4: one minute, single use; connect to /human?ticket=<ticket>&opponent=<house bot>.
  app.post("/api/account/play-ticket", async (req, reply) => {
    const caller = await accounts.session(req, reply, { handle: true });
    return ctx.humanPlay.issue(caller.account);
  });

  app.delete("/api/account/keys/:id", async (req, reply) => {
    const caller = await accounts.session(req, reply);
    const { id } = req.params as { id: string };
    if (!(await store.accounts.revokeKey(caller.account.id, id))) throw errors.noSuchKey(id);
    await store.audit("agent_key", id, { account: caller.account.id, action: "revoked" });
    return { revoked: id };
  });
}
