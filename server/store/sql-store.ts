// The Store on top of the small Db interface: opens and migrates the database, tracks committed writes, keeps the
// read memo and runs units of work, the same for pg and PGlite. The domains' SQL is in their folders; each
// normalises values on the way out (timestamps to ISO 8601 UTC strings, int8 to numbers, server/db/rows.ts)
// because the two drivers parse them differently.

import type { Db } from "../db/db.ts";
import { migrate } from "../db/migrate.ts";
import { type DbPlace, openDb } from "../db/open.ts";
import { type Reachability, watchReachability } from "../db/reachability.ts";
import { trackWrites, type WriteCounter } from "../db/track-writes.ts";
import { runUnit, type Unit } from "../kernel/unit-of-work.ts";
import { PlannerStats } from "./planner-stats.ts";
import { ReadMemo } from "./read-memo.ts";
import type { Store } from "./types.ts";

/** Opens the database, brings its schema up to date and returns the store; `wrap` decorates the Db (metrics). */
export async function openStore(place: DbPlace, wrap?: (db: Db) => Db): Promise<Store> {
  const db = await openDb(place);
  try {
    const schema = await migrate(db);
    const store = new SqlStore(wrap ? wrap(db) : db, schema);
    // The embedded database has no autovacuum: its planner statistics are the store's to keep (planner-stats.ts).
    await store.plannerStats.analyze();
    return store;
  } catch (err) {
    await db.close();
    throw err;
  }
}

/** How long another node's ban of a handle may take to hide its user page here. */
const HANDLE_TTL_MS = 1_000;

/** Rows the read memo keeps in all (a match list of 500 counts 500). */
const MEMO_ROWS = 4_000;

export class SqlStore implements Store {
  readonly driver: "pg" | "pglite";

  /** Committed writes to bots and their versions (the bot directory reloads when it grows). */
  readonly botWrites: WriteCounter;
  /** Committed writes to matches and their seats (the memoised match reads are asked again when it grows). */
  readonly matchWrites: WriteCounter;
  /** Committed writes to accounts (rememberAccountRead). */
  readonly accountWrites: WriteCounter;
  readonly reachability: Reachability;
  /** The database as every store of the server sees it (write tracking and reachability included). */
  readonly db: Db;
  /** ANALYZE on the embedded database as it grows, which autovacuum does on PostgreSQL. */
  readonly plannerStats: PlannerStats;
  /**
   * Answers of the read queries that pages and routes repeat (match lists, a bot's versions, the ratings' tails),
   * kept until their tables are written (read-memo.ts): about 1 KB a row, so at most a few MiB.
   */
  readonly memo = new ReadMemo(MEMO_ROWS);

  constructor(
    raw: Db,
    readonly schema: number,
  ) {
    const watched = watchReachability(raw);
    const bots = trackWrites(watched.db, ["bots", "bot_versions"]);
    const matches = trackWrites(bots.db, ["matches", "match_bots"]);
    const accounts = trackWrites(matches.db, ["accounts"]);
    const db = accounts.db;
    this.accountWrites = accounts.counter;
    this.db = db;
    this.botWrites = bots.counter;
    this.matchWrites = matches.counter;
    this.reachability = watched.reachability;
    this.driver = db.driver;
    this.plannerStats = new PlannerStats(db);
  }

  /**
   * An answer about accounts kept until accounts are written here or for HANDLE_TTL_MS (another node of a
   * cluster may have written them): a banned handle's user page, asked on every view of it.
   */
  rememberAccountRead<T>(key: string, load: () => Promise<T>): Promise<T> {
    return this.memo.get(
      `accounts\0${key}`,
      this.accountWrites.generation * 1e9 + Math.floor(Date.now() / HANDLE_TTL_MS),
      load,
      () => 1,
    );
  }

  // --- Matches ---

  private readonly mailListeners: (() => void)[] = [];

  work<T>(fn: (u: Unit) => Promise<T>): Promise<T> {
    return runUnit(this.db, fn, () => {
      for (const l of this.mailListeners) l();
    });
  }

  onMailQueued(listener: () => void): void {
    this.mailListeners.push(listener);
  }

  async close(): Promise<void> {
    await this.plannerStats.settled();
    await this.db.close();
  }
}

export { hashToken } from "../db/rows.ts";
