// Copies of one embedded database cluster per test run, put into each new PGlite data dir instead of creating
// a cluster there. Creating one (PGlite's initdb, in a child process: server/db/pglite.ts) costs seconds of
// CPU, and bringing a new one up to date (the migrations) a few more; the suite starts well over a hundred
// servers and stores on fresh data dirs. The templates are made once per run by
// test/helpers/pglite-template-setup.ts (vitest's globalSetup) with the server's own openDb and migrate, so
// each is exactly what a first start leaves behind, and a copy opens as any restart would (its migrate finds
// nothing to do). The creation and the migrations themselves still run on every run: for the templates, in
// the storage tests (test/storage/store.test.ts starts from the bare cluster) and in the tests that start on
// an empty dir (the built server's start).
import { constants, cpSync, existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where the run's templates are: `cluster/pglite` (bare) and `schema/pglite` (migrated). */
    pgliteTemplates: string;
  }
}

/** The bare cluster as PGlite creates it, or that cluster with every migration applied (the default). */
export type Template = "cluster" | "schema";

function templatesDir(): string | undefined {
  try {
    return inject("pgliteTemplates");
  } catch {
    return undefined; // not under vitest (a benchmark script using the helpers)
  }
}

/**
 * Puts a copy of a template cluster in `dataDir` (as `dataDir/pglite`) unless a cluster is already there;
 * returns `dataDir`. Without the templates (another vitest config, or outside vitest) it does nothing, and the
 * server creates the cluster itself as it does in production.
 */
export function seedPglite(dataDir: string, template: Template = "schema"): string {
  const dir = templatesDir();
  const target = join(dataDir, "pglite");
  if (!dir || existsSync(join(target, "PG_VERSION"))) return dataDir;
  // A copy-on-write clone where the filesystem has them, a plain copy elsewhere.
  cpSync(join(dir, template, "pglite"), target, { recursive: true, mode: constants.COPYFILE_FICLONE });
  return dataDir;
}

/** A new temporary data dir holding a copy of a template cluster (see seedPglite). */
export function seededDataDir(prefix: string, template: Template = "schema"): string {
  return seedPglite(mkdtempSync(join(tmpdir(), prefix)), template);
}
