// SQL of settlement phases (migration 0014): each settlement, the extra games it started and its final
// snapshot. The snapshot is written once (`publish`): the table's primary key refuses a second row for the same
// settlement and a trigger refuses every UPDATE and DELETE, so there is no path by which published standings
// change. Writes take a Queryable so the service can put a change and its audit entry in one unit of work.
import { randomBytes } from "node:crypto";
import type { Db, Queryable, Row } from "../db/db.ts";
import { iso, isoOrNull } from "../db/rows.ts";

export type SettlementState = "scheduled" | "settling" | "final";

/** One of the top K as the settlement began. */
export interface FrozenEntry {
  rank: number;
  bot_id: string;
  name: string;
  version: string;
  rating: number;
}

export interface SettlementRow {
  id: string;
  ladder_id: string;
  /** The event whose window this settlement ends (on its ladder), null for the ladder's own. */
  event_id: string | null;
  top_k: number;
  game_budget: number;
  starts_at: string;
  ends_at: string;
  state: SettlementState;
  frozen: FrozenEntry[] | null;
  created_by: string | null;
  created: string;
  began_at: string | null;
  ended_at: string | null;
}

export interface SettlementGameRow {
  match_id: string;
  settlement_id: string;
  /** The two bots by name, as paired (rank order). */
  bots: [string, string];
  /** How many ranks their two rank intervals shared when paired. */
  overlap: number;
  started: string;
  ended: string | null;
  voided: boolean | null;
}

/** One row of the final standings. */
export interface StandingRow {
  rank: number;
  name: string;
  display_name: string;
  version: string;
  rating: number;
  rating_deviation: number;
  rank_low: number | null;
  rank_high: number | null;
  games: number;
  wins: number;
  losses: number;
  draws: number;
  /** One of the settlement's top K. */
  settled: boolean;
}

export interface SnapshotRow {
  settlement_id: string;
  ladder_id: string;
  taken_at: string;
  top_k: number;
  games_played: number;
  standings: StandingRow[];
}

const json = <T>(v: unknown): T => (typeof v === "string" ? JSON.parse(v) : v) as T;

function settlement(r: Row): SettlementRow {
  return {
    id: String(r.id),
    ladder_id: String(r.ladder_id),
    event_id: (r.event_id as string | null) ?? null,
    top_k: Number(r.top_k),
    game_budget: Number(r.game_budget),
    starts_at: iso(r.starts_at),
    ends_at: iso(r.ends_at),
    state: String(r.state) as SettlementState,
    frozen: r.frozen == null ? null : json<FrozenEntry[]>(r.frozen),
    created_by: (r.created_by as string | null) ?? null,
    created: iso(r.created),
    began_at: isoOrNull(r.began_at),
    ended_at: isoOrNull(r.ended_at),
  };
}

function game(r: Row): SettlementGameRow {
  return {
    match_id: String(r.match_id),
    settlement_id: String(r.settlement_id),
    bots: json<[string, string]>(r.bots),
    overlap: Number(r.overlap),
    started: iso(r.started),
    ended: isoOrNull(r.ended),
    voided: r.voided == null ? null : Boolean(r.voided),
  };
}

export const newSettlementId = () => `st${randomBytes(8).toString("hex")}`;

export class SettlementStore {
  constructor(private readonly db: Db) {}

  async insert(
    q: Queryable,
    s: Pick<
      SettlementRow,
      "id" | "ladder_id" | "event_id" | "top_k" | "game_budget" | "starts_at" | "ends_at" | "created_by"
    >,
  ): Promise<void> {
    await q.query(
      `INSERT INTO settlements (id, ladder_id, top_k, game_budget, starts_at, ends_at, state, created_by, event_id)
       VALUES ($1, $2, $3, $4, $5::timestamptz, $6::timestamptz, 'scheduled', $7, $8)`,
      [s.id, s.ladder_id, s.top_k, s.game_budget, s.starts_at, s.ends_at, s.created_by, s.event_id],
    );
  }

  /** Changes a settlement that has not begun; false when it has (or is gone). */
  async edit(
    q: Queryable,
    s: Pick<SettlementRow, "id" | "event_id" | "top_k" | "game_budget" | "starts_at" | "ends_at">,
  ): Promise<boolean> {
    const rows = await q.query(
      `UPDATE settlements SET event_id = $2, top_k = $3, game_budget = $4, starts_at = $5::timestamptz,
         ends_at = $6::timestamptz
       WHERE id = $1 AND state = 'scheduled' RETURNING id`,
      [s.id, s.event_id, s.top_k, s.game_budget, s.starts_at, s.ends_at],
    );
    return rows.length === 1;
  }

  /** Every bot's version labels created before `at`: the versions a settlement that began then admits. */
  async versionsBefore(at: string): Promise<Map<string, Set<string>>> {
    const known = new Map<string, Set<string>>();
    for (const r of await this.db.query(
      "SELECT bot_id, label FROM bot_versions WHERE created < $1::timestamptz",
      [at],
    )) {
      const id = String(r.bot_id);
      const labels = known.get(id) ?? new Set<string>();
      labels.add(String(r.label));
      known.set(id, labels);
    }
    return known;
  }

  /** Deletes a settlement that has not begun; false when it has (or is gone). */
  async cancel(q: Queryable, id: string): Promise<boolean> {
    const rows = await q.query("DELETE FROM settlements WHERE id = $1 AND state = 'scheduled' RETURNING id", [
      id,
    ]);
    return rows.length === 1;
  }

  /** Every settlement that has not ended (at most one per ladder). */
  async open(): Promise<SettlementRow[]> {
    return (await this.db.query("SELECT * FROM settlements WHERE state <> 'final' ORDER BY created")).map(
      settlement,
    );
  }

  /** The ladder's settlement that has not ended, else its latest one. */
  async latest(ladderId: string): Promise<SettlementRow | null> {
    const rows = await this.db.query(
      `SELECT * FROM settlements WHERE ladder_id = $1
       ORDER BY (state <> 'final') DESC, created DESC LIMIT 1`,
      [ladderId],
    );
    return rows[0] ? settlement(rows[0]) : null;
  }

  /** The ladder's latest settlement whose standings are published. */
  async latestFinal(ladderId: string): Promise<SettlementRow | null> {
    const rows = await this.db.query(
      "SELECT * FROM settlements WHERE ladder_id = $1 AND state = 'final' ORDER BY ended_at DESC LIMIT 1",
      [ladderId],
    );
    return rows[0] ? settlement(rows[0]) : null;
  }

  async begin(id: string, frozen: FrozenEntry[], at: string): Promise<void> {
    await this.db.query(
      `UPDATE settlements SET state = 'settling', frozen = $2::jsonb, began_at = $3::timestamptz
       WHERE id = $1 AND state = 'scheduled'`,
      [id, JSON.stringify(frozen), at],
    );
  }

  async gameStarted(settlementId: string, matchId: string, bots: [string, string], overlap: number) {
    await this.db.query(
      `INSERT INTO settlement_games (match_id, settlement_id, bots, overlap) VALUES ($1, $2, $3::jsonb, $4)`,
      [matchId, settlementId, JSON.stringify(bots), overlap],
    );
  }

  async gameEnded(matchId: string, voided: boolean, at: string): Promise<void> {
    await this.db.query(
      "UPDATE settlement_games SET ended = $2::timestamptz, voided = $3 WHERE match_id = $1 AND ended IS NULL",
      [matchId, at, voided],
    );
  }

  async games(settlementId: string): Promise<SettlementGameRow[]> {
    return (
      await this.db.query(
        "SELECT * FROM settlement_games WHERE settlement_id = $1 ORDER BY started, match_id",
        [settlementId],
      )
    ).map(game);
  }

  /**
   * Publishes the final standings and marks the settlement final, in the caller's unit of work. A second call
   * for the same settlement fails on the snapshot's primary key (the caller reports `settlement_final`).
   */
  async publish(
    q: Queryable,
    s: SettlementRow,
    gamesPlayed: number,
    standings: StandingRow[],
    at: string,
  ): Promise<void> {
    await q.query(
      `INSERT INTO settlement_snapshots (settlement_id, ladder_id, taken_at, top_k, games_played, standings)
       VALUES ($1, $2, $3::timestamptz, $4, $5, $6::jsonb)`,
      [s.id, s.ladder_id, at, s.top_k, gamesPlayed, JSON.stringify(standings)],
    );
    await q.query("UPDATE settlements SET state = 'final', ended_at = $2::timestamptz WHERE id = $1", [
      s.id,
      at,
    ]);
  }

  async snapshot(settlementId: string): Promise<SnapshotRow | null> {
    const rows = await this.db.query("SELECT * FROM settlement_snapshots WHERE settlement_id = $1", [
      settlementId,
    ]);
    const r = rows[0];
    if (!r) return null;
    return {
      settlement_id: String(r.settlement_id),
      ladder_id: String(r.ladder_id),
      taken_at: iso(r.taken_at),
      top_k: Number(r.top_k),
      games_played: Number(r.games_played),
      standings: json<StandingRow[]>(r.standings),
    };
  }
}
