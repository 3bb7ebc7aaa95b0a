// A database the test can make unreachable: every statement fails, as a connection to a stopped server
// would, while `down` is set. The embedded PGlite cannot be stopped from outside the process, so the outage
// tests put this between the store and it (and use a real stopped PostgreSQL cluster for the rest).
import type { Db, Queryable } from "../../server/db/db.ts";
import { migrate } from "../../server/db/migrate.ts";
import type { DbPlace } from "../../server/db/open.ts";
import { openDb } from "../../server/db/open.ts";
import { SqlStore } from "../../server/store/sql-store.ts";
import { seedPglite } from "./pglite-template.ts";

export interface Outage {
  down: boolean;
}

function refused(): Error {
  return Object.assign(new Error("connect ECONNREFUSED (database made unreachable by the test)"), {
    code: "ECONNREFUSED",
  });
}

export function outageDb(db: Db, outage: Outage): Db {
  const gate = <T>(fn: () => Promise<T>): Promise<T> => (outage.down ? Promise.reject(refused()) : fn());
  const inTx = (q: Queryable): Queryable => ({
    query: (sql, params) => gate(() => q.query(sql, params)),
    exec: (sql) => gate(() => q.exec(sql)),
  });
  return {
    driver: db.driver,
    query: (sql, params) => gate(() => db.query(sql, params)),
    exec: (sql) => gate(() => db.exec(sql)),
    tx: (fn) => gate(() => db.tx((q) => fn(inTx(q)))),
    close: () => db.close(),
  };
}

/** The store the server would open on `place`, behind a switch that makes its database unreachable. */
export async function openOutageStore(place: DbPlace): Promise<{ store: SqlStore; outage: Outage }> {
  const outage: Outage = { down: false };
  if (!place.databaseUrl) seedPglite(place.dataDir);
  const db = outageDb(await openDb(place), outage);
  return { store: new SqlStore(db, await migrate(db)), outage };
}
