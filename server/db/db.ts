// The one small database interface the store is written against (the drivers: open.ts), and what counts as
// the database being unreachable.

export type Row = Record<string, unknown>;

/** What a caller can run statements on: the database itself, or one open transaction. */
export interface Queryable {
  /** One statement with $1.. parameters; returns its rows (empty for statements without RETURNING). */
  query<T = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** A script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Db extends Queryable {
  readonly driver: "pg" | "pglite";
  /**
   * Runs `fn` in one transaction on one connection: committed when it resolves, rolled back when it throws.
   * Use only the handle passed to `fn` inside it; on PGlite a call to the outer Db from inside a transaction
   * is refused (it would wait for the transaction forever).
   */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Runs `fn` on the caller's open transaction `q` when there is one (a unit of work), else in a transaction of
 * its own: a store method that needs several statements to be atomic works both ways.
 */
export function withTx<T>(db: Db, q: Queryable | undefined, fn: (q: Queryable) => Promise<T>): Promise<T> {
  return q ? fn(q) : db.tx(fn);
}

// Connection-level failures: the database is down, restarting or unreachable, as opposed to a statement
// that failed on a working database. Node's socket errors, PostgreSQL's connection-exception class (08) and
// its shutdown and start-up states (57P01-57P03), and pg's own messages for a lost or refused connection.
const NETWORK = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ENOTFOUND", "EHOSTUNREACH"]);
const LOST =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|database is closed/i;

/** True when `err` says the database cannot be reached now (worth retrying later), not that a query is wrong. */
export function isDbUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (NETWORK.has(code) || code.startsWith("08") || /^57P0[123]$/.test(code)))
    return true;
  return LOST.test(err.message);
}
