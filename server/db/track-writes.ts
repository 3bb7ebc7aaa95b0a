// Counts committed writes to chosen tables, so an in-memory copy (the bot directory behind the leaderboards)
// knows when to reload without every store method having to remember to say so. A statement outside a
// transaction counts when it completes; one inside counts when its transaction commits (a reader between the
// statement and the commit must not cache the old rows under the new count).
import type { Db, Queryable } from "./db.ts";

export interface WriteCounter {
  /** Grows after each committed write to a watched table. */
  readonly generation: number;
  /** Adds a listener told after each committed write this process made (cluster mode tells the other nodes). */
  onWrite(listener: () => void): void;
  /** Counts a write another process committed (another node of a cluster): the next read reloads. */
  bump(): void;
}

class Counter implements WriteCounter {
  generation = 0;
  private readonly listeners: (() => void)[] = [];

  onWrite(listener: () => void): void {
    this.listeners.push(listener);
  }

  bump(): void {
    this.generation++;
  }

  /** A write of this process committed. */
  wrote(): void {
    this.generation++;
    for (const l of this.listeners) l();
  }
}

export function trackWrites(db: Db, tables: readonly string[]): { db: Db; counter: WriteCounter } {
  const pattern = new RegExp(
    `\\b(?:INSERT\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+(?:${tables.join("|")})\\b`,
    "i",
  );
  const counter = new Counter();
  const writes = (sql: string) => pattern.test(sql);
  const tracked: Db = {
    driver: db.driver,
    async query<T>(sql: string, params?: readonly unknown[]) {
      const rows = await db.query<T>(sql, params);
      if (writes(sql)) counter.wrote();
      return rows;
    },
    async exec(sql: string) {
      await db.exec(sql);
      if (writes(sql)) counter.wrote();
    },
    async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      let wrote = false;
      const result = await db.tx((q) =>
        fn({
          query: <R>(sql: string, params?: readonly unknown[]) => {
            if (writes(sql)) wrote = true;
            return q.query<R>(sql, params);
          },
          exec: (sql: string) => {
            if (writes(sql)) wrote = true;
            return q.exec(sql);
          },
        }),
      );
      if (wrote) counter.wrote();
      return result;
    },
    close: () => db.close(),
  };
  return { db: tracked, counter };
}
