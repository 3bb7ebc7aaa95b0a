// Times every statement and transaction on a Db for the operator's metrics, on either driver: the store is
// written against the Db interface, so wrapping it here once covers every query the server makes. A
// statement's time includes its wait for a connection (pg's pool) or for the session (PGlite's mutex), which is
// what a slow database costs a request.
import type { Db, Queryable } from "./db.ts";

export interface QueryTimer {
  /** One statement (alone, or inside a transaction), in seconds. */
  statement(seconds: number): void;
  /** One whole transaction, BEGIN to COMMIT or ROLLBACK, in seconds. */
  transaction(seconds: number): void;
}

function timedStatements(q: Queryable, timer: QueryTimer): Queryable {
  return {
    async query<T>(sql: string, params?: readonly unknown[]) {
      const t0 = performance.now();
      try {
        return await q.query<T>(sql, params);
      } finally {
        timer.statement((performance.now() - t0) / 1000);
      }
    },
    async exec(sql: string) {
      const t0 = performance.now();
      try {
        await q.exec(sql);
      } finally {
        timer.statement((performance.now() - t0) / 1000);
      }
    },
  };
}

export function timeQueries(db: Db, timer: QueryTimer): Db {
  const plain = timedStatements(db, timer);
  return {
    driver: db.driver,
    query: plain.query,
    exec: plain.exec,
    async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      const t0 = performance.now();
      try {
        return await db.tx((q) => fn(timedStatements(q, timer)));
      } finally {
        timer.transaction((performance.now() - t0) / 1000);
      }
    },
    close: () => db.close(),
  };
}
