// The open data's addresses (issue 35): `GET /data` lists the ladders with dumps, `GET /data/<ladder>` is a
// ladder's index (every whole day, oldest first, with its address and size) and
// `GET /data/<ladder>/<YYYY-MM-DD>.jsonl.gz` a day's file. A file never changes once listed, so it is cached
// for a year; the indexes change once a day.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { errors } from "../errors.ts";
import type { Kernel, Services } from "../kernel/feature.ts";
import { operationFor } from "../kernel/operation.ts";
import { publicBase } from "../public-address.ts";
import type { OpenDataDumps } from "./dumps.ts";

export type OpenDataServices = Pick<Services, "ladders"> &
  Pick<Kernel, "config" | "log"> & {
    dumps: OpenDataDumps;
    /** Writes every missing day of every ladder (what the daily job runs); one run at a time. */
    catchUp(now?: number): Promise<void>;
  };
const defineOperation = operationFor<OpenDataServices>();

const FORMAT_DOC = "/docs/replays-and-data";

const DumpFile = z.object({
  date: z.string().describe("the UTC day, YYYY-MM-DD"),
  url: z.string().describe("the day's gzip JSON Lines file"),
  bytes: z.number().int(),
});
const LadderDumps = z.object({
  ladder_id: z.string(),
  format: z.string().describe("the line format and how to refit the ratings from the files"),
  files: z.array(DumpFile).describe("every whole day from the ladder's first rated result, oldest first"),
});
const DataIndex = z.object({
  format: z.string(),
  ladders: z.array(
    z.object({
      ladder_id: z.string(),
      index: z.string().describe("the ladder's index of daily files"),
      first: z.string().nullable(),
      last: z.string().nullable(),
      days: z.number().int(),
    }),
  ),
});

const LadderParams = z.object({ ladder: z.string().max(64).describe("ladder id") });
const FileParams = z.object({
  ladder: z.string().max(64).describe("ladder id"),
  file: z.string().max(64).describe("YYYY-MM-DD.jsonl.gz"),
});

function ladderIndex(ctx: OpenDataServices, base: string, ladder: string) {
  return {
    ladder_id: ladder,
    format: `${base}${FORMAT_DOC}`,
    files: ctx.dumps.days(ladder).map((d) => ({
      date: d.day,
      url: `${base}/data/${ladder}/${d.day}.jsonl.gz`,
      bytes: d.bytes,
    })),
  };
}

export const OPEN_DATA_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/data",
    operationId: "getOpenData",
    summary: "Open data: each ladder's daily dumps of rated results (gzip JSON Lines), with their indexes",
    auth: "none",
    doc: { tag: "data", ok: DataIndex },
    handle: async ({ req, reply }, ctx) => {
      const base = publicBase(ctx.config, req);
      reply.header("cache-control", "public, max-age=600");
      return {
        format: `${base}${FORMAT_DOC}`,
        ladders: ctx.ladders.all().map((l) => {
          const days = ctx.dumps.days(l.id);
          return {
            ladder_id: l.id,
            index: `${base}/data/${l.id}`,
            first: days[0]?.day ?? null,
            last: days.at(-1)?.day ?? null,
            days: days.length,
          };
        }),
      };
    },
  }),
  defineOperation({
    method: "GET",
    path: "/data/:ladder",
    operationId: "getLadderDumps",
    summary: "A ladder's daily dumps of rated results: one file per UTC day, oldest first",
    auth: "none",
    params: LadderParams,
    invalidParams: (p) => errors.unknownLadder(String((p as { ladder?: unknown }).ladder)),
    errors: { 404: "`unknown_ladder`" },
    doc: { tag: "data", ok: LadderDumps },
    handle: async ({ params, req, reply }, ctx) => {
      const ladder = ctx.ladders.require(params.ladder).id;
      reply.header("cache-control", "public, max-age=600");
      return ladderIndex(ctx, publicBase(ctx.config, req), ladder);
    },
  }),
  defineOperation({
    method: "GET",
    path: "/data/:ladder/:file",
    operationId: "getLadderDump",
    summary: "One day's rated results of a ladder: gzip JSON Lines, a game per line in the order they ended",
    auth: "none",
    params: FileParams,
    invalidParams: (p) => errors.noDump(String((p as { ladder?: unknown }).ladder), "?"),
    errors: {
      404: "`unknown_ladder`, or `no_dump`: no file for that day (not over yet, or before the ladder's first game)",
    },
    doc: { tag: "data", ok: { media: "application/gzip", description: "the day's dump" } },
    handle: async ({ params, reply }, ctx) => {
      const ladder = ctx.ladders.require(params.ladder).id;
      const path = ctx.dumps.fileFor(ladder, params.file);
      const st = path ? await stat(path).catch(() => null) : null;
      if (!path || !st) throw errors.noDump(ladder, params.file);
      reply.header("content-type", "application/gzip");
      reply.header("content-length", st.size);
      reply.header("cache-control", "public, max-age=31536000, immutable");
      return reply.send(createReadStream(path));
    },
  }),
];

/** `/data/<ladder>/` (the trailing slash a reader may type) leads to a known ladder's index. */
export function openDataPages(app: FastifyInstance, ctx: OpenDataServices): void {
  app.get("/data/:ladder/", async (req, reply) => {
    const { ladder } = req.params as { ladder: string };
    return reply.redirect(`/data/${ctx.ladders.require(ladder).id}`, 301);
  });
}
