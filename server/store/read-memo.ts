// Answers of read queries kept until the tables they read are written (issue 38). A read route asked again and
// again between two results (a dashboard polled by many viewers, a bot page, the match list) then costs a map
// lookup instead of a database round trip, and a result costs one new query per answer asked for afterwards,
// however often it is asked. Each answer is kept with the write generation of its tables read *before* the query
// ran (server/db/track-writes.ts), so a write that lands during the query makes the answer stale at once rather
// than kept under the new generation. The memo is bounded by the rows it holds, least recently used dropped first.

interface Entry {
  generation: number;
  value: Promise<unknown>;
  /** Rows held, once the value arrived (0 while loading). */
  rows: number;
}

export class ReadMemo {
  private readonly entries = new Map<string, Entry>();
  private rows = 0;

  /** `maxRows`: the most rows (as each answer's `size` counts them) kept in all. */
  constructor(private readonly maxRows: number) {}

  /**
   * The answer to `key` as of generation `generation`: kept from an earlier call at the same generation, else
   * loaded (concurrent calls share one load). A failed load is not kept.
   */
  get<T>(key: string, generation: number, load: () => Promise<T>, size: (v: T) => number): Promise<T> {
    const hit = this.entries.get(key);
    if (hit && hit.generation === generation) {
      // Most recently used last (a Map keeps insertion order).
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.value as Promise<T>;
    }
    if (hit) this.drop(key, hit);
    const entry: Entry = { generation, value: load(), rows: 0 };
    this.entries.set(key, entry);
    entry.value.then(
      (v) => {
        if (this.entries.get(key) !== entry) return;
        entry.rows = Math.max(1, size(v as T));
        this.rows += entry.rows;
        this.evict();
      },
      () => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    return entry.value as Promise<T>;
  }

  /** Rows held now (tests and the memory figures). */
  get held(): number {
    return this.rows;
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    this.rows -= e.rows;
  }

  private evict(): void {
    for (const [key, e] of this.entries) {
      if (this.rows <= this.maxRows) break;
      if (e.rows > 0) this.drop(key, e);
    }
  }
}
