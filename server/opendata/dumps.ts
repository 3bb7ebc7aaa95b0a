// The open data dumps (issue 35): each ladder's rated results (ranked, not voided) as one gzip JSON Lines file
// per UTC day, `<data-dir>/open-data/<ladder>/<YYYY-MM-DD>.jsonl.gz`, in the line format of
// docs/replays-and-data.md that scripts/fit-ratings.mjs reads.
//
// What is done is the files present: a day's file is written under a temporary name and renamed when whole,
// so after a crash or a restart the missing days are simply the ones without a file, and the next run writes
// them. A day is written once it has ended plus GRACE_MS (a result is stored a moment after its match ends).
//
// The work never holds play up: rows come from the database a page at a time in insertion order (the
// (ladder_id, seq) index), each page is written through a gzip stream that is waited on when it is full, and
// the loop yields to the event loop between pages, so matches, sockets and routes keep their turns.
import { once } from "node:events";
import { createWriteStream, mkdirSync, readdirSync, rmSync, statSync, type WriteStream } from "node:fs";
import { rename } from "node:fs/promises";
import { join } from "node:path";
import { setImmediate as yieldTurn } from "node:timers/promises";
import { createGzip, type Gzip } from "node:zlib";
import { VERSIONS } from "../../engine/versions.ts";
import type { Db } from "../db/db.ts";

/** A day is dumped this long after it ends (UTC), so results still being stored at midnight are in it. */
export const GRACE_MS = 15 * 60_000;
/** Rows read per query: small enough that one query (on embedded PGlite it runs on the server's own thread)
 * is a short pause, large enough that the round trips do not dominate. */
export const PAGE = 500;
const DAY_MS = 86_400_000;
export const DUMP_FILE = /^(\d{4}-\d{2}-\d{2})\.jsonl\.gz$/;
/** The audit entry that records which release a server ran from when: a dump line's `versions`. */
export const VERSIONS_KIND = "versions_running";

export interface Versions {
  release: string;
  engine: string;
  rules_hash: string;
}

/** One line of a dump (docs/replays-and-data.md, "Rated results as data"). */
export interface DumpLine {
  match_id: string;
  time: string;
  ladder_id: string;
  versions: Versions | null;
  map: string;
  seats: { fighter: number; bot: string; version: string; house: boolean }[];
  result: "1-0" | "0-1" | "1/2-1/2";
  reason: string;
}

export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayStart = (day: string) => Date.parse(`${day}T00:00:00.000Z`);

/** The versions this server runs, as a dump line names them. */
export const RUNNING: Versions = {
  release: VERSIONS.release,
  engine: VERSIONS.engine,
  rules_hash: VERSIONS.rules_hash,
};

/**
 * Records, once per release, that this server runs it from now on (an audit entry, in the database every
 * server shares): the dumps name each match's versions by the release that was running when it ended.
 */
export async function recordVersions(db: Db, now = new Date()): Promise<void> {
  const last = await db.query<{ detail: Versions }>(
    "SELECT detail FROM audit WHERE kind = $1 ORDER BY id DESC LIMIT 1",
    [VERSIONS_KIND],
  );
  const d = last[0]?.detail;
  if (
    d &&
    d.release === RUNNING.release &&
    d.engine === RUNNING.engine &&
    d.rules_hash === RUNNING.rules_hash
  )
    return;
  await db.query("INSERT INTO audit (at, kind, subject, detail) VALUES ($1, $2, $3, $4::jsonb)", [
    now.toISOString(),
    VERSIONS_KIND,
    RUNNING.release,
    JSON.stringify(RUNNING),
  ]);
}

/** The releases in order of their start: a match's versions are those of the last one started before it ended. */
async function versionEpochs(db: Db): Promise<{ from: number; v: Versions }[]> {
  const rows = await db.query<{ at: string | Date; detail: Versions }>(
    "SELECT at, detail FROM audit WHERE kind = $1 ORDER BY at, id",
    [VERSIONS_KIND],
  );
  return rows.map((r) => ({
    from: new Date(r.at).getTime(),
    v: { release: r.detail.release, engine: r.detail.engine, rules_hash: r.detail.rules_hash },
  }));
}

function versionsAt(epochs: { from: number; v: Versions }[], ms: number): Versions | null {
  let found: Versions | null = null;
  for (const e of epochs) {
    if (e.from > ms) break;
    found = e.v;
  }
  return found;
}

interface Row {
  id: string;
  seq: string | number;
  ended: string | Date;
  map: string;
  reason: string;
  winner_bot_id: string | null;
  a_bot: string;
  a_name: string;
  a_version: string;
  a_house: boolean;
  b_bot: string;
  b_name: string;
  b_version: string;
  b_house: boolean;
}

const SELECT = `SELECT m.id, m.seq, m.ended, m.map, m.reason, m.winner_bot_id,
         a.bot_id AS a_bot, a.name AS a_name, a.version AS a_version, a.house AS a_house,
         b.bot_id AS b_bot, b.name AS b_name, b.version AS b_version, b.house AS b_house
  FROM matches m
  JOIN match_bots a ON a.match_id = m.id AND a.fighter = 0
  JOIN match_bots b ON b.match_id = m.id AND b.fighter = 1`;

function lineOf(r: Row, ladder: string, epochs: { from: number; v: Versions }[]): DumpLine {
  const ended = new Date(r.ended);
  return {
    match_id: String(r.id),
    time: ended.toISOString(),
    ladder_id: ladder,
    versions: versionsAt(epochs, ended.getTime()),
    map: String(r.map),
    seats: [
      { fighter: 0, bot: String(r.a_name), version: String(r.a_version), house: Boolean(r.a_house) },
      { fighter: 1, bot: String(r.b_name), version: String(r.b_version), house: Boolean(r.b_house) },
    ],
    result: r.winner_bot_id === null ? "1/2-1/2" : r.winner_bot_id === r.a_bot ? "1-0" : "0-1",
    reason: String(r.reason),
  };
}

/** A day's file being written: gzip into a temporary file, renamed into place when whole. */
class DayWriter {
  readonly gzip: Gzip;
  private readonly out: WriteStream;
  private readonly tmp: string;
  lines = 0;

  constructor(private readonly path: string) {
    this.tmp = `${path}.tmp`;
    this.out = createWriteStream(this.tmp);
    this.gzip = createGzip();
    this.gzip.pipe(this.out);
  }

  /** Writes a line; waits when the gzip stream's buffer is full (its reader, the file, catches up). */
  async write(line: DumpLine): Promise<void> {
    this.lines++;
    if (!this.gzip.write(`${JSON.stringify(line)}\n`)) await once(this.gzip, "drain");
  }

  async finish(): Promise<void> {
    this.gzip.end();
    await once(this.out, "close");
    await rename(this.tmp, this.path);
  }

  abort(): void {
    this.gzip.destroy();
    this.out.destroy();
    rmSync(this.tmp, { force: true });
  }
}

export interface DumpRun {
  ladder: string;
  /** The days written by this run. */
  written: string[];
  /** Lines written in all. */
  lines: number;
}

export class OpenDataDumps {
  readonly dir: string;

  constructor(
    private readonly db: Db,
    dataDir: string,
  ) {
    this.dir = join(dataDir, "open-data");
    mkdirSync(this.dir, { recursive: true });
    // Leftovers of a run a crash interrupted: their days have no file, so the next run writes them again.
    for (const ladder of readdirSync(this.dir))
      for (const f of readdirSync(join(this.dir, ladder)).filter((n) => n.endsWith(".tmp")))
        rmSync(join(this.dir, ladder, f), { force: true });
  }

  ladderDir(ladder: string): string {
    return join(this.dir, ladder);
  }

  /** The days of a ladder that have a whole file, oldest first, with their sizes. */
  days(ladder: string): { day: string; bytes: number }[] {
    let names: string[];
    try {
      names = readdirSync(this.ladderDir(ladder));
    } catch {
      return [];
    }
    return names
      .map((n) => DUMP_FILE.exec(n)?.[1])
      .filter((d): d is string => d !== undefined)
      .sort()
      .map((day) => ({ day, bytes: statSync(join(this.ladderDir(ladder), `${day}.jsonl.gz`)).size }));
  }

  /** The path of a day's file when it exists and is whole (the name is checked, never joined raw). */
  fileFor(ladder: string, file: string): string | null {
    if (!DUMP_FILE.test(file) || !/^[A-Za-z0-9_-]{1,40}$/.test(ladder)) return null;
    const path = join(this.ladderDir(ladder), file);
    try {
      return statSync(path).isFile() ? path : null;
    } catch {
      return null;
    }
  }

  /**
   * Writes every complete day of `ladder` that has no file yet, from its first rated result to the last day
   * that ended GRACE_MS before `now`. Days without a rated game get an empty file, so that they count as done.
   */
  async run(ladder: string, now = Date.now()): Promise<DumpRun> {
    const run: DumpRun = { ladder, written: [], lines: 0 };
    const lastDay = dayOf(now - GRACE_MS - DAY_MS); // the newest day that is over, with its grace
    const first = await this.db.query<{ ended: string | Date }>(
      `SELECT m.ended FROM matches m
       WHERE m.ladder_id = $1 AND m.mode = 'ranked' AND NOT m.voided ORDER BY m.seq LIMIT 1`,
      [ladder],
    );
    if (!first[0]) return run;
    const firstDay = dayOf(new Date(first[0].ended).getTime());
    if (firstDay > lastDay) return run;
    const done = new Set(this.days(ladder).map((d) => d.day));
    const missing: string[] = [];
    for (let t = dayStart(firstDay); t <= dayStart(lastDay); t += DAY_MS)
      if (!done.has(dayOf(t))) missing.push(dayOf(t));
    if (missing.length === 0) return run;
    mkdirSync(this.ladderDir(ladder), { recursive: true });
    const wanted = new Set(missing);
    const from = dayStart(missing[0]!);
    const until = dayStart(lastDay) + DAY_MS;
    // Where to start reading: after the newest result that ended a minute before the first missing day (results
    // are stored in about the order they end; the minute covers two ending together across midnight). Read
    // backwards on the (ladder_id, seq) index, so it costs the rows after that point, not the whole history.
    // From the ladder's first day (a first run) there is nothing before to skip, and asking would scan it all.
    const start =
      missing[0] === firstDay
        ? []
        : await this.db.query<{ seq: string | number }>(
            `SELECT m.seq FROM matches m WHERE m.ladder_id = $1 AND m.ended < $2::timestamptz
             ORDER BY m.seq DESC LIMIT 1`,
            [ladder, new Date(from - 60_000).toISOString()],
          );
    let after = start[0] ? Number(start[0].seq) : -1;
    const epochs = await versionEpochs(this.db);
    const writers = new Map<string, DayWriter>();
    try {
      for (;;) {
        const rows = await this.db.query<Row>(
          `${SELECT}
           WHERE m.ladder_id = $1 AND m.seq > $2 AND m.mode = 'ranked' AND NOT m.voided
           ORDER BY m.seq LIMIT ${PAGE}`,
          [ladder, after],
        );
        for (const r of rows) {
          const ms = new Date(r.ended).getTime();
          if (ms < from || ms >= until) continue;
          const day = dayOf(ms);
          // Days two before this row's are over (results arrive seconds out of order, never days): finish their
          // files now, so a long catch-up holds two gzip streams open, not one per day.
          for (const [d, w] of writers)
            if (d < dayOf(ms - DAY_MS)) {
              writers.delete(d);
              wanted.delete(d);
              await w.finish();
              run.written.push(d);
            }
          if (!wanted.has(day)) continue;
          let w = writers.get(day);
          if (!w) {
            w = new DayWriter(join(this.ladderDir(ladder), `${day}.jsonl.gz`));
            writers.set(day, w);
          }
          await w.write(lineOf(r, ladder, epochs));
          run.lines++;
        }
        if (rows.length < PAGE) break;
        after = Number(rows[rows.length - 1]!.seq);
        // Past the last wanted day by more than a minute: nothing later belongs to a wanted day.
        if (new Date(rows[rows.length - 1]!.ended).getTime() >= until + 60_000) break;
        await yieldTurn();
      }
      for (const day of missing) {
        if (!wanted.has(day)) continue; // finished above
        const w = writers.get(day) ?? new DayWriter(join(this.ladderDir(ladder), `${day}.jsonl.gz`));
        writers.delete(day);
        await w.finish();
        run.written.push(day);
      }
      run.written.sort();
    } catch (err) {
      for (const w of writers.values()) w.abort();
      throw err;
    }
    return run;
  }
}
