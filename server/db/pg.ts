// The PostgreSQL driver: a pg Pool. Plain statements take any pooled connection; a transaction holds one
// client from BEGIN to COMMIT/ROLLBACK.
import pg from "pg";
import type { Db, Queryable } from "./db.ts";

function handle(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const res = await client.query(sql, params as unknown[]);
      return res.rows as T[];
    },
    async exec(sql: string) {
      // Without parameters pg uses the simple query protocol, which accepts several statements.
      await client.query(sql);
    },
  };
}

export async function openPg(databaseUrl: string): Promise<Db> {
  // A connection attempt that hangs (a server that accepts and never answers) fails after 5 s rather than
  // holding the caller forever; a refused one fails at once.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10, connectionTimeoutMillis: 5_000 });
  // An idle pooled connection that dies (server restart, network) emits 'error' on the pool; unhandled, that
  // would crash the process. The pool drops the client and the next query reconnects or fails visibly.
  pool.on("error", () => {});
  // Fail at open, with the driver's own message, rather than on the first request.
  try {
    await pool.query("SELECT 1");
  } catch (err) {
    await pool.end();
    throw err;
  }
  const base = handle(pool);
  return {
    driver: "pg",
    query: base.query,
    exec: base.exec,
    async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const out = await fn(handle(client));
        await client.query("COMMIT");
        return out;
      } catch (err) {
        try {
          await client.query("ROLLBACK");
        } catch (rollbackErr) {
          // A connection that cannot roll back must not go back into the pool mid-transaction.
          broken = rollbackErr as Error;
        }
        throw err;
      } finally {
        client.release(broken);
      }
    },
    async close() {
      await pool.end();
    },
  };
}
