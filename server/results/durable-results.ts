// Where a finished match's result goes before anyone is told it: committed to the database, or, when the
// database is unreachable or too slow, written to the local journal and committed later (retried with
// backoff, also after a restart). `persist` resolves only once one of the two holds, so an `end` message, a
// rating change or a leaderboard line never shows a result that a crash could still lose. A result is written
// once: the database insert is idempotent on the match id, so a commit that raced its own journal entry, or
// a retry after an unclear failure, changes nothing.
import type { Logger } from "pino";
import type { MatchRecord } from "../store/types.ts";
import type { ResultJournal } from "./journal.ts";
import type { MatchStore } from "./match-store.ts";

export interface DurableResultsDeps {
  store: Pick<MatchStore, "saveMatch" | "saveMatches">;
  journal: ResultJournal;
  log: Logger;
  /** How long a commit may take before the result is journaled instead (the commit may still land later). */
  commitTimeoutMs?: number;
  /** Backoff between attempts to write journaled results to the database: from min, doubling, up to max. */
  retryMinMs?: number;
  retryMaxMs?: number;
  /** A result is in the database now (at once, or later from the journal). */
  onCommitted?(record: MatchRecord): void;
}

/** The server is stopping: a result not yet durable is abandoned, and its bots are told nothing. */
export class ResultsStopped extends Error {
  constructor() {
    super("the server is stopping; the result was not stored");
  }
}

export class DurableResults {
  /** Journaled results the database does not have yet, by match id. */
  private readonly journaled = new Map<string, MatchRecord>();
  private readonly commitTimeoutMs: number;
  private readonly retryMinMs: number;
  private readonly retryMaxMs: number;
  private retryDelay: number;
  private retryTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private stopped = false;
  /** Results waiting for the commit under way to end: they are written together in the next one. */
  private waiting: { record: MatchRecord; resolve(): void; reject(err: unknown): void }[] = [];
  private committing = false;

  /** Who is told of each committed result besides `onCommitted` (the live matches, built after the recovery). */
  private readonly committedListeners: ((record: MatchRecord) => void)[] = [];
  /** Results recover() wrote, until takeRecovered(): told before any listener was added. */
  private recovered: MatchRecord[] = [];

  constructor(private readonly d: DurableResultsDeps) {
    this.commitTimeoutMs = d.commitTimeoutMs ?? 2_000;
    this.retryMinMs = d.retryMinMs ?? 500;
    this.retryMaxMs = d.retryMaxMs ?? 30_000;
    this.retryDelay = this.retryMinMs;
  }

  /** Adds a listener told of every result once it is in the database. */
  onCommitted(listener: (record: MatchRecord) => void): void {
    this.committedListeners.push(listener);
  }

  private tellCommitted(record: MatchRecord): void {
    this.d.onCommitted?.(record);
    for (const l of this.committedListeners) l(record);
  }

  /**
   * At start: takes up what the journal holds and writes it to the database now, before the rating books load
   * from the database (so they count it); whatever still fails stays pending and is retried in the background.
   */
  async recover(): Promise<void> {
    for (const r of this.d.journal.readAll()) this.journaled.set(r.id, r);
    if (this.journaled.size === 0) return;
    this.d.log.warn({ results: this.journaled.size }, "writing journaled match results to the database");
    const journaled = [...this.journaled.values()];
    await this.flush();
    this.recovered = journaled.filter((r) => !this.journaled.has(r.id));
  }

  /**
   * The results recover() wrote to the database, once (then forgotten): a listener added after the recovery (the
   * cluster's results stream) learns of them here; those still pending reach it through onCommitted later.
   */
  takeRecovered(): MatchRecord[] {
    const out = this.recovered;
    this.recovered = [];
    return out;
  }

  /** Results journaled and not yet in the database, oldest first. */
  pending(): MatchRecord[] {
    return [...this.journaled.values()];
  }

  pendingById(id: string): MatchRecord | undefined {
    return this.journaled.get(id);
  }

  /**
   * Makes a result durable: resolves "stored" once committed, "journaled" once in the journal; while neither
   * works (database down and the disk refusing the journal) it keeps trying, so the bots wait for their `end`
   * rather than receive one for a result that may vanish. Rejects with ResultsStopped only when the server
   * stops first.
   */
  async persist(record: MatchRecord): Promise<"stored" | "journaled"> {
    let wait = this.retryMinMs;
    for (;;) {
      if (this.stopped) throw new ResultsStopped();
      const saving = this.save(record);
      const outcome = await within(saving, this.commitTimeoutMs);
      if (outcome === "done") {
        this.tellCommitted(record);
        // The database is back: what the journal holds need not wait for its backoff.
        if (this.journaled.size > 0) void this.flush();
        return "stored";
      }
      if (outcome instanceof Error)
        this.d.log.error({ err: outcome, match: record.id }, "saving a result failed");
      else this.d.log.warn({ match: record.id }, "the database is slow to commit a result; journaling it");
      try {
        await this.d.journal.write(record);
        this.journaled.set(record.id, record);
        // A commit that was only slow may still land: then the journal entry is done with.
        if (outcome === "timeout")
          saving.then(
            () => void this.committed(record),
            () => {},
          );
        this.scheduleRetry();
        return "journaled";
      } catch (err) {
        this.d.log.error({ err, match: record.id }, "journaling a result failed; trying both again");
        await sleep(wait);
        wait = Math.min(wait * 2, this.retryMaxMs);
      }
    }
  }

  /**
   * Group commit: a result is written at once when no commit is under way, else with every other result that
   * ended meanwhile, in one transaction when the current one ends. Each caller still learns of its own commit,
   * so nothing is acknowledged before it is durable; an idle server adds no wait, a busy one commits once per
   * batch instead of once per match. A batch that fails is written again one result at a time, so a result the
   * database refuses fails alone.
   */
  private save(record: MatchRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ record, resolve, reject });
      if (!this.committing) void this.commitWaiting();
    });
  }

  private async commitWaiting(): Promise<void> {
    this.committing = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting.splice(0, MAX_BATCH);
        try {
          await this.d.store.saveMatches(batch.map((b) => b.record));
          for (const b of batch) b.resolve();
        } catch (err) {
          if (batch.length === 1) batch[0]!.reject(err);
          else
            for (const b of batch) {
              try {
                await this.d.store.saveMatch(b.record);
                b.resolve();
              } catch (e) {
                b.reject(e);
              }
            }
        }
      }
    } finally {
      this.committing = false;
    }
  }

  /** Stops retrying (the server is stopping); journaled results stay in the journal for the next start. */
  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** Writes journaled results to the database, oldest first, until one fails (then backs off). */
  flush(): Promise<void> {
    this.flushing ??= (async () => {
      for (const r of [...this.journaled.values()]) {
        if (this.stopped) return;
        try {
          await this.d.store.saveMatch(r);
        } catch (err) {
          this.d.log.warn(
            { err, match: r.id, pending: this.journaled.size },
            "journaled results still pending",
          );
          this.scheduleRetry(true);
          return;
        }
        await this.committed(r);
      }
      this.retryDelay = this.retryMinMs;
    })().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async committed(r: MatchRecord): Promise<void> {
    if (!this.journaled.delete(r.id)) return;
    this.tellCommitted(r);
    try {
      await this.d.journal.remove(r.id);
    } catch (err) {
      // Harmless: a leftover entry is written again, idempotently, at the next start.
      this.d.log.warn({ err, match: r.id }, "removing a journal entry failed");
    }
  }

  private scheduleRetry(backoff = false): void {
    if (this.stopped || this.retryTimer) return;
    const delay = this.retryDelay;
    if (backoff) this.retryDelay = Math.min(this.retryDelay * 2, this.retryMaxMs);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.flush();
    }, delay);
    this.retryTimer.unref();
  }
}

/** Results per statement at most (37 parameters each with two bots and stats: 9,472, far below PostgreSQL's
 * 65,535). */
const MAX_BATCH = 256;

/** "done", the error it failed with, or "timeout" when it has not settled within `ms`. */
function within(p: Promise<unknown>, ms: number): Promise<"done" | "timeout" | Error> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("timeout"), ms);
    p.then(
      () => {
        clearTimeout(timer);
        resolve("done");
      },
      (err: unknown) => {
        clearTimeout(timer);
        resolve(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
