// Bot registration and deletion (SPEC 4.2) and the bot-token routes of SPEC 4.3.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.ts";
import { errors } from "../errors.ts";
import { parseInput } from "../kernel/input.ts";
import { useVersion, VersionLimitError } from "../ladder/versions.ts";
import { versionKey } from "../ratings/book.ts";
import type { BotRow, VersionRow } from "../store/types.ts";
import { NewBotName, registerBot, removeBot } from "./account-bots.ts";
import { myBotView, versionView } from "./views.ts";

const BOT_NAME = /^[A-Za-z0-9_-]{2,24}$/;
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

export function botRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { store } = ctx;

  // SPEC 4.2: AccountBearer or OwnerKey; anonymous registration (with `owner`) only on anonymous ladders.
  app.post("/api/bots", { config: { takesBody: true } }, async (req, reply) => {
    const who = await ctx.accounts.registrant(req);
    const b = parseInput(Registration, req.body, errors.invalidBot);
    const made = await registerBot(
      ctx,
      ctx.accounts,
      who,
      b.name,
      who.kind === "anonymous" ? b.owner : undefined,
    );
    reply.code(201);
    return made;
  });

  // SPEC 3.4: an agent key deletes its account's bot that never played; a played one must be retired.
  app.delete("/api/bots/:name", async (req) => {
    const caller = await ctx.accounts.agentBearer(req);
    const { name } = req.params as { name: string };
    const bot = BOT_NAME.test(name) ? await store.botByName(name) : null;
    if (!bot || bot.account_id !== caller.account.id) throw errors.noSuchBot(name);
    return removeBot(ctx, ctx.accounts, bot, "delete", `agent_key:${caller.keyId}`);
  });

  /** The bot behind a BotBearer token, or the SPEC's 401. */
  async function botOf(req: FastifyRequest): Promise<BotRow> {
    const header = req.headers.authorization;
    if (!header) throw errors.missingAuthorization();
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const bot = m ? await store.botByToken(m[1]!) : null;
    if (!bot) throw errors.invalidToken();
    // SPEC 3.6: a banned account's bots are refused here as on the socket.
    if ((await ctx.accounts.admit(bot)) === "account_banned") throw errors.accountBanned();
    return bot;
  }

  async function versionsOf(bot: BotRow) {
    const [versions, records] = await Promise.all([store.versions(bot.id), store.versionRecords(bot.id)]);
    return versions.map((v) =>
      versionView(v, ctx.ladders.main.ratings.get(versionKey(bot.id, v.label)), records.get(v.label)),
    );
  }

  app.get("/api/me", async (req) => {
    const bot = await botOf(req);
    const online = Boolean(ctx.lobby.get(bot.id)?.conn);
    return myBotView(bot, online, await versionsOf(bot));
  });

  app.post("/api/me/versions", { config: { takesBody: true } }, async (req, reply) => {
    const bot = await botOf(req);
    const v = parseInput(NewVersion, req.body);
    let version: VersionRow;
    try {
      ({ version } = await useVersion(store, ctx.settings.limits(), bot, v.label, v.notes ?? ""));
    } catch (err) {
      if (err instanceof VersionLimitError)
        throw errors.quotaExceeded(`${err.message} (new_versions_per_day)`);
      throw err;
    }
    const records = await store.versionRecords(bot.id);
    reply.code(201);
    return versionView(
      version,
      ctx.ladders.main.ratings.get(versionKey(bot.id, version.label)),
      records.get(version.label),
    );
  });

  app.post("/api/me/versions/:label/retire", async (req) => {
    const bot = await botOf(req);
    const { label } = VersionLabelParams.parse(req.params);
    const ok = await store.retireVersion(bot.id, label);
    if (!ok) throw errors.noSuchVersion(label);
    // A retired version cannot play (SPEC 3.4): one waiting in the queue leaves it, and the bot is told.
    const p = ctx.lobby.get(bot.id);
    if (p && !p.house && p.state === "waiting" && p.version === label) {
      p.state = "idle";
      p.conn?.error("version_retired", `version ${JSON.stringify(label)} was retired and left the queue`);
    }
    return { ok: true };
  });

  app.post("/api/me/token", async (req) => {
    const bot = await botOf(req);
    const token = await store.rotateToken(bot.id);
    // The old token stops working at once, including for a connected socket.
    ctx.hub.disconnect(bot.id, "invalid_token");
    return { token };
  });
}
