// SQL of tournaments (migration 0015): the tournament, the bots that checked in (and their seeds once they
// entered) and every game of every pairing, byes included. Writes that go with an audit entry take a Queryable.
import { randomBytes } from "node:crypto";
import type { Db, Queryable, Row } from "../db/db.ts";
import { iso, isoOrNull } from "../db/rows.ts";
import type { StandingRow } from "./pairing.ts";

export type TournamentFormat = "round_robin" | "swiss";
export type TournamentState = "scheduled" | "running" | "done" | "cancelled";
export type GameState = "waiting" | "playing" | "done";
export type Forfeit = "a" | "b" | "both";

export interface TournamentRow {
  id: string;
  name: string;
  ladder_id: string;
  format: TournamentFormat;
  rounds: number | null;
  games_per_pairing: number;
  /** The games are rated games of the ladder (mode `ranked`); false: unrated, mode `tournament`. */
  rated: boolean;
  starts_at: string;
  checkin_s: number;
  forfeit_after_s: number;
  state: TournamentState;
  round: number;
  note: string | null;
  standings: StandingRow[] | null;
  created_by: string;
  created: string;
  started: string | null;
  ended: string | null;
}

export interface EntrantRow {
  bot_id: string;
  bot_name: string;
  checked_in: string;
  seed: number | null;
}

export interface GameRow {
  round: number;
  pairing: number;
  game: number;
  a_id: string;
  b_id: string | null;
  state: GameState;
  map: string | null;
  match_id: string | null;
  points_a: number | null;
  points_b: number | null;
  forfeit: Forfeit | null;
  reason: string | null;
  started: string | null;
  ended: string | null;
}

export const newTournamentId = () => `tn${randomBytes(8).toString("hex")}`;

const json = <T>(v: unknown): T | null =>
  v === null || v === undefined ? null : ((typeof v === "string" ? JSON.parse(v) : v) as T);
const numOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function tournament(r: Row): TournamentRow {
  return {
    id: String(r.id),
    name: String(r.name),
    ladder_id: String(r.ladder_id),
    format: String(r.format) as TournamentFormat,
    rounds: numOrNull(r.rounds),
    games_per_pairing: Number(r.games_per_pairing),
    rated: r.rated === true,
    starts_at: iso(r.starts_at),
    checkin_s: Number(r.checkin_s),
    forfeit_after_s: Number(r.forfeit_after_s),
    state: String(r.state) as TournamentState,
    round: Number(r.round),
    note: (r.note as string | null) ?? null,
    standings: json<StandingRow[]>(r.standings),
    created_by: String(r.created_by),
    created: iso(r.created),
    started: isoOrNull(r.started),
    ended: isoOrNull(r.ended),
  };
}

function game(r: Row): GameRow {
  return {
    round: Number(r.round),
    pairing: Number(r.pairing),
    game: Number(r.game),
    a_id: String(r.a_id),
    b_id: (r.b_id as string | null) ?? null,
    state: String(r.state) as GameState,
    map: (r.map as string | null) ?? null,
    match_id: (r.match_id as string | null) ?? null,
    points_a: numOrNull(r.points_a),
    points_b: numOrNull(r.points_b),
    forfeit: (r.forfeit as Forfeit | null) ?? null,
    reason: (r.reason as string | null) ?? null,
    started: isoOrNull(r.started),
    ended: isoOrNull(r.ended),
  };
}

export class TournamentStore {
  constructor(readonly db: Db) {}

  async insert(
    q: Queryable,
    t: Pick<
      TournamentRow,
      | "id"
      | "name"
      | "ladder_id"
      | "format"
      | "rounds"
      | "games_per_pairing"
      | "rated"
      | "starts_at"
      | "checkin_s"
      | "forfeit_after_s"
      | "created_by"
    >,
  ): Promise<void> {
    await q.query(
      `INSERT INTO tournaments (id, name, ladder_id, format, rounds, games_per_pairing, starts_at, checkin_s,
         forfeit_after_s, state, created_by, rated)
       VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz, $8, $9, 'scheduled', $10, $11)`,
      [
        t.id,
        t.name,
        t.ladder_id,
        t.format,
        t.rounds,
        t.games_per_pairing,
        t.starts_at,
        t.checkin_s,
        t.forfeit_after_s,
        t.created_by,
        t.rated,
      ],
    );
  }

  async byId(id: string): Promise<TournamentRow | null> {
    const rows = await this.db.query("SELECT * FROM tournaments WHERE id = $1", [id]);
    return rows[0] ? tournament(rows[0]) : null;
  }

  /** The newest first. */
  async list(limit: number): Promise<(TournamentRow & { entrants: number })[]> {
    const rows = await this.db.query(
      `SELECT t.*, (SELECT count(*) FROM tournament_entrants e WHERE e.tournament_id = t.id
         AND (t.state = 'scheduled' OR e.seed IS NOT NULL)) AS entrants
       FROM tournaments t ORDER BY t.seq DESC LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({ ...tournament(r), entrants: Number(r.entrants) }));
  }

  async open(): Promise<TournamentRow[]> {
    const rows = await this.db.query(
      "SELECT * FROM tournaments WHERE state IN ('scheduled', 'running') ORDER BY seq",
    );
    return rows.map(tournament);
  }

  async checkIn(id: string, botId: string, name: string, at: string): Promise<void> {
    await this.db.query(
      `INSERT INTO tournament_entrants (tournament_id, bot_id, bot_name, checked_in)
       VALUES ($1, $2, $3, $4::timestamptz) ON CONFLICT DO NOTHING`,
      [id, botId, name, at],
    );
  }

  async entrants(id: string): Promise<EntrantRow[]> {
    const rows = await this.db.query(
      `SELECT bot_id, bot_name, checked_in, seed FROM tournament_entrants WHERE tournament_id = $1
       ORDER BY seed NULLS LAST, checked_in, bot_name`,
      [id],
    );
    return rows.map((r) => ({
      bot_id: String(r.bot_id),
      bot_name: String(r.bot_name),
      checked_in: iso(r.checked_in),
      seed: numOrNull(r.seed),
    }));
  }

  /** The start: seeds for those who entered, the round count, the state. */
  async started(id: string, seeds: string[], rounds: number, at: string): Promise<void> {
    for (const [i, botId] of seeds.entries())
      await this.db.query(
        "UPDATE tournament_entrants SET seed = $3 WHERE tournament_id = $1 AND bot_id = $2",
        [id, botId, i + 1],
      );
    await this.db.query(
      "UPDATE tournaments SET state = 'running', rounds = $2, started = $3::timestamptz WHERE id = $1",
      [id, rounds, at],
    );
  }

  async round(id: string, round: number, games: GameRow[]): Promise<void> {
    for (const g of games)
      await this.db.query(
        `INSERT INTO tournament_games (tournament_id, round, pairing, game, a_id, b_id, state, map, points_a,
           points_b, reason, ended)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::timestamptz)`,
        [
          id,
          g.round,
          g.pairing,
          g.game,
          g.a_id,
          g.b_id,
          g.state,
          g.map,
          g.points_a,
          g.points_b,
          g.reason,
          g.ended,
        ],
      );
    await this.db.query("UPDATE tournaments SET round = $2 WHERE id = $1", [id, round]);
  }

  async saveGame(id: string, g: GameRow): Promise<void> {
    await this.db.query(
      `UPDATE tournament_games SET state = $5, map = $6, match_id = $7, points_a = $8, points_b = $9,
         forfeit = $10, reason = $11, started = $12::timestamptz, ended = $13::timestamptz
       WHERE tournament_id = $1 AND round = $2 AND pairing = $3 AND game = $4`,
      [
        id,
        g.round,
        g.pairing,
        g.game,
        g.state,
        g.map,
        g.match_id,
        g.points_a,
        g.points_b,
        g.forfeit,
        g.reason,
        g.started,
        g.ended,
      ],
    );
  }

  async games(id: string): Promise<GameRow[]> {
    const rows = await this.db.query(
      "SELECT * FROM tournament_games WHERE tournament_id = $1 ORDER BY round, pairing, game",
      [id],
    );
    return rows.map(game);
  }

  /** The end (done or cancelled), with the final standings; false when it had already ended. */
  async end(
    q: Queryable,
    id: string,
    state: "done" | "cancelled",
    standings: StandingRow[] | null,
    note: string | null,
    at: string,
  ): Promise<boolean> {
    const rows = await q.query(
      `UPDATE tournaments SET state = $2, standings = $3::jsonb, note = coalesce($4, note), ended = $5::timestamptz
       WHERE id = $1 AND state IN ('scheduled', 'running') RETURNING id`,
      [id, state, standings === null ? null : JSON.stringify(standings), note, at],
    );
    return rows.length > 0;
  }
}
