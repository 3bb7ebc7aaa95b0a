// Public match data: the match list, one match, its stats, and its replay file.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.ts";
import { errors } from "../errors.ts";

const BOT_NAME = /^[A-Za-z0-9_-]{2,24}$/;

export const MatchListQuery = z.object({
  ladder: z.string().optional(),
  bot: z.string().regex(BOT_NAME, "bot must be a bot name: 2-24 letters, digits, - or _").optional(),
  limit: z.coerce
    .number()
    .int("limit must be an integer from 1 to 500")
    .min(1, "limit must be an integer from 1 to 500")
    .max(500, "limit must be an integer from 1 to 500")
    .default(50),
  stats: z.enum(["1", "true", "0", "false"], { error: "stats must be 1 or true" }).optional(),
});

export const MatchIdParams = z.object({ id: z.string().describe("match id") });
/** `/replays/<match id>.jsonl.gz`: the id is what precedes the suffix. */
export const ReplayParams = z.object({
  file: z
    .string()
    .regex(/^(.+)\.jsonl\.gz$/, "<match id>.jsonl.gz")
    .describe("<match id>.jsonl.gz"),
});

export function parseQuery<T extends z.ZodType>(schema: T, query: unknown): z.infer<T> {
  const r = schema.safeParse(query);
  if (!r.success) throw errors.badRequest(r.error.issues.map((i) => i.message).join("; "));
  return r.data;
}

export function matchRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/matches", async (req) => {
    const q = parseQuery(MatchListQuery, req.query);
    return ctx.reads.matches({
      limit: q.limit,
      ...(q.ladder !== undefined ? { ladder: q.ladder } : {}),
      ...(q.bot !== undefined ? { bot: q.bot } : {}),
      stats: q.stats === "1" || q.stats === "true",
    });
  });

  app.get("/api/matches/:id", async (req) => ctx.reads.match(MatchIdParams.parse(req.params).id));

  app.get("/api/matches/:id/stats", async (req) => ctx.reads.stats(MatchIdParams.parse(req.params).id));

  app.get("/replays/:file", async (req, reply) => {
    const { file } = req.params as { file: string };
    const id = ReplayParams.safeParse(req.params).success ? file.slice(0, -".jsonl.gz".length) : "";
    const path = ctx.replays.pathFor(id);
    const m = path ? await ctx.store.match(id) : null;
    if (!path || !m || m.replay_trimmed || !m.replay_file) throw errors.noReplay(id || file);
    const st = await stat(path).catch(() => null);
    if (!st) throw errors.noReplay(id);
    reply.header("content-type", "application/gzip");
    reply.header("content-length", st.size);
    reply.header("cache-control", "public, max-age=31536000, immutable");
    return reply.send(createReadStream(path));
  });
}
