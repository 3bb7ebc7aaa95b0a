// Schema migrations: numbered files migrations/NNNN_name.sql, applied in order at open, each in its own
// transaction and recorded in schema_migrations. Files hold plain DDL/DML without BEGIN/COMMIT. A database
// migrated by a newer build is refused: this build cannot know what the newer schema means, and rolling back
// needs a compatible backup (SPEC 9.6).
import { readdirSync, readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { repoPath } from "../root.ts";
import type { Db, Queryable } from "./db.ts";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const DEFAULT_DIR = pathToFileURL(`${repoPath("migrations")}/`);
const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export class SchemaTooNewError extends Error {
  constructor(
    readonly applied: number,
    readonly known: number,
  ) {
    super(
      `database schema ${applied} is newer than this build knows (${known}); ` +
        "run a newer release or restore a compatible backup",
    );
    this.name = "SchemaTooNewError";
  }
}

export function loadMigrations(dir: URL = DEFAULT_DIR): Migration[] {
  const out: Migration[] = [];
  for (const file of readdirSync(dir).sort()) {
    const m = FILE.exec(file);
    if (!m) continue;
    const version = Number(m[1]);
    if (out.some((x) => x.version === version)) throw new Error(`two migrations numbered ${m[1]} in ${dir}`);
    out.push({ version, name: m[2], sql: readFileSync(new URL(file, dir), "utf8") });
  }
  return out.sort((a, b) => a.version - b.version);
}

/**
 * Runs inside each migration transaction. On pg several servers may start at once: a transaction-scoped
 * advisory lock (per schema, so separate schemas in one database do not wait on each other) lets one migrate
 * while the others wait and then find the work done. PGlite is one session in one process: nothing to lock.
 */
async function lockAndRead(db: Db, q: Queryable, known: number): Promise<Set<number>> {
  if (db.driver === "pg") {
    await q.query("SELECT pg_advisory_xact_lock(hashtext('arena-ladder:migrate:' || current_schema()))");
  }
  await q.exec(
    `CREATE TABLE IF NOT EXISTS schema_migrations (
       version integer PRIMARY KEY,
       name text NOT NULL,
       applied timestamptz NOT NULL DEFAULT now()
     )`,
  );
  const rows = await q.query<{ version: number }>("SELECT version FROM schema_migrations");
  const applied = new Set(rows.map((r) => Number(r.version)));
  const highest = Math.max(0, ...applied);
  if (highest > known) throw new SchemaTooNewError(highest, known);
  return applied;
}

/** Brings the schema up to date and returns its number (the highest applied migration). */
export async function migrate(db: Db, migrations: Migration[] = loadMigrations()): Promise<number> {
  const known = Math.max(0, ...migrations.map((m) => m.version));
  let applied = await db.tx((q) => lockAndRead(db, q, known));
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    applied = await db.tx(async (q) => {
      const now = await lockAndRead(db, q, known);
      if (now.has(m.version)) return now; // another server applied it while we waited for the lock
      await q.exec(m.sql);
      await q.query("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
      return new Set([...now, m.version]);
    });
  }
  return Math.max(0, ...applied);
}
