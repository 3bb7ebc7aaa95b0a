// The result journal: match results the database could not take when their match ended, kept as one file per
// match in <dataDir>/journal until the database has them. A file is written whole (temporary file, fsync,
// rename, fsync of the directory), so after a crash or kill -9 a journaled result is either there complete or
// was never acknowledged: the runner tells the bots `end` only after this write (or the database commit)
// returned.
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { MatchRecord } from "../store/types.ts";

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const SUFFIX = ".result.json";

export class ResultJournal {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, "journal");
    mkdirSync(this.dir, { recursive: true });
    // A temporary file is a write that never returned: its result was not acknowledged to anyone.
    for (const f of readdirSync(this.dir)) if (f.endsWith(".tmp")) rmSync(join(this.dir, f), { force: true });
  }

  /** Every journaled result, oldest end first (the order they are written to the database in). */
  readAll(): MatchRecord[] {
    const out: MatchRecord[] = [];
    for (const f of readdirSync(this.dir)) {
      if (!f.endsWith(SUFFIX)) continue;
      // A file that does not parse cannot have been renamed into place by write(); it is kept for an operator
      // to look at rather than deleted, and skipped.
      try {
        out.push(JSON.parse(readFileSync(join(this.dir, f), "utf8")) as MatchRecord);
      } catch {}
    }
    return out.sort((a, b) => (a.ended < b.ended ? -1 : a.ended > b.ended ? 1 : 0));
  }

  /** Writes one result durably; resolves only once it would survive a power cut. */
  async write(record: MatchRecord): Promise<void> {
    const name = this.fileOf(record.id);
    const tmp = `${name}.tmp`;
    const fh = await open(tmp, "w");
    try {
      await fh.writeFile(JSON.stringify(record));
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, name);
    // The rename itself is durable only once the directory is.
    const dir = await open(this.dir, "r");
    try {
      await dir.sync();
    } finally {
      await dir.close();
    }
  }

  /** Forgets a result the database now holds. */
  async remove(matchId: string): Promise<void> {
    await rm(this.fileOf(matchId), { force: true });
  }

  private fileOf(matchId: string): string {
    if (!ID.test(matchId)) throw new Error(`bad match id ${matchId}`);
    return join(this.dir, `${matchId}${SUFFIX}`);
  }
}
