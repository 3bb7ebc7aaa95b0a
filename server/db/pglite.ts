// The embedded driver: PGlite persisted in <dataDir>/pglite. PGlite is one session, so a statement sent while
// a transaction is open would run inside that transaction. A mutex serialises everything: a transaction holds
// it from BEGIN to COMMIT, and plain statements wait their turn.
import { AsyncLocalStorage } from "node:async_hooks";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite, type Transaction } from "@electric-sql/pglite";
import type { Db, Queryable } from "./db.ts";

class Mutex {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const out = this.#tail.then(fn);
    this.#tail = out.catch(() => {});
    return out;
  }
}

function txHandle(t: Transaction): Queryable {
  return {
    async query<T>(sql: string, params: readonly unknown[] = []) {
      return (await t.query<T>(sql, params as unknown[])).rows;
    },
    async exec(sql: string) {
      await t.exec(sql);
    },
  };
}

/**
 * PostgreSQL's buffer cache inside PGlite's WebAssembly memory. PGlite's default (128 MB) is a server's; this
 * database holds a ladder's accounts, bots and results, and the operating system caches its files as well.
 * 32 MB keeps the embedded database at about 200 MiB resident instead of about 330 MiB, with no measurable
 * change in query time (docs/performance.md, "Memory at start").
 */
const SHARED_BUFFERS = "32MB";

/**
 * Creates the database cluster of a fresh data directory in a short-lived child process. PGlite's initdb step
 * grows the process by about 500 MiB (its WebAssembly memory and compiled code) that it never gives back; in
 * a child, that memory goes when the child exits, and the server opens the finished cluster like any restart.
 */
async function initCluster(dir: string): Promise<void> {
  const pglite = import.meta.resolve("@electric-sql/pglite");
  const script = `const { PGlite } = await import(${JSON.stringify(pglite)});
    await (await PGlite.create(${JSON.stringify(dir)})).close();`;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`creating the embedded database in ${dir} failed (exit ${code}): ${err.trim()}`)),
    );
  });
}

export async function openPglite(dataDir: string): Promise<Db> {
  const dir = join(dataDir, "pglite");
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, "PG_VERSION"))) await initCluster(dir);
  const pg = await PGlite.create(dir, {
    startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${SHARED_BUFFERS}`],
  });
  const lock = new Mutex();
  // Marks the async context of a running transaction: the outer Db waiting on the mutex from there would
  // deadlock, so it throws instead. The flag is cleared at the end so work merely started from inside a
  // transaction may use the Db later.
  const inTx = new AsyncLocalStorage<{ open: boolean }>();
  let closed = false;

  const guarded = <T>(fn: () => Promise<T>): Promise<T> => {
    if (inTx.getStore()?.open) {
      return Promise.reject(new Error("Db used from inside its own transaction; use the transaction handle"));
    }
    return lock.run(() => (closed ? Promise.reject(new Error("database is closed")) : fn()));
  };

  return {
    driver: "pglite",
    query<T>(sql: string, params: readonly unknown[] = []) {
      return guarded(async () => (await pg.query<T>(sql, params as unknown[])).rows);
    },
    exec(sql: string) {
      return guarded(async () => {
        await pg.exec(sql);
      });
    },
    tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      return guarded(() =>
        pg.transaction(async (t) => {
          const mark = { open: true };
          try {
            return await inTx.run(mark, () => fn(txHandle(t)));
          } finally {
            mark.open = false;
          }
        }),
      );
    },
    async close() {
      // Behind the mutex, so queued work finishes first; PGlite's close shuts PostgreSQL down cleanly
      // (checkpoint) and its node filesystem writes straight to the data dir.
      await lock.run(async () => {
        if (closed) return;
        closed = true;
        await pg.close();
      });
    },
  };
}
