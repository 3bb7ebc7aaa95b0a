// The ratings' reads of the match tables and the rating book's snapshot (issue 32: each domain's SQL lives with
// it): rated results for the book (server/ratings/book-start.ts), records for the leaderboard, a bot's rating
// history and sparklines. The match tables are written by the matches' store; these reads only follow them, and
// the sparklines are kept in the store's read memo until a match is written (server/store/read-memo.ts).
import { iso, numOrNull } from "../db/rows.ts";
import type { Store } from "../store/types.ts";

/** A rated result, as the rating book loads it: fighter 0's version against fighter 1's. */
export interface RatedResultRow {
  match_id: string;
  /** The match's order number (from the store; absent on a record not yet stored). */
  seq?: number;
  map: string;
  /** Bot id of the winner, or null for a draw. */
  winner: string | null;
  bots: [RatedSide, RatedSide];
}

/** A rating book snapshot: the book as of the `results`-th rated result, the match with order number `through_seq`. */
export interface RatingSnapshot {
  through_seq: number;
  results: number;
  book: string;
}

export interface RatedSide {
  bot_id: string;
  version: string;
  house: boolean;
}

/** One rated game of a bot, for its rating history (oldest first). */
export interface RatingPointRow {
  match_id: string;
  ended: string;
  version: string;
  rating_before: number | null;
  rating_after: number | null;
  winner: string | null;
  bot_id: string;
  opponent: { bot_id: string; name: string; display_name: string; version: string };
  map: string;
}

export interface LadderRecordRow {
  bot_id: string;
  version: string;
  wins: number;
  losses: number;
  draws: number;
  last: number;
}

/** What the rating store reads through: the database, and the read memo kept until matches are written. */
export type RatingStoreBase = Pick<Store, "db" | "memo" | "matchWrites">;

export class RatingStore {
  constructor(private readonly k: RatingStoreBase) {}

  /** Only versions that played a counted match appear; a draw is a non-voided match without a winner. */
  async versionRecords(botId: string, ladderId?: string) {
    const rows = await this.k.db.query<{ version: string; wins: unknown; losses: unknown; draws: unknown }>(
      `SELECT mb.version,
              count(*) FILTER (WHERE m.winner_bot_id = mb.bot_id) AS wins,
              count(*) FILTER (WHERE m.winner_bot_id <> mb.bot_id) AS losses,
              count(*) FILTER (WHERE m.winner_bot_id IS NULL) AS draws
       FROM match_bots mb JOIN matches m ON m.id = mb.match_id
       WHERE mb.bot_id = $1 AND m.mode = 'ranked' AND NOT m.voided
         AND ($2::text IS NULL OR m.ladder_id = $2::text)
       GROUP BY mb.version`,
      [botId, ladderId ?? null],
    );
    return new Map(
      rows.map((r) => [
        r.version,
        { wins: Number(r.wins), losses: Number(r.losses), draws: Number(r.draws) },
      ]),
    );
  }

  /** From the rows the database keeps with each insert (migrations/0020): one row per version, not per game. */
  async ladderRecords(ladderId: string): Promise<LadderRecordRow[]> {
    const rows = await this.k.db.query(
      "SELECT bot_id, version, wins, losses, draws, last FROM ladder_version_records WHERE ladder_id = $1",
      [ladderId],
    );
    return rows.map((r) => ({
      bot_id: String(r.bot_id),
      version: String(r.version),
      wins: Number(r.wins),
      losses: Number(r.losses),
      draws: Number(r.draws),
      last: Number(r.last),
    }));
  }

  async ratedResults(ladderId: string, afterSeq = -1): Promise<RatedResultRow[]> {
    const rows = await this.k.db.query(
      `SELECT m.id, m.seq, m.map, m.winner_bot_id,
              a.bot_id AS a_bot, a.version AS a_version, a.house AS a_house,
              b.bot_id AS b_bot, b.version AS b_version, b.house AS b_house
       FROM matches m
       JOIN match_bots a ON a.match_id = m.id AND a.fighter = 0
       JOIN match_bots b ON b.match_id = m.id AND b.fighter = 1
       WHERE m.ladder_id = $1 AND m.seq > $2 AND m.mode = 'ranked' AND NOT m.voided
       ORDER BY m.seq`,
      [ladderId, afterSeq],
    );
    return rows.map((r) => ({
      match_id: String(r.id),
      seq: Number(r.seq),
      map: String(r.map),
      winner: (r.winner_bot_id as string | null) ?? null,
      bots: [
        { bot_id: String(r.a_bot), version: String(r.a_version), house: Boolean(r.a_house) },
        { bot_id: String(r.b_bot), version: String(r.b_version), house: Boolean(r.b_house) },
      ],
    }));
  }

  async countRatedResults(ladderId: string, throughSeq: number): Promise<number> {
    // The same rows as ratedResults counts (a match without both seats is not a result there either).
    const rows = await this.k.db.query(
      `SELECT count(*) AS n FROM matches m
       WHERE m.ladder_id = $1 AND m.seq <= $2 AND m.mode = 'ranked' AND NOT m.voided
         AND EXISTS (SELECT 1 FROM match_bots a WHERE a.match_id = m.id AND a.fighter = 0)
         AND EXISTS (SELECT 1 FROM match_bots b WHERE b.match_id = m.id AND b.fighter = 1)`,
      [ladderId, throughSeq],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async ratingSnapshot(ladderId: string): Promise<RatingSnapshot | null> {
    const rows = await this.k.db.query(
      "SELECT through_seq, results, book FROM rating_snapshots WHERE ladder_id = $1",
      [ladderId],
    );
    const r = rows[0];
    return r
      ? { through_seq: Number(r.through_seq), results: Number(r.results), book: String(r.book) }
      : null;
  }

  async saveRatingSnapshot(ladderId: string, s: RatingSnapshot): Promise<void> {
    await this.k.db.query(
      `INSERT INTO rating_snapshots (ladder_id, through_seq, results, book) VALUES ($1, $2, $3, $4)
       ON CONFLICT (ladder_id) DO UPDATE SET through_seq = $2, results = $3, book = $4, saved_at = now()`,
      [ladderId, s.through_seq, s.results, s.book],
    );
  }

  async lastRatedPlay(ladderId: string): Promise<Map<string, number>> {
    const rows = await this.k.db.query(
      "SELECT bot_id, version, last FROM ladder_version_records WHERE ladder_id = $1",
      [ladderId],
    );
    return new Map(rows.map((r) => [JSON.stringify([String(r.bot_id), String(r.version)]), Number(r.last)]));
  }

  async ratedResultCount(ladderId: string): Promise<number> {
    const rows = await this.k.db.query("SELECT results FROM ladder_rated_counts WHERE ladder_id = $1", [
      ladderId,
    ]);
    return Number(rows[0]?.results ?? 0);
  }

  async ratingKeys(botId: string, ladderId: string, since: string | null) {
    // Without a time: an index-only walk of match_bots_rated_idx (migrations/0014). With one, the matches are
    // joined for their end time.
    const rows = await this.k.db.query<{ seq: unknown; version: string }>(
      since === null
        ? `SELECT me.seq, me.version FROM match_bots me
           WHERE me.bot_id = $1 AND me.rated_ladder = $2 ORDER BY me.seq`
        : `SELECT me.seq, me.version FROM match_bots me JOIN matches m ON m.id = me.match_id
           WHERE me.bot_id = $1 AND me.rated_ladder = $2 AND m.ended >= $3::timestamptz ORDER BY me.seq`,
      since === null ? [botId, ladderId] : [botId, ladderId, since],
    );
    return rows.map((r) => ({ seq: Number(r.seq), version: String(r.version) }));
  }

  async ratingPoints(
    botId: string,
    ladderId: string,
    since: string | null,
    seqs?: readonly number[],
  ): Promise<RatingPointRow[]> {
    const rows = await this.k.db.query(
      `SELECT m.id, m.ended, m.map, m.winner_bot_id, me.version, me.rating_before, me.rating_after,
              op.bot_id AS op_bot, op.name AS op_name, op.display_name AS op_display, op.version AS op_version
       FROM match_bots me
       JOIN matches m ON m.id = me.match_id
       JOIN match_bots op ON op.match_id = me.match_id AND op.fighter <> me.fighter
       WHERE me.bot_id = $1 AND me.rated_ladder = $2
         AND ($3::timestamptz IS NULL OR m.ended >= $3::timestamptz)
         AND ($4::bigint[] IS NULL OR me.seq = ANY($4::bigint[]))
       ORDER BY me.seq`,
      [botId, ladderId, since, seqs ? [...seqs] : null],
    );
    return rows.map((r) => ({
      match_id: String(r.id),
      ended: iso(r.ended),
      version: String(r.version),
      rating_before: numOrNull(r.rating_before),
      rating_after: numOrNull(r.rating_after),
      winner: (r.winner_bot_id as string | null) ?? null,
      bot_id: botId,
      opponent: {
        bot_id: String(r.op_bot),
        name: String(r.op_name),
        display_name: String(r.op_display),
        version: String(r.op_version),
      },
      map: String(r.map),
    }));
  }

  ratingTail(botId: string, version: string, ladderId: string, limit: number): Promise<number[]> {
    return this.k.memo.get(
      `tail\0${botId}\0${version}\0${ladderId}\0${limit}`,
      this.k.matchWrites.generation,
      () => this.readRatingTail(botId, version, ladderId, limit),
      (v) => Math.ceil(v.length / 20),
    );
  }

  private async readRatingTail(botId: string, version: string, ladderId: string, limit: number) {
    // Walks the (bot_id, version, seq) index newest first and stops at the limit: what the sparkline shows, not
    // the whole history (rated_ladder is the seat's rated ladder, migrations/0014).
    const rows = await this.k.db.query<{ rating_after: unknown }>(
      `SELECT me.rating_after FROM match_bots me
       WHERE me.bot_id = $1 AND me.version = $2 AND me.rated_ladder = $3
       ORDER BY me.seq DESC LIMIT $4`,
      [botId, version, ladderId, limit],
    );
    return rows.map((r) => Number(r.rating_after)).reverse();
  }
}
