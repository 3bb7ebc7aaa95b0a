// Per-version health (SPEC 2 "Health") kept up to date as results arrive (issue 38), instead of reading and
// parsing up to HEALTH_MATCHES stats records of every version on every bot page and bot API read. A version's
// window (its latest HEALTH_MATCHES matches with stats, newest first) is read from the store once, on its first
// read; each committed result of that version is then pushed onto it (the oldest falls out), and the summary is
// computed again by the same pure function (health.ts's summariseHealth) from memory, once per change. The
// windows are a bounded cache: past MAX_ROWS stats records in all, the least recently read versions are dropped
// and read from the store again when asked for. Each record keeps the version's own fighter only (the other
// fighter's half is not the version's health), which halves what the cache holds.
import { type MatchStatsT, STATS_VERSION } from "../../engine/protocol.ts";
import type { MatchStore } from "../results/match-store.ts";
import type { MatchRecord } from "../store/types.ts";
import { HEALTH_MATCHES, type Health, summariseHealth } from "./health.ts";

/** Stats records kept in all windows together (about 2 KB of parsed stats each). */
const MAX_ROWS = 20_000;

type Row = { fighter: number; stats: MatchStatsT };

interface Window {
  rows: Row[];
  /** The summary of `rows`, or undefined when a result arrived since it was computed. */
  health: Health | null | undefined;
}

/** A record reduced to the version's own fighter (as fighter 0, which is what summariseHealth then reads). */
function own(row: Row): Row {
  const mine = row.stats.fighters[row.fighter];
  return { fighter: 0, stats: { ...row.stats, fighters: mine ? [mine] : [] } };
}

const keyOf = (botId: string, version: string) => `${botId}\u0000${version}`;

export class HealthWindows {
  /** Loaded windows, least recently read first (a Map keeps insertion order; a read moves its key last). */
  private readonly windows = new Map<string, Window>();
  /** Windows being read from the store; a result arriving meanwhile makes that read be thrown away. */
  private readonly loading = new Map<string, { generation: number; promise: Promise<Window> }>();
  private generation = 0;
  private rows = 0;

  constructor(private readonly store: Pick<MatchStore, "versionStats">) {}

  /** The version's health over its latest matches; null when it has none with stats. */
  async of(botId: string, version: string): Promise<Health | null> {
    const key = keyOf(botId, version);
    let w = this.windows.get(key);
    if (w) {
      this.windows.delete(key);
      this.windows.set(key, w);
    } else {
      w = await this.load(key, botId, version);
    }
    if (w.health === undefined) w.health = summariseHealth(w.rows);
    return w.health;
  }

  /** A committed result: pushed onto the windows of its versions that are loaded. */
  record(m: MatchRecord): void {
    if (m.voided || !m.stats || m.stats.stats_version !== STATS_VERSION) return;
    for (const b of m.bots) {
      const key = keyOf(b.bot_id, b.version);
      // A read under way may have missed this result: its answer is not kept (the next read reads again).
      const pending = this.loading.get(key);
      if (pending) pending.generation = -1;
      const w = this.windows.get(key);
      if (!w) continue;
      w.rows.unshift(own({ fighter: b.fighter, stats: m.stats }));
      this.rows++;
      if (w.rows.length > HEALTH_MATCHES) {
        w.rows.pop();
        this.rows--;
      }
      w.health = undefined;
    }
  }

  /**
   * A result another node committed (cluster mode): it is in the database already, and a window read since may
   * hold it, so the windows of its versions are dropped and read again when asked for, rather than pushed onto.
   */
  forget(m: MatchRecord): void {
    for (const b of m.bots) {
      const key = keyOf(b.bot_id, b.version);
      const pending = this.loading.get(key);
      if (pending) pending.generation = -1;
      const w = this.windows.get(key);
      if (!w) continue;
      this.windows.delete(key);
      this.rows -= w.rows.length;
    }
  }

  private async load(key: string, botId: string, version: string): Promise<Window> {
    let pending = this.loading.get(key);
    if (!pending) {
      const entry = {
        generation: ++this.generation,
        promise: this.store.versionStats(botId, version, HEALTH_MATCHES).then((rows) => ({
          rows: rows.map(own),
          health: undefined as Health | null | undefined,
        })),
      };
      pending = entry;
      this.loading.set(key, entry);
      void entry.promise
        .then((w) => {
          if (this.loading.get(key) !== entry) return;
          this.loading.delete(key);
          if (entry.generation < 0) return; // a result arrived during the read: not kept
          this.windows.set(key, w);
          this.rows += w.rows.length;
          this.evict();
        })
        .catch(() => {
          if (this.loading.get(key) === entry) this.loading.delete(key);
        });
    }
    return pending.promise;
  }

  private evict(): void {
    for (const [key, w] of this.windows) {
      if (this.rows <= MAX_ROWS) break;
      this.windows.delete(key);
      this.rows -= w.rows.length;
    }
  }
}
