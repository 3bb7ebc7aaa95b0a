// A match's replay file as an operation (the match list, one match and its stats are operations in
// ladders/data-routes.ts).
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { z } from "zod";
import { errors } from "../errors.ts";
import type { Services } from "../kernel/feature.ts";
import { operationFor } from "../kernel/operation.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type ReplayServices = Pick<Services, "reads" | "replays">;
const defineOperation = operationFor<ReplayServices>();

/** `/replays/<match id>.jsonl.gz`: the id is what precedes the suffix. */
export const ReplayParams = z.object({
  file: z
    .string()
    .regex(/^(.+)\.jsonl\.gz$/, "<match id>.jsonl.gz")
    .describe("<match id>.jsonl.gz"),
});

export const REPLAY_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/replays/:file",
    operationId: "getReplay",
    summary: "A match's replay: gzipped JSON Lines with the rules and map embedded",
    auth: "none",
    params: ReplayParams,
    invalidParams: (p) => errors.noReplay(String((p as { file?: unknown }).file)),
    errors: { 404: "`no_replay`: unknown match, or its replay was trimmed" },
    doc: { tag: "data", ok: { media: "application/gzip", description: "the replay file" } },
    handle: async ({ params, reply }, ctx) => {
      const id = params.file.slice(0, -".jsonl.gz".length);
      const path = ctx.replays.pathFor(id);
      const m = path ? await ctx.reads.storedMatch(id) : null;
      if (!path || !m || m.replay_trimmed || !m.replay_file) throw errors.noReplay(id);
      const st = await stat(path).catch(() => null);
      if (!st) throw errors.noReplay(id);
      reply.header("content-type", "application/gzip");
      reply.header("content-length", st.size);
      reply.header("cache-control", "public, max-age=31536000, immutable");
      return reply.send(createReadStream(path));
    },
  }),
];
