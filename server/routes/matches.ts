// A match's replay file (the match list, one match and its stats are operations in ladders/data-routes.ts),
// and the query parser the remaining plain routes share.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.ts";
import { errors } from "../errors.ts";

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
  app.get("/replays/:file", async (req, reply) => {
    const { file } = req.params as { file: string };
    const id = ReplayParams.safeParse(req.params).success ? file.slice(0, -".jsonl.gz".length) : "";
    const path = ctx.replays.pathFor(id);
    const m = path ? await ctx.reads.storedMatch(id) : null;
    if (!path || !m || m.replay_trimmed || !m.replay_file) throw errors.noReplay(id || file);
    const st = await stat(path).catch(() => null);
    if (!st) throw errors.noReplay(id);
    reply.header("content-type", "application/gzip");
    reply.header("content-length", st.size);
    reply.header("cache-control", "public, max-age=31536000, immutable");
    return reply.send(createReadStream(path));
  });
}
