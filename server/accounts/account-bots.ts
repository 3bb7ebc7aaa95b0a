// What the account routes and the registration routes share about bots: the name rule with its reserved words,
// the avatar list, and who owns a bot being registered (an account, a legacy owner key, an anonymous local bot).
// The changes themselves are the bot lifecycle's (server/bots/lifecycle.ts).
import { z } from "zod";
import type { BotOwner } from "../bots/lifecycle.ts";
import { errors } from "../errors.ts";
import type { Kernel } from "../kernel/feature.ts";
import { BOT_NAME, BOT_NAME_RULE } from "../kernel/names.ts";
import { type Accounts, clientOf, type Registrant } from "./accounts.ts";

/**
 * Names no bot may take, in any letter case (SPEC 7.1 `invalid_bot`): the words of the service's own paths (a
 * bot named `admin` or `me` would read as part of the service, `/bot/admin` as one of its pages; the words of
 * routes the SPEC announces are kept too), and the names every JavaScript object already has (`__proto__`,
 * `constructor`, ...), with which a lookup by name finds the prototype's member instead of a bot.
 * test/server/tester-findings.test.ts checks the path words against the running server's routes.
 */
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

/**
 * Who owns a bot being registered, and its limit: for an account, always its handle (an `owner` field proves
 * nothing), throttled per account; anonymous and legacy-owner registrations exist only on anonymous local
 * ladders. The bot lifecycle (server/bots/lifecycle.ts) registers it.
 */
export async function ownerOf(
  ctx: Pick<Kernel, "config" | "settings">,
  accounts: Accounts | null,
  who: Registrant,
  name: string,
  anonymousOwner?: string,
): Promise<BotOwner> {
  const limits = ctx.settings.limits();
  if (who.kind === "session" || who.kind === "agent_key" || who.kind === "mcp_client") {
    await accounts?.throttle("bot registrations", who.account.id, ctx.config.registrationRateLimit, 3600_000);
    return {
      name: who.account.handle!,
      accountId: who.account.id,
      limit: who.account.max_bots ?? limits.maxBotsPerOwner,
      client: clientOf(who),
    };
  }
  if (who.kind === "owner_key")
    return {
      name: who.owner.name,
      accountId: null,
      limit: who.owner.max_bots ?? limits.maxBotsPerOwner,
      client: `owner_key:${who.owner.id}`,
    };
  // Without an owner, a bot owns itself: bots of one owner never meet, so a shared "anonymous" owner would keep
  // every anonymous bot from playing another.
  const owner = anonymousOwner ?? name;
  if (owner.toLowerCase() === "house") throw errors.invalidBot("the owner name house is reserved");
  return { name: owner, accountId: null, limit: limits.maxBotsPerOwner, client: "anonymous" };
}
