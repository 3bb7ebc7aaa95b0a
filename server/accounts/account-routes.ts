// Account routes of SPEC 4.4 (browser session only): the account, its handle and email preferences, its
// bots (register, rename, token, avatar, delete or retire, claim) and its agent keys. Every response is
// private and uncacheable. Each is an operation definition whose auth rule (`session`, or `session_handle` where a
// handle must be chosen first) is checked once, before anything else, by the Accounts service (session, ban,
// origin, handle).
import { z } from "zod";
import { errors } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { BOT_NAME, HANDLE } from "../kernel/names.ts";
import { operationFor } from "../kernel/operation.ts";
import type { BotRow } from "../store/types.ts";
import { AVATARS, NewBotName, ownerOf } from "./account-bots.ts";
import type { AccountChanges } from "./account-changes.ts";
import { EMAIL_PREFERENCE_KEYS, MAX_AGENT_KEYS } from "./account-store.ts";
import { type Caller, clientOf } from "./accounts.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type AccountServices = Pick<
  Services,
  | "accounts"
  | "accountStore"
  | "botLifecycle"
  | "botStore"
  | "humanPlay"
  | "insight"
  | "lobby"
  | "mcp"
  | "store"
> &
  Pick<Kernel, "config" | "settings"> & { changes: AccountChanges };
const defineOperation = operationFor<AccountServices>();

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
const NameBody = z.object({ name: NewBotName });
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

/** The Account resource of SPEC 2. */
async function view(ctx: AccountServices, caller: Caller) {
  const { config, accounts } = ctx;
  const a = caller.account;
  const [bots, keys, regressions] = await Promise.all([
    ctx.accountStore.accountBots(a.id),
    ctx.accountStore.keys(a.id),
    ctx.insight.regressions.ofAccount(a.id),
  ]);
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
    mcp_url: ctx.mcp?.enabled() ? ctx.mcp.oauth.at.resource : null,
    mcp_clients: ctx.mcp ? await ctx.mcp.oauth.clients(a.id) : [],
    // Extra field (issue 33): the account's bot versions that rate clearly below their predecessor.
    regressions,
  };
}

/** The caller's bot by name, or 404 no_such_bot (also for another account's bot: no existence leak). */
async function ownBot(ctx: AccountServices, caller: Caller, name: string): Promise<BotRow> {
  const bot = BOT_NAME.test(name) ? await ctx.botStore.botByName(name) : null;
  if (!bot || bot.account_id !== caller.account.id) throw errors.noSuchBot(name);
  return bot;
}

const NameParams = z.object({ name: z.string() });
const IdParams = z.object({ id: z.string() });

export const ACCOUNT_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/account",
    operationId: "account",
    summary: "The account: handle, limits, email preferences, bots and agent keys",
    auth: "session",
    tools: [
      {
        name: "whoami",
        description:
          "The account this credential acts for: handle (null until chosen), bot limit and count, its bots, agent keys and approved clients.",
        permission: "register",
      },
      {
        name: "list_my_bots",
        description:
          "The account's bots: name, status (active, retired, suspended, banned), whether each has played, online, and its page.",
        permission: "register",
        result: (a) => ({ bots: (a as { bots: unknown[] }).bots }),
      },
    ],
    handle: async ({ caller }, ctx) => view(ctx, caller),
  }),
  defineOperation({
    method: "PUT",
    path: "/api/account/handle",
    operationId: "setHandle",
    summary: "Choose or change the handle; renames the owner on the account's bots",
    auth: "session",
    body: HandleBody,
    invalid: errors.invalidHandle,
    handle: async ({ caller, body }, ctx) =>
      view(ctx, { ...caller, account: await ctx.changes.setHandle(caller.account, body.handle) }),
  }),
  defineOperation({
    method: "PUT",
    path: "/api/account/notifications",
    operationId: "setNotifications",
    summary: "Email announcements and per-category email preferences; omitted values unchanged",
    auth: "session",
    body: Notifications,
    handle: async ({ caller, body }, ctx) => {
      const a = await ctx.accountStore.setNotifications(
        caller.account.id,
        body.email_announcements,
        body.email_preferences,
      );
      return view(ctx, { ...caller, account: a });
    },
  }),
  defineOperation({
    method: "POST",
    path: "/api/account/bots",
    operationId: "accountRegisterBot",
    summary: "Register a bot; its token is shown once",
    auth: "session_handle",
    tools: [
      {
        name: "register_bot",
        description:
          "Register a bot for the account (name: 2-24 letters, digits, - or _). The answer's token is shown once: store it where the bot program reads it (e.g. ARENA_TOKEN) and connect to bot_endpoint with Authorization: Bearer <token>.",
        permission: "register",
      },
    ],
    body: NameBody,
    invalid: errors.invalidBot,
    status: 201,
    handle: async ({ caller, body }, ctx) =>
      ctx.botLifecycle.register(await ownerOf(ctx, ctx.accounts, caller, body.name), body.name),
  }),
  defineOperation({
    method: "PUT",
    path: "/api/account/bots/:name/name",
    operationId: "renameBot",
    summary: "Rename a bot (not while moderated or in a match)",
    auth: "session_handle",
    params: NameParams,
    body: NameBody,
    invalid: errors.invalidBot,
    handle: async ({ caller, params, body }, ctx) =>
      ctx.botLifecycle.rename(await ownBot(ctx, caller, params.name), body.name, caller.account.id),
  }),
  defineOperation({
    method: "POST",
    path: "/api/account/bots/:name/token",
    operationId: "rotateBotToken",
    summary: "A new token for a bot; the old one stops working at once",
    auth: "session_handle",
    params: NameParams,
    handle: async ({ caller, params }, ctx) => {
      const bot = await ownBot(ctx, caller, params.name);
      if (bot.status === "banned") throw errors.botModerated(bot.status);
      return {
        name: bot.name,
        token: await ctx.botLifecycle.rotateToken(bot, { account: caller.account.id }),
      };
    },
  }),
  defineOperation({
    method: "PUT",
    path: "/api/account/bots/:name/avatar",
    operationId: "setAvatar",
    summary: "A bot's avatar, or null for the plain orb",
    auth: "session_handle",
    params: NameParams,
    body: AvatarBody,
    handle: async ({ caller, params, body }, ctx) => {
      const bot = await ownBot(ctx, caller, params.name);
      const { avatar } = body;
      if (avatar !== null && !(AVATARS as readonly string[]).includes(avatar))
        throw errors.unknownAvatar(AVATARS);
      await ctx.botLifecycle.setAvatar(bot, avatar);
      return { name: bot.name, avatar };
    },
  }),
  defineOperation({
    method: "DELETE",
    path: "/api/account/bots/:name",
    operationId: "removeBot",
    summary: "Delete a bot that never played, or retire one that has",
    auth: "session_handle",
    params: NameParams,
    tools: [
      {
        name: "retire_bot",
        description:
          "Retire one of the account's bots (it leaves the ladder for good; its history stays), or delete it if it never played. Needs the owner's approval to manage bots.",
        permission: "manage",
      },
    ],
    handle: async ({ caller, params }, ctx) => {
      const bot = await ownBot(ctx, caller, params.name);
      return ctx.botLifecycle.remove(bot, "retire", clientOf(caller));
    },
  }),
  defineOperation({
    method: "POST",
    path: "/api/account/claim",
    operationId: "claimBot",
    summary: "Move a bot into this account with its token; keeps its token, versions and history",
    auth: "session_handle",
    body: ClaimBody,
    handle: async ({ caller, body }, ctx) => {
      const bot = await ctx.botStore.botByToken(body.token);
      if (!bot) throw errors.invalidToken();
      if (bot.account_id === caller.account.id) return { name: bot.name, owner: caller.account.handle };
      const handle = caller.account.handle!;
      const limit = caller.account.max_bots ?? ctx.settings.limits().maxBotsPerOwner;
      await ctx.botLifecycle.claim(bot, { id: caller.account.id, handle }, limit);
      return { name: bot.name, owner: handle };
    },
  }),
  defineOperation({
    method: "POST",
    path: "/api/account/keys",
    operationId: "createAgentKey",
    summary: "An agent key (at most 10 per account), optionally expiring; shown once",
    auth: "session_handle",
    body: KeyBody,
    status: 201,
    handle: async ({ caller, body }, ctx) => {
      const made = await ctx.changes.createKey(
        caller.account.id,
        body.label ?? "",
        body.expires_in_days ?? null,
      );
      return {
        id: made.row.id,
        label: made.row.label,
        created: made.row.created,
        expires: made.row.expires,
        key: made.key,
        note: "Keep this key secret: it is shown once. Send it as Authorization: Bearer <key> or X-Owner-Key to register bots.",
      };
    },
  }),
  // SPEC 4.4: one minute, single use; connect to /human?ticket=<ticket>&opponent=<house bot>.
  defineOperation({
    method: "POST",
    path: "/api/account/play-ticket",
    operationId: "playTicket",
    summary: "A single-use, one-minute ticket for the /human socket",
    auth: "session_handle",
    handle: async ({ caller }, ctx) => ctx.humanPlay.issue(caller.account),
  }),
  defineOperation({
    method: "DELETE",
    path: "/api/account/keys/:id",
    operationId: "revokeAgentKey",
    summary: "Revoke an agent key at once",
    auth: "session",
    params: IdParams,
    handle: async ({ caller, params }, ctx) => {
      await ctx.changes.revokeKey(caller.account.id, params.id);
      return { revoked: params.id };
    },
  }),
];
