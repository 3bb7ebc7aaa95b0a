// Public ladder data of SPEC 4.1: the leaderboard, a bot's page data, its rating history, an owner's bots
// and the lobby. Ratings come from the rating book; records and history from storage.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.ts";
import { errors } from "../errors.ts";
import { HEALTH_MATCHES, summariseHealth } from "../ladder/health.ts";
import type { LadderRuntime } from "../ladders/runtime.ts";
import { QUALIFYING_GAMES, versionKey } from "../ratings/book.ts";
import type { BotRow, RatingPointRow } from "../store/types.ts";
import { parseQuery } from "./matches.ts";
import { matchView, versionView } from "./views.ts";

const BOT_NAME = /^[A-Za-z0-9_-]{2,24}$/;
const HISTORY_LIMIT = 1000;
const RECENT_MATCHES = 10;

export const LadderQuery = z.object({ ladder: z.string().optional() });
/** A name that is not a valid bot name cannot name a bot: 404 no_such_bot, as for an unknown one. */
export const BotNameParams = z.object({ name: z.string().regex(BOT_NAME, "2-24 letters, digits, - or _") });
export const HandleParams = z.object({ handle: z.string().describe("owner handle") });
export const RatingsQuery = z.object({
  ladder: z.string().optional(),
  days: z.coerce
    .number({ error: "days must be a number above 0" })
    .positive("days must be a number above 0")
    .optional(),
});

const DIFFICULTY: Record<string, string> = {
  kiter: "Easy",
  brawler: "Medium",
  "ts-starter": "Hard",
  champion: "Very hard",
};

export function ladderRoutes(app: FastifyInstance, ctx: AppContext): void {
  const base = ctx.config.publicUrl;
  const ladderOf = (q: { ladder?: string | undefined }) => ctx.ladders.require(q.ladder);
  const online = (bot: BotRow) => {
    const p = ctx.lobby.get(bot.id);
    return {
      online: Boolean(p && (p.house || p.conn)),
      version: p && (p.house || p.conn) ? p.version : null,
      state: p?.state ?? "idle",
    };
  };

  /** The ladder's leaderboard, from memory (SPEC 1.2 rule 9); `online` as the lobby says now. */
  async function leaderboard(ladder: LadderRuntime) {
    const dir = await ctx.bots.snapshot();
    return ladder.leaderboard.rows(dir, base, (botId, version) => {
      const p = ctx.lobby.get(botId);
      return Boolean(p && (p.house || p.conn)) && p!.version === version;
    });
  }

  app.get("/api/leaderboard", async (req) => leaderboard(ladderOf(parseQuery(LadderQuery, req.query))));

  async function botNamed(params: unknown): Promise<BotRow> {
    const p = BotNameParams.safeParse(params);
    const name = p.success ? p.data.name : String((params as { name?: unknown }).name);
    if (!p.success) throw errors.noSuchBot(name);
    const bot = await ctx.store.botByName(name);
    if (!bot) throw errors.noSuchBot(name);
    return bot;
  }

  app.get("/api/bots/:name", async (req) => {
    const ladder = ladderOf(parseQuery(LadderQuery, req.query));
    const ladderId = ladder.id;
    const bot = await botNamed(req.params);
    const records = ladder.leaderboard.records(bot.id);
    const [versions, listed, recent] = await Promise.all([
      ctx.store.versions(bot.id),
      leaderboard(ladder),
      ctx.store.matches({ ladder: ladderId, botName: bot.name, limit: RECENT_MATCHES }),
    ]);
    const row = listed.find((r) => r.name === bot.name);
    const o = online(bot);
    return {
      name: bot.name,
      display_name: bot.display_name,
      owner: bot.owner,
      owner_url: bot.house ? null : `${base}/user/${encodeURIComponent(bot.owner)}`,
      created: bot.created,
      ladder_id: ladderId,
      house: bot.house,
      online: o.online,
      avatar: bot.avatar,
      online_version: o.online && (o.state === "waiting" || o.state === "playing") ? o.version : null,
      qualifying_games: QUALIFYING_GAMES,
      versions: await Promise.all(
        versions.map(async (v) => ({
          ...versionView(v, ladder.ratings.get(versionKey(bot.id, v.label)), records.get(v.label)),
          rank: row && row.version === v.label ? row.rank : null,
          health: summariseHealth(await ctx.store.versionStats(bot.id, v.label, HEALTH_MATCHES)),
        })),
      ),
      recent_matches: recent.map((m) => matchView(m, base)),
    };
  });

  app.get("/api/bots/:name/ratings", async (req) => {
    const q = parseQuery(RatingsQuery, req.query);
    const ladderId = ladderOf(q).id;
    const bot = await botNamed(req.params);
    const since = q.days === undefined ? null : new Date(Date.now() - q.days * 86_400_000).toISOString();
    const rows = await ctx.store.ratingPoints(bot.id, ladderId, since);
    return { since, games: rows.length, points: sample(rows, HISTORY_LIMIT).map((r) => ratingPoint(bot, r)) };
  });

  app.get("/api/users/:handle", async (req) => {
    const ladder = ladderOf(parseQuery(LadderQuery, req.query));
    const { handle } = HandleParams.parse(req.params);
    const bots = (await ctx.bots.snapshot()).bots.filter(
      (b) => !b.house && b.owner.toLowerCase() === handle.toLowerCase(),
    );
    if (bots.length === 0) throw errors.notFound(`user ${JSON.stringify(handle)}`);
    const board = await leaderboard(ladder);
    return {
      handle: bots[0]!.owner,
      created: bots.map((b) => b.created).sort()[0],
      ladder_id: ladder.id,
      bots: await Promise.all(
        bots.map(async (bot) => {
          const row = board.find((r) => r.name === bot.name);
          const totals = [...ladder.leaderboard.records(bot.id).values()].reduce(
            (t, r) => ({ wins: t.wins + r.wins, losses: t.losses + r.losses, draws: t.draws + r.draws }),
            { wins: 0, losses: 0, draws: 0 },
          );
          return {
            name: bot.name,
            display_name: bot.display_name,
            owner: bot.owner,
            created: bot.created,
            owner_url: `${base}/user/${encodeURIComponent(bot.owner)}`,
            house: false,
            online: online(bot).online,
            retired: bot.status === "retired",
            avatar: bot.avatar,
            version: row?.version ?? null,
            rank: row?.rank ?? null,
            leaderboard_score: row?.leaderboard_score ?? null,
            rating: row?.rating ?? null,
            rating_deviation: row?.rating_deviation ?? null,
            ...totals,
          };
        }),
      ),
    };
  });

  app.get("/api/lobby", async (req) => {
    const ladder = ladderOf(parseQuery(LadderQuery, req.query));
    // House bots serve every ladder; a player's bot shows on the ladder it queues on (or last queued on).
    const here = ctx.lobby.online().filter((p) => p.house || p.ladderId === ladder.id);
    const entries = here.map((p) => {
      const r = p.version ? ladder.ratings.get(versionKey(p.bot.id, p.version)) : null;
      return {
        name: p.bot.name,
        display_name: p.bot.display_name,
        house: p.bot.house,
        version: p.version,
        rating: r ? Math.round(r.rating) : null,
        rating_deviation: r ? Math.round(r.deviation) : null,
        leaderboard_score: r ? r.leaderboardScore : null,
        difficulty: p.house ? (DIFFICULTY[p.bot.name] ?? null) : null,
        avatar: p.bot.avatar,
        state: p.state,
      };
    });
    return entries.sort((a, b) => (b.leaderboard_score ?? -Infinity) - (a.leaderboard_score ?? -Infinity));
  });
}

function ratingPoint(bot: BotRow, r: RatingPointRow) {
  const after = Math.round(r.rating_after ?? 0);
  return {
    match_id: r.match_id,
    ended: r.ended,
    version: r.version,
    rating: after,
    delta: after - Math.round(r.rating_before ?? after),
    result: r.winner === null ? "D" : r.winner === bot.id ? "W" : "L",
    opponent: `${r.opponent.name}@${r.opponent.version}`,
    opponent_display_name: r.opponent.display_name,
    map: r.map,
  };
}

/** An even sample of at most `limit` points that keeps each version's first and last game (SPEC 2). */
export function sample(rows: RatingPointRow[], limit: number): RatingPointRow[] {
  if (rows.length <= limit) return rows;
  const keep = new Set<number>();
  const firstLast = new Map<string, [number, number]>();
  rows.forEach((r, i) => {
    const fl = firstLast.get(r.version);
    firstLast.set(r.version, fl ? [fl[0], i] : [i, i]);
  });
  for (const [a, b] of firstLast.values()) keep.add(a).add(b);
  const room = Math.max(0, limit - keep.size);
  for (let k = 0; k < room; k++) keep.add(Math.floor((k * rows.length) / room));
  return [...keep]
    .sort((a, b) => a - b)
    .slice(0, Math.max(limit, keep.size))
    .map((i) => rows[i]!);
}
