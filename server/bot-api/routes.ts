// Bot registration and deletion (SPEC 4.2, 3.4) and the bot-token routes of SPEC 4.3, as operation
// definitions: each yields its route, its auth rule and its /openapi.json entry.
import { z } from "zod";
import { NewBotName, ownerOf } from "../accounts/account-bots.ts";
import { clientOf } from "../accounts/accounts.ts";
import * as R from "../api/responses.ts";
import { myBotView, versionView } from "../api/views.ts";
import { useVersion, VersionLimitError } from "../bots/versions.ts";
import { errors } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { BotNameParams } from "../kernel/names.ts";
import { operationFor } from "../kernel/operation.ts";
import { versionKey } from "../ratings/book.ts";
import type { BotRow, VersionRow } from "../store/types.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type BotServices = Pick<
  Services,
  | "accounts"
  | "auditStore"
  | "botLifecycle"
  | "botStore"
  | "insight"
  | "ladders"
  | "lobby"
  | "ratingStore"
  | "store"
> &
  Pick<Kernel, "config" | "settings">;
const defineOperation = operationFor<BotServices>();

/** Body of POST /api/bots; also the request schema in /openapi.json. */
export const Registration = z.object({
  name: NewBotName,
  owner: z
    .string()
    .regex(
      /^[A-Za-z0-9][A-Za-z0-9_.-]{1,38}$/,
      "owner must be 2-39 letters, digits, -, _ or ., starting with a letter or digit",
    )
    .optional(),
});
export const NewVersion = z.object({
  label: z
    .string({ error: "label is required" })
    .min(1, "label must be 1-32 characters")
    .max(32, "label must be 1-32 characters"),
  notes: z.string().max(2000, "notes must be at most 2000 characters").optional(),
});

export const VersionLabelParams = z.object({ label: z.string().describe("version label") });

const BOT_AUTH = {
  401: "`missing_authorization` without the header; `invalid_token` for an unknown or rotated token",
  403: "`account_banned`: the bot's account is banned",
};

function versionOf(
  ctx: BotServices,
  bot: BotRow,
  v: VersionRow,
  records: Awaited<ReturnType<BotServices["ratingStore"]["versionRecords"]>>,
) {
  return versionView(v, ctx.ladders.main.ratings.get(versionKey(bot.id, v.label)), records.get(v.label));
}

export const BOT_OPERATIONS = [
  defineOperation({
    method: "POST",
    path: "/api/bots",
    operationId: "registerBot",
    summary: "Register a bot; the response carries its token, shown once",
    auth: "registrant",
    body: Registration,
    invalid: errors.invalidBot,
    status: 201,
    errors: {
      400: "`invalid_bot`: invalid or taken name",
      401: "`authentication_required` (with `account_url`): no account credential",
      409: "`bot_limit`: the owner has the most bots allowed; `handle_required`: choose a handle first",
    },
    doc: { tag: "registration", ok: R.RegisteredBot },
    handle: async ({ body, caller }, ctx) =>
      ctx.botLifecycle.register(
        await ownerOf(
          ctx,
          ctx.accounts,
          caller,
          body.name,
          caller.kind === "anonymous" ? body.owner : undefined,
        ),
        body.name,
      ),
  }),
  // SPEC 3.4: an agent key deletes its account's bot that never played; a played one must be retired.
  defineOperation({
    method: "DELETE",
    path: "/api/bots/:name",
    operationId: "deleteBot",
    summary:
      "Delete an account's bot that never played (its name is freed); a played bot must be retired from the account instead",
    auth: "agent_key",
    params: BotNameParams,
    invalidParams: (p) => errors.noSuchBot(String((p as { name?: unknown }).name)),
    errors: {
      401: "`missing_authorization`; `invalid_token`: unknown agent key; `invalid_credential`: not an agent key",
      403: "`account_banned`",
      404: "`no_such_bot`: no such bot, or another account's",
      409: "`bot_has_played`: it played, so retire it with DELETE /api/account/bots/<name>; `bot_moderated`",
    },
    doc: { tag: "registration", ok: R.RemovedBot },
    tools: [
      {
        name: "delete_bot",
        description:
          "Delete one of the account's bots that never played (its name is freed). A bot that played answers bot_has_played: retire it instead. Needs the owner's approval to manage bots.",
        // Undoing is managing, not registering: a registration-only grant cannot remove bots (issue 31).
        permission: "manage",
      },
    ],
    handle: async ({ params, caller }, ctx) => {
      const bot = await ctx.botStore.botByName(params.name);
      if (!bot || bot.account_id !== caller.account.id) throw errors.noSuchBot(params.name);
      return ctx.botLifecycle.remove(bot, "delete", clientOf(caller));
    },
  }),
  defineOperation({
    method: "GET",
    path: "/api/me",
    operationId: "getMyBot",
    summary: "The bot behind the token, with its versions",
    auth: "bot_token",
    errors: BOT_AUTH,
    doc: { tag: "bot", ok: R.MyBot },
    handle: async ({ caller: bot }, ctx) => {
      const [versions, records, regressions] = await Promise.all([
        ctx.botStore.versions(bot.id),
        ctx.ratingStore.versionRecords(bot.id),
        ctx.insight.regressions.ofBot(bot),
      ]);
      const online = Boolean(ctx.lobby.get(bot.id)?.conn);
      // Extra field (issue 33): versions rating clearly below their predecessor's.
      return {
        ...myBotView(
          bot,
          online,
          versions.map((v) => versionOf(ctx, bot, v, records)),
        ),
        regressions,
      };
    },
  }),
  defineOperation({
    method: "POST",
    path: "/api/me/versions",
    operationId: "createVersion",
    summary: "Declare a version label ahead of queueing with it (queueing with a new label also creates it)",
    auth: "bot_token",
    body: NewVersion,
    status: 201,
    errors: {
      400: "invalid label or notes (`bad_request`)",
      ...BOT_AUTH,
      429: "`quota_exceeded`: too many new versions today",
    },
    doc: { tag: "bot", ok: R.Version },
    handle: async ({ body, caller: bot }, ctx) => {
      let version: VersionRow;
      try {
        ({ version } = await useVersion(ctx, ctx.settings.limits(), bot, body.label, body.notes ?? ""));
      } catch (err) {
        if (err instanceof VersionLimitError)
          throw errors.quotaExceeded(`${err.message} (new_versions_per_day)`);
        throw err;
      }
      return versionOf(ctx, bot, version, await ctx.ratingStore.versionRecords(bot.id));
    },
  }),
  defineOperation({
    method: "POST",
    path: "/api/me/versions/:label/retire",
    operationId: "retireVersion",
    summary: "Retire a version: it leaves the queue and the leaderboard and cannot play again",
    auth: "bot_token",
    params: VersionLabelParams,
    errors: { ...BOT_AUTH, 404: "`no_such_version`" },
    doc: { tag: "bot", ok: R.Ok },
    handle: async ({ params, caller: bot }, ctx) => {
      const ok = await ctx.botStore.retireVersion(bot.id, params.label);
      if (!ok) throw errors.noSuchVersion(params.label);
      // A retired version cannot play (SPEC 3.4): one waiting in the queue leaves it, and the bot is told.
      const p = ctx.lobby.get(bot.id);
      if (p && !p.house && p.state === "waiting" && p.version === params.label) {
        p.state = "idle";
        p.conn?.error(
          "version_retired",
          `version ${JSON.stringify(params.label)} was retired and left the queue`,
        );
      }
      return { ok: true };
    },
  }),
  defineOperation({
    method: "POST",
    path: "/api/me/token",
    operationId: "rotateToken",
    summary: "Replace the bot token; the old one stops working at once, also on a connected socket",
    auth: "bot_token",
    errors: BOT_AUTH,
    doc: { tag: "bot", ok: R.NewToken },
    handle: async ({ caller: bot }, ctx) => {
      return { token: await ctx.botLifecycle.rotateToken(bot, { client: "bot_token" }) };
    },
  }),
];
