// The match reads of SPEC 4.1: lists of a ladder's or a bot's matches (keyset pages, journaled results first),
// one match, and its stats. Each stored row's view and each stored list's views are kept by the row or the list
// the store hands back (the store returns the same ones until a match or a bot is written, server/store/read-memo.ts),
// so a list of 500 is mapped once, not on every read.
import { publicStats, type RecordedStatsT } from "../../engine/stats.ts";
import type { MatchStatsT, MatchT } from "../api/responses.ts";
import { matchView } from "../api/views.ts";
import { errors } from "../errors.ts";
import type { Services } from "../kernel/feature.ts";
import { BOT_NAME } from "../kernel/names.ts";
import type { Ladders } from "../ladders/registry.ts";
import type { BotRow, MatchRecord, StoredMatch } from "../store/types.ts";

export interface MatchReadsDeps extends Pick<Services, "matchStore"> {
  ladders: Ladders;
  publicUrl: string;
  /** Results that are durable in the journal but not yet in the database (newest last). */
  journaled(): readonly MatchRecord[];
  /** A bot by name from the bot directory's snapshot (no query); null when there is none. */
  botByName(name: string): Promise<BotRow | null>;
}

export class MatchReads {
  /** Each stored match's list view by the stored row. */
  private readonly views = new WeakMap<StoredMatch, MatchT>();
  /** Each stored list's views (frozen), by the store's list (kept until a match or a bot is written). */
  private readonly lists = new WeakMap<readonly StoredMatch[], readonly MatchT[]>();

  constructor(private readonly d: MatchReadsDeps) {}

  /**
   * Matches, newest first, of a ladder and/or a bot; with stats when asked. Results still in the journal (the
   * database was unreachable when they ended) come first, as the newest: a bot reconciling after an outage
   * (SPEC 6.2) finds every result it was told. `before` (a match id, say the last of the previous page) is a
   * keyset cursor: only matches older than that one, so pages neither repeat nor skip a match while new ones
   * arrive; an id that names no match is a 400.
   */
  async matches(q: {
    ladder?: string;
    bot?: string;
    limit: number;
    stats?: boolean;
    before?: string;
  }): Promise<MatchT[]> {
    if (q.ladder !== undefined) this.d.ladders.require(q.ladder);
    let pending = this.pendingMatches(q);
    let beforeSeq: number | undefined;
    if (q.before !== undefined) {
      const journal = this.d.journaled();
      const at = journal.findIndex((m) => m.id === q.before);
      if (at >= 0) {
        // A journaled cursor: the journaled results before it, then the stored ones from the newest.
        const older = new Set(journal.slice(0, at));
        pending = pending.filter((m) => older.has(m));
      } else {
        const seq = await this.d.matchStore.matchSeq(q.before);
        if (seq === null) throw errors.badRequest(`before: ${JSON.stringify(q.before)} names no match`);
        // Every journaled result is newer than any stored one.
        pending = [];
        beforeSeq = seq;
      }
    }
    pending = pending.slice(0, q.limit);
    const bot = q.bot !== undefined && BOT_NAME.test(q.bot) ? await this.d.botByName(q.bot) : null;
    const stored =
      pending.length === q.limit
        ? []
        : await this.d.matchStore.matches({
            limit: q.limit - pending.length,
            ...(q.ladder !== undefined ? { ladder: q.ladder } : {}),
            ...(q.bot !== undefined ? { botName: q.bot } : {}),
            ...(bot ? { botId: bot.id } : {}),
            ...(beforeSeq !== undefined ? { beforeSeq } : {}),
          });
    if (!q.stats && pending.length === 0) return this.listOf(stored) as MatchT[];
    const views = pending.map((m) =>
      matchView(storedForm(m), this.d.publicUrl, q.stats ? m.stats && publicStats(m.stats) : undefined),
    );
    if (!q.stats) return [...views, ...stored.map((m) => this.view(m))];
    return [
      ...views,
      ...(await Promise.all(
        stored.map(async (m) => {
          const stats = await this.d.matchStore.matchStats(m.id);
          return matchView(m, this.d.publicUrl, stats && publicStats(stats));
        }),
      )),
    ];
  }

  /**
   * A stored list's views, frozen and kept by the list (the store hands back the same list until a match or a
   * bot is written): the same array for every read of it, so what is derived from it is kept too.
   */
  private listOf(stored: readonly StoredMatch[]): readonly MatchT[] {
    let list = this.lists.get(stored);
    if (!list) {
      list = Object.freeze(stored.map((m) => this.view(m)));
      this.lists.set(stored, list);
    }
    return list;
  }

  /** A stored match's list view, kept by its row (callers must not change it). */
  view(m: StoredMatch): MatchT {
    let v = this.views.get(m);
    if (!v) {
      v = matchView(m, this.d.publicUrl);
      this.views.set(m, v);
    }
    return v;
  }

  async match(id: string): Promise<MatchT> {
    const m = await this.storedMatch(id);
    if (!m) throw errors.noSuchMatch(id);
    // Only the one match carries why it was paired (issue 33); lists stay as they were.
    return { ...matchView(m, this.d.publicUrl), pairing: m.pairing ?? null };
  }

  /** A finished match from the journal (not yet in the database) or the database; null when unknown. */
  async storedMatch(id: string): Promise<StoredMatch | null> {
    const journaled = this.journaledMatch(id);
    return journaled ? storedForm(journaled) : this.d.matchStore.match(id);
  }

  /** A match's stats; 404 when the match is unknown, voided or its replay trimmed. */
  async stats(id: string): Promise<MatchStatsT & { match_id: string }> {
    return { ...publicStats(await this.recordedStats(id)), match_id: id };
  }

  /**
   * A match's stats as recorded, with each fighter's owner-only diagnostics (engine/stats.ts): only for a
   * caller that checked the asker owns the fighter's bot. 404 as stats().
   */
  async recordedStats(id: string): Promise<RecordedStatsT> {
    const journaled = this.journaledMatch(id);
    if (journaled) {
      if (!journaled.stats || journaled.voided) throw errors.noStats(id);
      return journaled.stats;
    }
    const m = await this.d.matchStore.match(id);
    if (!m) throw errors.noSuchMatch(id);
    const stats = await this.d.matchStore.matchStats(id);
    if (!stats) throw errors.noStats(id);
    return stats;
  }

  private journaledMatch(id: string): MatchRecord | undefined {
    return this.d.journaled().find((m) => m.id === id);
  }

  private pendingMatches(q: { ladder?: string; bot?: string }): MatchRecord[] {
    const bot = q.bot?.toLowerCase();
    return this.d
      .journaled()
      .filter(
        (m) =>
          (q.ladder === undefined || m.ladder_id === q.ladder) &&
          (bot === undefined || m.bots.some((b) => b.name.toLowerCase() === bot)),
      )
      .reverse();
  }
}

/** A journaled result in the shape of a stored one (its replay is on disk and not trimmed yet). */
function storedForm(m: MatchRecord): StoredMatch {
  const { stats, ...rest } = m;
  return { ...rest, replay_trimmed: false, has_stats: stats !== null && !m.voided };
}
