// A ladder's leaderboard kept in memory (SPEC 1.2 rule 9): each version's rated record and the order of its
// newest rated game, loaded once and then updated from each committed MatchFinished, combined with the
// ladder's rating book and the bot directory. The sorted rows are cached until a result or a bot changes;
// only `online`, which follows connections, is filled in per request. No query per bot, none per request.
import type { BotSnapshot } from "../store/bot-row.ts";
import type { MatchRecord } from "../store/types.ts";
import { type RatingBook, versionKey } from "./book.ts";
import type { LadderRecordRow } from "./rating-store.ts";

export interface Record3 {
  wins: number;
  losses: number;
  draws: number;
}

interface VersionRecord extends Record3 {
  botId: string;
  label: string;
  /** Order of the version's newest rated game on this ladder (higher is newer). */
  last: number;
}

export interface LeaderboardRow {
  rank: number;
  name: string;
  display_name: string;
  version: string;
  owner: string;
  owner_url: string | null;
  house: boolean;
  online: boolean;
  rating: number;
  rating_deviation: number;
  leaderboard_score: number;
  wins: number;
  losses: number;
  draws: number;
}

/** A row without its rank and `online` (filled in per request), with the bot id to look `online` up by. */
interface CachedRow extends Omit<LeaderboardRow, "rank" | "online"> {
  botId: string;
}

const NO_RECORD: Record3 = Object.freeze({ wins: 0, losses: 0, draws: 0 });

export class Leaderboard {
  /** Per bot: its versions' records on this ladder. */
  private readonly byBot = new Map<string, Map<string, VersionRecord>>();
  private nextOrder = 1;
  /** Grows with each recorded result; with the directory's generation it keys the cache. */
  private results = 0;
  private cache: { generation: number; results: number; rows: CachedRow[] } | null = null;
  /** The last answer of rows() with its online bots' key: asked again with the same key, no row is rebuilt. */
  private filled: { rows: CachedRow[]; onlineKey: string; answer: LeaderboardRow[] } | null = null;

  constructor(
    readonly ladderId: string,
    private readonly ratings: RatingBook,
  ) {}

  load(rows: readonly LadderRecordRow[]): void {
    this.byBot.clear();
    for (const r of rows) {
      this.versions(r.bot_id).set(r.version, {
        botId: r.bot_id,
        label: r.version,
        wins: r.wins,
        losses: r.losses,
        draws: r.draws,
        last: r.last,
      });
      this.nextOrder = Math.max(this.nextOrder, r.last + 1);
    }
    this.results++;
  }

  /** A committed result: counts only rated (ranked, not voided) games of this ladder. */
  recordMatch(m: MatchRecord): void {
    if (m.ladder_id !== this.ladderId || m.mode !== "ranked" || m.voided) return;
    const order = this.nextOrder++;
    for (const b of m.bots) {
      const v = this.versions(b.bot_id);
      const rec = v.get(b.version) ?? {
        botId: b.bot_id,
        label: b.version,
        wins: 0,
        losses: 0,
        draws: 0,
        last: 0,
      };
      if (m.winner_bot_id === null) rec.draws++;
      else if (m.winner_bot_id === b.bot_id) rec.wins++;
      else rec.losses++;
      rec.last = order;
      v.set(b.version, rec);
    }
    this.results++;
  }

  /** A version's record on this ladder. */
  record(botId: string, label: string): Record3 {
    return this.byBot.get(botId)?.get(label) ?? NO_RECORD;
  }

  /** Per version label, the bot's records on this ladder. */
  records(botId: string): ReadonlyMap<string, Record3> {
    return this.byBot.get(botId) ?? new Map();
  }

  /**
   * The rows in rank order: each active bot once, at its ranked, unretired version that last played a rated
   * game here, sorted by leaderboard_score (then name). `onlineKey`, when given, names everything `online`
   * answers from (the online bots and their versions): the same key as the last call gives the same array back
   * (frozen: callers must not change it or its rows) without building 2,000 rows again, and a caller may keep
   * what it derives from the rows by the array's identity.
   */
  rows(
    dir: BotSnapshot,
    base: string,
    online: (botId: string, version: string) => boolean,
    onlineKey?: string,
  ): LeaderboardRow[] {
    if (!this.cache || this.cache.generation !== dir.generation || this.cache.results !== this.results)
      this.cache = { generation: dir.generation, results: this.results, rows: this.build(dir, base) };
    const f = this.filled;
    if (onlineKey !== undefined && f && f.rows === this.cache.rows && f.onlineKey === onlineKey)
      return f.answer;
    const answer = this.cache.rows.map((r, i) => ({
      rank: i + 1,
      name: r.name,
      display_name: r.display_name,
      version: r.version,
      owner: r.owner,
      owner_url: r.owner_url,
      house: r.house,
      online: online(r.botId, r.version),
      rating: r.rating,
      rating_deviation: r.rating_deviation,
      leaderboard_score: r.leaderboard_score,
      wins: r.wins,
      losses: r.losses,
      draws: r.draws,
    }));
    if (onlineKey === undefined) return answer;
    Object.freeze(answer);
    this.filled = { rows: this.cache.rows, onlineKey, answer };
    return answer;
  }

  private build(dir: BotSnapshot, base: string): CachedRow[] {
    const rows: CachedRow[] = [];
    for (const [botId, versions] of this.byBot) {
      const bot = dir.byId.get(botId);
      if (bot?.status !== "active") continue;
      const retired = dir.retired.get(botId);
      let best: VersionRecord | null = null;
      for (const v of versions.values()) {
        if (retired?.has(v.label)) continue;
        if (!this.ratings.get(versionKey(botId, v.label)).ranked) continue;
        if (!best || v.last > best.last) best = v;
      }
      if (!best) continue;
      const r = this.ratings.get(versionKey(botId, best.label));
      rows.push({
        botId,
        name: bot.name,
        display_name: bot.display_name,
        version: best.label,
        owner: bot.owner,
        owner_url: bot.house ? null : `${base}/user/${encodeURIComponent(bot.owner)}`,
        house: bot.house,
        rating: Math.round(r.rating),
        rating_deviation: Math.round(r.deviation),
        leaderboard_score: r.leaderboardScore,
        wins: best.wins,
        losses: best.losses,
        draws: best.draws,
      });
    }
    rows.sort((a, b) => b.leaderboard_score - a.leaderboard_score || a.name.localeCompare(b.name));
    return rows;
  }

  private versions(botId: string): Map<string, VersionRecord> {
    let v = this.byBot.get(botId);
    if (!v) {
      v = new Map();
      this.byBot.set(botId, v);
    }
    return v;
  }
}
