// The one statement that stores a batch of match results (SqlStore.saveMatches): the match rows, their bots and
// their stats as three inserts joined by data-modifying WITH clauses. One statement rather than a transaction of
// three is one round trip to the database instead of five (BEGIN, three inserts, COMMIT): on the embedded
// database each is a message to its thread and back, two thread wake-ups (docs/performance-live-path.md, fifth
// pass). A statement is atomic on its own, so the three inserts still commit together. The bots and stats rows
// join the match rows the statement inserted: a result already stored (a retry after an unclear failure)
// inserts nothing at all. Foreign keys are checked at the statement's end, after all three inserts.
import type { MatchRecord } from "../store/types.ts";

// The column types of the VALUES lists: a parameter in a VALUES list that feeds a SELECT is not typed by the
// column it ends up in, so each carries its cast.
const MATCH_CASTS = [
  "text",
  "text",
  "text",
  "bigint",
  "text",
  "timestamptz",
  "timestamptz",
  "double precision",
  "integer",
  "text",
  "text",
  "boolean",
  "text",
  "text",
  "jsonb",
  "boolean",
] as const;
const BOT_CASTS = [
  "text",
  "integer",
  "text",
  "text",
  "text",
  "text",
  "boolean",
  "text",
  "double precision",
  "double precision",
] as const;
const STAT_CASTS = ["text", "integer", "jsonb"] as const;

/** The statement and its parameters for `batch` (match ids distinct). */
export function insertMatches(batch: readonly MatchRecord[]): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const rows = (values: unknown[][], casts: readonly string[]) =>
    values.map((r) => `(${r.map((v, i) => `$${params.push(v)}::${casts[i]}`).join(", ")})`).join(", ");
  const matchValues = rows(
    batch.map((m) => [
      m.id,
      m.ladder_id,
      m.mode,
      m.seed,
      m.map,
      m.started,
      m.ended,
      m.duration_ms,
      m.final_tick,
      m.reason,
      m.winner_bot_id,
      m.voided,
      m.note,
      m.replay_file,
      m.pairing ? JSON.stringify(m.pairing) : null,
      m.stats !== null,
    ]),
    MATCH_CASTS,
  );
  const botValues = rows(
    batch.flatMap((m) =>
      m.bots.map((b) => [
        m.id,
        b.fighter,
        b.bot_id,
        b.name,
        b.display_name,
        b.version,
        b.house,
        b.avatar,
        b.rating_before,
        b.rating_after,
      ]),
    ),
    BOT_CASTS,
  );
  const statValues = rows(
    batch.flatMap((m) => (m.stats ? [[m.id, m.stats.stats_version, JSON.stringify(m.stats)]] : [])),
    STAT_CASTS,
  );
  // A VALUES list needs a row: the bots' and stats' inserts are left out when there are none. A data-modifying
  // WITH clause runs whether or not the query reads it.
  const clauses = [
    `m AS (
       INSERT INTO matches (id, ladder_id, mode, seed, map, started, ended, duration_ms, final_tick, reason,
                            winner_bot_id, voided, note, replay_file, pairing, has_stats)
       VALUES ${matchValues}
       ON CONFLICT (id) DO NOTHING RETURNING id, seq, ladder_id, mode, voided
     )`,
    botValues &&
      `b AS (
       INSERT INTO match_bots (match_id, seq, fighter, bot_id, name, display_name, version, house, avatar,
                               rating_before, rating_after, rated_ladder)
       SELECT v.match_id, m.seq, v.fighter, v.bot_id, v.name, v.display_name, v.version, v.house, v.avatar,
              v.rating_before, v.rating_after,
              -- The ladder the seat was rated on (migrations/0014): what a rating history is picked by.
              CASE WHEN m.mode = 'ranked' AND NOT m.voided AND v.rating_after IS NOT NULL THEN m.ladder_id END
       FROM (VALUES ${botValues}) AS v (match_id, fighter, bot_id, name, display_name, version, house, avatar,
                                         rating_before, rating_after)
       JOIN m ON m.id = v.match_id
     )`,
    statValues &&
      `s AS (
       INSERT INTO match_stats (match_id, stats_version, stats)
       SELECT v.match_id, v.stats_version, v.stats
       FROM (VALUES ${statValues}) AS v (match_id, stats_version, stats)
       JOIN m ON m.id = v.match_id
     )`,
  ].filter(Boolean);
  return { sql: `WITH ${clauses.join(", ")} SELECT count(*) AS n FROM m`, params };
}
