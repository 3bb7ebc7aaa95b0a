// The matches' SQL (issue 32: each domain's SQL lives with it): a finished match is written once, as one statement
// (match-insert.ts), by the durable results (durable-results.ts), and read back for lists, pages, stats and health;
// the quotas' and seat balance's counts and the replay trim are here too, since they read the same rows. Every
// write goes through the store's database, so the store's match write counter (`matchWrites`) moves after each
// committed one and the memoised match lists (in the store's read memo) are asked again.
import { type MatchStatsT, STATS_VERSION } from "../../engine/protocol.ts";
import { type Queryable, type Row, withTx } from "../db/db.ts";
import { iso, isoOrNull, numOrNull } from "../db/rows.ts";
import type { PairingRecord } from "../store/pairing-record.ts";
import type { MatchBotRecord, MatchQuery, MatchRecord, Store, StoredMatch } from "../store/types.ts";
import { insertMatches } from "./match-insert.ts";

function toMatchBot(r: Row): MatchBotRecord {
  return {
    fighter: Number(r.fighter),
    bot_id: String(r.bot_id),
    name: String(r.name),
    display_name: String(r.display_name),
    version: String(r.version),
    house: Boolean(r.house),
    avatar: (r.avatar as string | null) ?? null,
    rating_before: numOrNull(r.rating_before),
    rating_after: numOrNull(r.rating_after),
  };
}

/** The pairing column: jsonb arrives parsed from both drivers; a string is parsed (text from a cast). */
function pairingOf(v: unknown): PairingRecord | null {
  if (v === null || v === undefined) return null;
  return (typeof v === "string" ? JSON.parse(v) : v) as PairingRecord;
}

function toMatch(r: Row, bots: MatchBotRecord[]): StoredMatch {
  return {
    id: String(r.id),
    ladder_id: String(r.ladder_id),
    mode: r.mode as StoredMatch["mode"],
    seed: Number(r.seed),
    map: String(r.map),
    started: isoOrNull(r.started),
    ended: iso(r.ended),
    duration_ms: numOrNull(r.duration_ms),
    final_tick: Number(r.final_tick),
    reason: String(r.reason),
    winner_bot_id: (r.winner_bot_id as string | null) ?? null,
    voided: Boolean(r.voided),
    note: (r.note as string | null) ?? null,
    bots,
    replay_file: (r.replay_file as string | null) ?? null,
    pairing: pairingOf(r.pairing),
    replay_trimmed: Boolean(r.replay_trimmed),
    has_stats: Boolean(r.has_stats),
  };
}

// has_stats is stored with the match (migrations/0013_match_has_stats.sql), written with its stats.
const MATCH_COLUMNS = "m.*";

/**
 * What the match store works through: the database, the read memo under the match and bot write counters (a list
 * asked by a bot's name follows renames), and the embedded database's planner statistics (told of each insert).
 */
export type MatchStoreBase = Pick<Store, "db" | "memo" | "matchWrites" | "botWrites" | "plannerStats">;

export class MatchStore {
  constructor(private readonly k: MatchStoreBase) {}

  async saveMatch(m: MatchRecord): Promise<void> {
    await this.saveMatches([m]);
  }

  /**
   * Several results in one transaction (a group commit): all or none. Each is inserted once, as saveMatch does;
   * a result already stored, or listed twice, is skipped. One statement for the whole batch (match-insert.ts):
   * one round trip, atomic on its own.
   */
  async saveMatches(ms: readonly MatchRecord[]): Promise<void> {
    const seen = new Set<string>();
    const batch = ms.filter((m) => !seen.has(m.id) && seen.add(m.id));
    if (batch.length === 0) return;
    const { sql, params } = insertMatches(batch);
    await this.k.db.query(sql, params);
    this.k.plannerStats.wrote(batch.length);
  }

  async match(id: string): Promise<StoredMatch | null> {
    const rows = await this.k.db.query(`SELECT ${MATCH_COLUMNS} FROM matches m WHERE m.id = $1`, [id]);
    return (await this.withBots(this.k.db, rows))[0] ?? null;
  }

  /** Kept until a match or a bot is written (a bot named in the query is found by name). */
  matches(q: MatchQuery): Promise<StoredMatch[]> {
    return this.k.memo.get(
      `matches\0${JSON.stringify([q.ladder, q.botName, q.botId, q.beforeSeq, q.limit])}`,
      this.k.matchWrites.generation + this.k.botWrites.generation,
      () => this.readMatches(q),
      (v) => v.length,
    );
  }

  private async readMatches(q: MatchQuery): Promise<StoredMatch[]> {
    const params: unknown[] = [];
    const where: string[] = [];
    if (q.ladder !== undefined) {
      params.push(q.ladder);
      where.push(`m.ladder_id = $${params.length}`);
    }
    let rows: Row[];
    const before = (col: string) => {
      if (q.beforeSeq === undefined) return "";
      params.push(q.beforeSeq);
      return `AND ${col} < $${params.length}`;
    };
    if (q.botName !== undefined) {
      // A bot's matches follow its id, so they stay found after a rename; a name no current bot carries
      // falls back to the name stored with each match (a renamed-away or deleted bot).
      const bot = q.botId !== undefined ? { id: q.botId } : await this.botIdByName(q.botName);
      params.push(bot ? bot.id : q.botName);
      const n = params.length;
      const seat = (alias: string) =>
        bot ? `${alias}.bot_id = $${n}` : `lower(${alias}.name) = lower($${n})`;
      const cursor = before("mb.seq");
      params.push(q.limit);
      // Walk the bot's (bot_id, seq) index newest first and stop at the limit; the NOT EXISTS keeps a match
      // once should both fighters ever be the same bot.
      rows = await this.k.db.query(
        `SELECT ${MATCH_COLUMNS} FROM match_bots mb JOIN matches m ON m.id = mb.match_id
         WHERE ${seat("mb")} ${where.map((w) => `AND ${w}`).join(" ")} ${cursor}
           AND NOT EXISTS (SELECT 1 FROM match_bots o
                           WHERE o.match_id = mb.match_id AND o.fighter < mb.fighter AND ${seat("o")})
         ORDER BY mb.seq DESC LIMIT $${params.length}`,
        params,
      );
    } else {
      const cursor = before("m.seq");
      if (cursor) where.push(cursor.slice(4));
      params.push(q.limit);
      // Walks matches_seq_key (or matches_ladder_seq_idx with a ladder) newest first from the cursor.
      rows = await this.k.db.query(
        `SELECT ${MATCH_COLUMNS} FROM matches m ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
         ORDER BY m.seq DESC LIMIT $${params.length}`,
        params,
      );
    }
    return this.withBots(this.k.db, rows);
  }

  /** A stored match's insertion order (the list cursor's key); null when no match has the id. */
  async matchSeq(id: string): Promise<number | null> {
    const rows = await this.k.db.query<{ seq: unknown }>("SELECT seq FROM matches WHERE id = $1", [id]);
    return rows[0] ? Number(rows[0].seq) : null;
  }

  /** Null when there are none, and when the match is voided or its replay was trimmed (the route's 404). */
  async matchStats(id: string): Promise<MatchStatsT | null> {
    const rows = await this.k.db.query<{ stats: MatchStatsT }>(
      `SELECT s.stats FROM match_stats s JOIN matches m ON m.id = s.match_id
       WHERE m.id = $1 AND NOT m.voided AND NOT m.replay_trimmed`,
      [id],
    );
    return rows[0]?.stats ?? null;
  }

  /**
   * Stats of the latest `limit` matches a bot version played, for health summaries. Reads trimmed matches too:
   * stats are kept after the replay is trimmed, and health is built from them.
   */
  async versionStats(botId: string, label: string, limit: number) {
    const rows = await this.k.db.query<{ fighter: unknown; stats: MatchStatsT }>(
      `SELECT mb.fighter, s.stats
       FROM match_bots mb JOIN matches m ON m.id = mb.match_id JOIN match_stats s ON s.match_id = mb.match_id
       WHERE mb.bot_id = $1 AND mb.version = $2 AND s.stats_version = $3 AND NOT m.voided
       ORDER BY mb.seq DESC, mb.fighter LIMIT $4`,
      [botId, label, STATS_VERSION, limit],
    );
    return rows.map((r) => ({ fighter: Number(r.fighter), stats: r.stats }));
  }

  /**
   * A replay is kept while it is among the newest `keep` replays (by seq, counting every match of the bot that
   * has a replay file) of at least one of its player bots: a player's own recent games never disappear because
   * a busy opponent, such as a house bot, has played many since. House bots alone do not keep a replay alive,
   * except in a match with no player bot at all, where its house bots decide. Ranks only grow as matches are
   * added, so a trimmed replay would never have come back into a window.
   */
  async trimReplays(keep: number, tx?: Queryable): Promise<string[]> {
    const rows = await withTx(this.k.db, tx, (q) =>
      q.query<{ replay_file: string }>(
        `WITH ranked AS (
           SELECT mb.match_id, mb.house,
                  row_number() OVER (PARTITION BY mb.bot_id ORDER BY mb.seq DESC) <= $1 AS recent
           FROM match_bots mb JOIN matches m ON m.id = mb.match_id
           WHERE m.replay_file IS NOT NULL
         ), per_match AS (
           SELECT match_id,
                  coalesce(bool_or(recent) FILTER (WHERE NOT house), false) AS kept_by_player,
                  bool_or(NOT house) AS has_player,
                  bool_or(recent) AS kept_by_any
           FROM ranked GROUP BY match_id
         )
         UPDATE matches m SET replay_trimmed = true
         FROM per_match p
         WHERE m.id = p.match_id AND NOT m.replay_trimmed
           AND NOT (CASE WHEN p.has_player THEN p.kept_by_player ELSE p.kept_by_any END)
         RETURNING m.replay_file`,
        [keep],
      ),
    );
    return [...new Set(rows.map((r) => r.replay_file))];
  }

  /**
   * Per bot: fighter-0 games minus fighter-1 games, for seat balancing. From the rows the database keeps with
   * each insert (migrations/0020; scrimmages and tournaments left out).
   */
  async seatBalance(): Promise<Map<string, number>> {
    const rows = await this.k.db.query("SELECT bot_id, balance FROM bot_seat_balance");
    return new Map(rows.map((r) => [String(r.bot_id), Number(r.balance)]));
  }

  /**
   * Match starts since a time, per bot and per owner (player bots only; of one ladder when named): the ranked
   * quotas, which scrimmages (their own limits, server/scrimmages/) never use up.
   */
  async startsSince(since: string, ladderId?: string) {
    const rows = await this.k.db.query(
      `SELECT mb.bot_id, b.owner, count(*) AS n
       FROM match_bots mb JOIN matches m ON m.id = mb.match_id JOIN bots b ON b.id = mb.bot_id
       WHERE m.started >= $1::timestamptz AND NOT mb.house AND m.mode NOT IN ('scrimmage', 'tournament')
         AND ($2::text IS NULL OR m.ladder_id = $2::text)
       GROUP BY mb.bot_id, b.owner`,
      [since, ladderId ?? null],
    );
    const byBot = new Map<string, number>();
    const byOwner = new Map<string, number>();
    for (const r of rows) {
      const n = Number(r.n);
      byBot.set(String(r.bot_id), n);
      byOwner.set(String(r.owner), (byOwner.get(String(r.owner)) ?? 0) + n);
    }
    return { byBot, byOwner };
  }

  /** Replay files that stored matches refer to (relative to the data dir). */
  async replayFiles(): Promise<Set<string>> {
    const rows = await this.k.db.query(
      "SELECT replay_file FROM matches WHERE replay_file IS NOT NULL AND NOT replay_trimmed",
    );
    return new Set(rows.map((r) => String(r.replay_file)));
  }

  /** The id of the bot named `name` now (any letter case), for a match list asked by name. */
  private async botIdByName(name: string): Promise<{ id: string } | null> {
    const rows = await this.k.db.query("SELECT id FROM bots WHERE name_lower = lower($1)", [name]);
    return rows[0] ? { id: String(rows[0].id) } : null;
  }

  /** Attaches each match's bots (in fighter order) with one query, keeping the rows' order. */
  private async withBots(q: Queryable, rows: Row[]): Promise<StoredMatch[]> {
    if (rows.length === 0) return [];
    const bots = await q.query("SELECT * FROM match_bots WHERE match_id = ANY($1::text[]) ORDER BY fighter", [
      rows.map((r) => String(r.id)),
    ]);
    const byMatch = new Map<string, MatchBotRecord[]>();
    for (const b of bots) {
      const id = String(b.match_id);
      byMatch.set(id, [...(byMatch.get(id) ?? []), toMatchBot(b)]);
    }
    return rows.map((r) => toMatch(r, byMatch.get(String(r.id)) ?? []));
  }
}
