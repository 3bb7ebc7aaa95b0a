// The one small database interface the store is written against, and the choice of driver: `pg` against
// PostgreSQL when a URL is given, embedded PGlite in the data dir otherwise. Both speak the same SQL
// (PGlite is PostgreSQL compiled to WebAssembly), so the store and the migrations are shared.

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

export interface DbPlace {
  databaseUrl?: string | undefined;
  dataDir: string;
}

export async function openDb(place: DbPlace): Promise<Db> {
  // Imported lazily so a PGlite-only run never loads pg, and a pg run never loads the WebAssembly build.
  if (place.databaseUrl) {
    const { openPg } = await import("./pg.ts");
    return openPg(place.databaseUrl);
  }
  const { openPglite } = await import("./pglite.ts");
  return openPglite(place.dataDir);
}
