// The embedded driver: PGlite persisted in <dataDir>/pglite. PGlite is one session, so a statement sent while
// a transaction is open would run inside that transaction. A mutex serialises everything: a transaction holds
// it from BEGIN to COMMIT, and plain statements wait their turn.
import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync } from "node:fs";
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

export async function openPglite(dataDir: string): Promise<Db> {
  const dir = join(dataDir, "pglite");
  mkdirSync(dir, { recursive: true });
  const pg = await PGlite.create(dir);
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
