// An owner's replays in one archive (issue 35): `GET /api/account/bots/<name>/replays`, optionally filtered by
// the bot's version and the opponent's name, answers a zip of the stored replay files (`<match_id>.jsonl.gz`,
// each as the ladder serves it at /replays/<id>.jsonl.gz, so `arena-sim verify` checks every one).
//
// Zip rather than tar: it opens by a double click on every desktop, and fflate (already used for the starter
// downloads) writes it as a stream. The files are gzip already, so they are stored, not compressed again.
// Nothing is built in memory: the matches are read from the database a page at a time and each file is read in
// chunks as the client takes them (a generator behind a Readable, so a slow client slows the reading).
import { open } from "node:fs/promises";
import { Readable } from "node:stream";
import type { FastifyReply } from "fastify";
import { Zip, ZipPassThrough } from "fflate";
import { z } from "zod";
import type { Caller } from "../accounts/accounts.ts";
import type { Db } from "../db/db.ts";
import { errors } from "../errors.ts";
import type { Services } from "../kernel/feature.ts";
import { BOT_NAME } from "../kernel/names.ts";
import type { ReplayFiles } from "../replays.ts";

/** Matches read from the database per query while the archive is sent. */
const PAGE = 200;

export interface ArchiveFilter {
  botId: string;
  /** The bot's own version label, or null for all. */
  version: string | null;
  /** The opponent's bot name (as it was in the match, or its current name), or null for all. */
  opponent: string | null;
}

export interface ArchivedReplay {
  match_id: string;
  ended: Date;
}

/** The bot's matches that have a stored replay and pass the filter, oldest first, a page at a time. */
export async function* archivedReplays(db: Db, f: ArchiveFilter): AsyncGenerator<ArchivedReplay> {
  let after = -1;
  for (;;) {
    const rows = await db.query<{ id: string; ended: string | Date; seq: string | number }>(
      `SELECT m.id, m.ended, me.seq
       FROM match_bots me
       JOIN matches m ON m.id = me.match_id
       JOIN match_bots op ON op.match_id = me.match_id AND op.fighter <> me.fighter
       WHERE me.bot_id = $1 AND me.seq > $2 AND m.replay_file IS NOT NULL AND NOT m.replay_trimmed
         AND ($3::text IS NULL OR me.version = $3::text)
         AND ($4::text IS NULL OR lower(op.name) = lower($4::text)
              OR op.bot_id IN (SELECT id FROM bots WHERE lower(name) = lower($4::text)))
       ORDER BY me.seq
       LIMIT ${PAGE}`,
      [f.botId, after, f.version, f.opponent],
    );
    for (const r of rows) yield { match_id: String(r.id), ended: new Date(r.ended) };
    if (rows.length < PAGE) return;
    after = Number(rows[rows.length - 1]!.seq);
  }
}

/**
 * A zip of the replay files, written as the reader pulls: each entry's bytes go out as they are read. A file
 * gone since its row was read (trimmed meanwhile) is left out rather than failing the whole download.
 */
export function replayZip(replays: ReplayFiles, matches: AsyncIterable<ArchivedReplay>): Readable {
  async function* bytes(): AsyncGenerator<Uint8Array> {
    const out: Uint8Array[] = [];
    const zip = new Zip((err, chunk) => {
      if (err) throw err;
      out.push(chunk);
    });
    const flush = function* () {
      while (out.length > 0) yield out.shift()!;
    };
    for await (const m of matches) {
      const path = replays.pathFor(m.match_id);
      const fh = path ? await open(path, "r").catch(() => null) : null;
      if (!fh) continue;
      const entry = new ZipPassThrough(`${m.match_id}.jsonl.gz`);
      entry.mtime = m.ended;
      zip.add(entry);
      for await (const chunk of fh.createReadStream()) {
        entry.push(chunk as Buffer);
        yield* flush();
      }
      entry.push(new Uint8Array(0), true);
      yield* flush();
    }
    zip.end();
    yield* flush();
  }
  return Readable.from(bytes(), { objectMode: false });
}

export type ArchiveServices = Pick<Services, "botStore" | "store" | "replays"> & { db: Db };

const ARCHIVE_NAME = /^[A-Za-z0-9_-]+$/;

export const ArchiveQuery = z.object({
  version: z
    .string({ error: "version must be a version label" })
    .min(1, "version must be a version label")
    .max(64, "version must be at most 64 characters")
    .optional()
    .describe("only matches the bot played with this version"),
  opponent: z
    .string({ error: "opponent must be a bot name" })
    .regex(BOT_NAME, "opponent must be a bot name")
    .optional()
    .describe("only matches against the bot of this name"),
});

/** Checks the caller owns the bot and sends its filtered replays as a zip. */
export async function sendArchive(
  ctx: ArchiveServices,
  caller: Caller,
  name: string,
  query: z.infer<typeof ArchiveQuery>,
  reply: FastifyReply,
) {
  const bot = BOT_NAME.test(name) ? await ctx.botStore.botByName(name) : null;
  if (!bot || bot.account_id !== caller.account.id) throw errors.noSuchBot(name);
  const parts = [bot.name, query.version, query.opponent && `vs-${query.opponent}`].filter(Boolean);
  const file = parts.map((p) => String(p).replace(/[^A-Za-z0-9_-]/g, "_")).join("-");
  reply
    .header("content-type", "application/zip")
    .header(
      "content-disposition",
      `attachment; filename="${ARCHIVE_NAME.test(file) ? file : "replays"}-replays.zip"`,
    )
    .header("cache-control", "private, no-store");
  return reply.send(
    replayZip(
      ctx.replays,
      archivedReplays(ctx.db, {
        botId: bot.id,
        version: query.version ?? null,
        opponent: query.opponent ?? null,
      }),
    ),
  );
}
