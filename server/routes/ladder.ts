// Public ladder data of SPEC 4.1 over HTTP: the leaderboard, a bot's page data, its rating history, an owner's
// bots and the lobby. Thin: parse the query, ask the ladder reads service (server/ladders/reads.ts), return.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.ts";
import { parseQuery } from "./matches.ts";

const BOT_NAME = /^[A-Za-z0-9_-]{2,24}$/;

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

export function ladderRoutes(app: FastifyInstance, ctx: AppContext): void {
  // The reads service checks the ladder first, then the name (an invalid name is as unknown as a missing one).
  const nameOf = (params: unknown) => String((params as { name?: unknown }).name);

  app.get("/api/leaderboard", async (req) =>
    ctx.reads.leaderboard(parseQuery(LadderQuery, req.query).ladder),
  );

  app.get("/api/bots/:name", async (req) => {
    const { ladder } = parseQuery(LadderQuery, req.query);
    return ctx.reads.bot(nameOf(req.params), ladder);
  });

  app.get("/api/bots/:name/ratings", async (req) => {
    const q = parseQuery(RatingsQuery, req.query);
    return ctx.reads.ratings(nameOf(req.params), q.ladder, q.days);
  });

  app.get("/api/users/:handle", async (req) => {
    const { ladder } = parseQuery(LadderQuery, req.query);
    const { handle } = HandleParams.parse(req.params);
    return ctx.reads.user(handle, ladder);
  });

  app.get("/api/lobby", async (req) => ctx.reads.lobby(parseQuery(LadderQuery, req.query).ladder));
}
