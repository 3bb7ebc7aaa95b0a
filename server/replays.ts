// Replay files in the data dir: written whole and atomically (temporary file, fsync, rename) so a crash never
// leaves half a replay, served at /replays/<id>.jsonl.gz, and trimmed to each bot's newest ones.
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { join } from "node:path";

const ID = /^[A-Za-z0-9_-]{1,64}$/;

export class ReplayFiles {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, "replays");
    mkdirSync(this.dir, { recursive: true });
    // Leftovers of a write interrupted by a crash.
    for (const f of readdirSync(this.dir)) if (f.endsWith(".tmp")) rmSync(join(this.dir, f), { force: true });
  }

  /** Writes a replay and returns its path relative to the data dir. */
  async write(matchId: string, bytes: Uint8Array): Promise<string> {
    if (!ID.test(matchId)) throw new Error(`bad match id ${matchId}`);
    const name = `${matchId}.jsonl.gz`;
    const tmp = join(this.dir, `${name}.tmp`);
    const fh = await open(tmp, "w");
    try {
      await fh.writeFile(bytes);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(tmp, join(this.dir, name));
    return `replays/${name}`;
  }

  /** Absolute path of a match's replay, or null for an id that cannot be one. */
  pathFor(matchId: string): string | null {
    return ID.test(matchId) ? join(this.dir, `${matchId}.jsonl.gz`) : null;
  }

  /**
   * Deletes replay files no stored match refers to: a crash between writing a replay and committing its
   * match leaves such a file, and a match is either whole (row, stats, replay) or absent.
   */
  async sweepOrphans(referenced: Set<string>): Promise<number> {
    const orphans = readdirSync(this.dir)
      .filter((f) => f.endsWith(".jsonl.gz"))
      .map((f) => `replays/${f}`)
      .filter((f) => !referenced.has(f));
    await this.remove(orphans);
    return orphans.length;
  }

  async remove(relativeFiles: string[]): Promise<void> {
    for (const f of relativeFiles) {
      const name = f.replace(/^replays\//, "");
      if (!/^[A-Za-z0-9_-]{1,64}\.jsonl\.gz$/.test(name)) continue;
      await rm(join(this.dir, name), { force: true });
    }
  }
}

declare module "./kernel/feature.ts" {
  interface Services {
    /** The replay files of stored matches. */
    replays: ReplayFiles;
  }
}
