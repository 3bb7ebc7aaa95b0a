// What the account routes and the registration routes share about bots: name and handle formats, the
// avatar list, registering a bot for an account (or an anonymous/legacy owner), and the delete-or-retire
// lifecycle of SPEC 3.4.
import { z } from "zod";
import { errors } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { BOT_NAME, BOT_NAME_RULE } from "../kernel/names.ts";
import { NameTakenError } from "../store/sql-store.ts";
import type { BotRow } from "../store/types.ts";
import { type Accounts, clientOf, type Registrant } from "./accounts.ts";

/**
 * Names no bot may take, in any letter case (SPEC 7.1 `invalid_bot`): the words of the service's own paths (a
 * bot named `admin` or `me` would read as part of the service, `/bot/admin` as one of its pages; the words of
 * routes the SPEC announces are kept too), and the names every JavaScript object already has (`__proto__`,
 * `constructor`, ...), with which a lookup by name finds the prototype's member instead of a bot.
 * test/server/tester-findings.test.ts checks the path words against the running server's routes.
 */
/** What registering and removing a bot read: the store, the live lobby, the config and the live limits. */
export type RegistrationDeps = Pick<Services, "store" | "lobby"> & Pick<Kernel, "config" | "settings">;

export const RESERVED_BOT_NAMES: ReadonlySet<string> = new Set(
  [
    // Path words of the running routes and sockets.
    ...["api", "bots", "bot", "me", "versions", "retire", "token", "matches", "match", "live", "stats"],
    ...["ratings", "adr"],
    ...["leaderboard", "lobby", "ladders", "ladder", "sections", "users", "user", "account", "handle"],
    ...["notifications", "name", "avatar", "claim", "keys", "play-ticket", "play", "enrollment", "admin"],
    ...["members", "approve", "revoke", "schedule", "invitations", "settings", "preview", "presets"],
    ...["overview", "owners", "admins", "accounts", "role", "ban", "unban", "audit", "suspend", "activate"],
    ...["usage", "assets", "openapi", "docs", "rules", "schema", "download", "guide", "changelog"],
    ...["create-bot", "llms", "sitemap", "robots", "replays", "view", "auth", "v1", "health", "signup"],
    ...["jwks", "resend", "recover", "verify", "logout", "human", "status", "well-known"],
    // The operator's route, served when metrics are turned on (--metrics-token).
    "metrics",
    // The tool endpoint's OAuth server (server/mcp).
    ...["oauth", "authorize", "authorization", "oauth-authorization-server", "oauth-protected-resource"],
    ...["clients", "register"],
    // Issue 33: an owner's diagnostics of a match, and the guides' pictures.
    ...["diagnostics", "images"],
    // The home page's featured match (server/spectate), the mail and replay administration, the starters' page.
    ...["featured", "resolve", "trim", "starters"],
    // Rank intervals and matchups (server/insight).
    "matchups",
    // Scrimmages and batch tests (server/scrimmages).
    ...["scrimmages", "scrimmage", "opt-in", "batches", "batch"],
    // Tournaments (server/tournaments).
    ...["tournaments", "tournament"],
    // A ladder's settlement and its final standings (server/settlement).
    ...["settlement", "final"],
    // The embeddable viewer (server/replay-share) and the open data dumps (server/opendata).
    ...["embed", "data", "dumps"],
    // Words of the SPEC's event, announcement, email and tool-endpoint routes.
    ...["mcp", "events", "announcements", "analytics", "emails", "email", "unsubscribe", "achievements"],
    ...["opponent", "reveal", "reconcile", "image", "submission", "incidents", "publish", "archive", "retry"],
    // Not bots: the house owner, human seats, and what a missing value prints as.
    ...["house", "human", "anonymous", "null", "undefined", "nan"],
    // Every object's own members.
    ...Object.getOwnPropertyNames(Object.prototype),
    "prototype",
  ]
    .filter((w) => BOT_NAME.test(w))
    .map((w) => w.toLowerCase()),
);

/** The name a bot is registered or renamed to. */
export const NewBotName = z
  .string({ error: "name is required" })
  .regex(BOT_NAME, `name must be ${BOT_NAME_RULE}`)
  .superRefine((name, ctx) => {
    if (RESERVED_BOT_NAMES.has(name.toLowerCase()))
      ctx.addIssue({ code: "custom", message: `the name ${JSON.stringify(name)} is reserved` });
  });

/** SPEC 2 Avatars: cosmetic, or null for the plain orb. */
export const AVATARS = [
  "gladiator",
  "ronin",
  "berserker",
  "titan",
  "sentinel",
  "cyclops",
  "reaper",
  "shade",
  "arcanist",
  "monarch",
  "jester",
  "brute",
  "prowler",
  "alpha",
  "sage",
  "wyrm",
  "specter",
  "sunny",
  "corsair",
  "luchador",
] as const;

const NOTE =
  "Keep this token secret: it is shown once. Connect with the header Authorization: Bearer <token>.";

/**
 * Registers a bot for whoever the registrant is. For an account, the owner is always its handle (an `owner`
 * field proves nothing); anonymous and legacy-owner registrations exist only on anonymous local ladders.
 */
export async function registerBot(
  ctx: RegistrationDeps,
  accounts: Accounts | null,
  who: Registrant,
  name: string,
  anonymousOwner?: string,
) {
  const { store, config } = ctx;
  let owner: string;
  let limit = ctx.settings.limits().maxBotsPerOwner;
  let accountId: string | null = null;
  let actor: string;
  if (who.kind === "session" || who.kind === "agent_key" || who.kind === "mcp_client") {
    owner = who.account.handle!;
    accountId = who.account.id;
    limit = who.account.max_bots ?? ctx.settings.limits().maxBotsPerOwner;
    actor = clientOf(who);
    await accounts?.throttle("bot registrations", who.account.id, config.registrationRateLimit, 3600_000);
  } else if (who.kind === "owner_key") {
    owner = who.owner.name;
    limit = who.owner.max_bots ?? ctx.settings.limits().maxBotsPerOwner;
    actor = `owner_key:${who.owner.id}`;
  } else {
    // Without an owner, a bot owns itself: bots of one owner never meet, so a shared "anonymous" owner
    // would keep every anonymous bot from playing another.
    owner = anonymousOwner ?? name;
    if (owner.toLowerCase() === "house") throw errors.invalidBot("the owner name house is reserved");
    actor = "anonymous";
  }
  const count = accountId ? await store.accounts.countBots(accountId) : await store.countActiveBots(owner);
  if (count >= limit) throw errors.botLimit(limit);
  try {
    const { bot, token } = await store.work(async (u) => {
      const made = await store.createBot({ name, owner, house: false, account_id: accountId }, u.q);
      await u.audit("registration", made.bot.name, { owner, client: actor });
      return made;
    });
    return {
      name: bot.name,
      token: token!,
      bot_endpoint: `${config.publicUrl.replace(/^http/, "ws")}/bot`,
      note: NOTE,
    };
  } catch (err) {
    if (err instanceof NameTakenError) throw errors.invalidBot(`the name ${JSON.stringify(name)} is taken`);
    throw err;
  }
}

/**
 * SPEC 3.4. "retire" (DELETE /api/account/bots): a bot that never played is deleted, one that played is
 * retired. "delete" (DELETE /api/bots): only a bot that never played is deleted; a played one is refused
 * with bot_has_played unless it is retired already. Moderated bots cannot be removed.
 */
export async function removeBot(
  ctx: RegistrationDeps,
  accounts: Accounts,
  bot: BotRow,
  mode: "retire" | "delete",
  actor: string,
): Promise<{ name: string; outcome: "deleted" | "retired" }> {
  const { store } = ctx;
  if (bot.status === "suspended" || bot.status === "banned") throw errors.botModerated(bot.status);
  if (bot.status === "retired") return { name: bot.name, outcome: "retired" };
  // A bot in its first match has played, even though the result is not stored yet.
  const played = accounts.inMatch(bot.id) || (await store.accounts.hasPlayed(bot.id));
  const deleted =
    !played &&
    (await store.work(async (u) => {
      const gone = await store.accounts.deleteUnplayedBot(bot.id, u.q);
      if (gone) await u.audit("bot_deleted", bot.name, { client: actor });
      return gone;
    }));
  if (deleted) {
    accounts.disconnect(bot.id, "invalid_token");
    ctx.lobby.leaveIfGone(bot.id);
    return { name: bot.name, outcome: "deleted" };
  }
  if (mode === "delete") throw errors.botHasPlayed(bot.name);
  await store.work(async (u) => {
    await store.setBotStatus(bot.id, "retired", u.q);
    await u.audit("bot_retired", bot.name, { client: actor });
  });
  accounts.disconnect(bot.id, "retired");
  return { name: bot.name, outcome: "retired" };
}
