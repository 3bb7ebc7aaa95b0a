// SQL of scrimmages and batch tests (migration 0011): the per-bot opt-in, each requested game and each batch.
// Writes take a Queryable so the service can put a change and its audit entry in one unit of work.
import { randomBytes } from "node:crypto";
import type { Db, Queryable, Row } from "../db/db.ts";
import { iso, isoOrNull } from "../db/rows.ts";

export type ScrimmageState = "pending" | "playing" | "done" | "cancelled" | "expired";
export type GameResult = "win" | "loss" | "draw" | "void";

export interface ScrimmageRow {
  id: string;
  account_id: string;
  bot_id: string;
  opponent_id: string;
  batch_id: string | null;
  map: string | null;
  state: ScrimmageState;
  match_id: string | null;
  result: GameResult | null;
  version: string | null;
  played_map: string | null;
  reason: string | null;
  created: string;
  started: string | null;
  ended: string | null;
  /** Names as the bots carry them now (joined from bots). */
  bot_name: string;
  opponent_name: string;
  opponent_house: boolean;
}

export interface BatchRow {
  id: string;
  account_id: string;
  bot_id: string;
  version: string | null;
  games: number;
  opponents: string[];
  map: string | null;
  state: "running" | "done" | "cancelled";
  created: string;
  ended: string | null;
}

const SCRIM_COLUMNS = `s.id, s.account_id, s.bot_id, s.opponent_id, s.batch_id, s.map, s.state, s.match_id,
  s.result, s.version, s.played_map, s.reason, s.created, s.started, s.ended,
  b.name AS bot_name, o.name AS opponent_name, o.house AS opponent_house`;
const SCRIM_FROM = "scrimmages s JOIN bots b ON b.id = s.bot_id JOIN bots o ON o.id = s.opponent_id";

function scrim(r: Row): ScrimmageRow {
  return {
    id: String(r.id),
    account_id: String(r.account_id),
    bot_id: String(r.bot_id),
    opponent_id: String(r.opponent_id),
    batch_id: (r.batch_id as string | null) ?? null,
    map: (r.map as string | null) ?? null,
    state: String(r.state) as ScrimmageState,
    match_id: (r.match_id as string | null) ?? null,
    result: (r.result as GameResult | null) ?? null,
    version: (r.version as string | null) ?? null,
    played_map: (r.played_map as string | null) ?? null,
    reason: (r.reason as string | null) ?? null,
    created: iso(r.created),
    started: isoOrNull(r.started),
    ended: isoOrNull(r.ended),
    bot_name: String(r.bot_name),
    opponent_name: String(r.opponent_name),
    opponent_house: Boolean(r.opponent_house),
  };
}

function batch(r: Row): BatchRow {
  const opponents = typeof r.opponents === "string" ? JSON.parse(r.opponents) : r.opponents;
  return {
    id: String(r.id),
    account_id: String(r.account_id),
    bot_id: String(r.bot_id),
    version: (r.version as string | null) ?? null,
    games: Number(r.games),
    opponents: Array.isArray(opponents) ? opponents.map(String) : [],
    map: (r.map as string | null) ?? null,
    state: String(r.state) as BatchRow["state"],
    created: iso(r.created),
    ended: isoOrNull(r.ended),
  };
}

export const newScrimmageId = () => `scr_${randomBytes(9).toString("base64url")}`;
export const newBatchId = () => `bt${randomBytes(9).toString("hex")}`;

export class ScrimmageStore {
  constructor(private readonly db: Db) {}

  async optIn(botId: string, q: Queryable = this.db): Promise<boolean> {
    const rows = await q.query("SELECT allowed FROM scrimmage_optin WHERE bot_id = $1", [botId]);
    return Boolean(rows[0]?.allowed);
  }

  async setOptIn(q: Queryable, botId: string, allowed: boolean): Promise<void> {
    await q.query(
      `INSERT INTO scrimmage_optin (bot_id, allowed) VALUES ($1, $2)
       ON CONFLICT (bot_id) DO UPDATE SET allowed = $2, updated = now()`,
      [botId, allowed],
    );
  }

  async insert(
    q: Queryable,
    s: {
      id: string;
      accountId: string;
      botId: string;
      opponentId: string;
      batchId: string | null;
      map: string | null;
      state: ScrimmageState;
    },
  ): Promise<void> {
    await q.query(
      `INSERT INTO scrimmages (id, account_id, bot_id, opponent_id, batch_id, map, state)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [s.id, s.accountId, s.botId, s.opponentId, s.batchId, s.map, s.state],
    );
  }

  async started(id: string, matchId: string, version: string, map: string, at: string): Promise<void> {
    await this.db.query(
      `UPDATE scrimmages SET state = 'playing', match_id = $2, version = $3, played_map = $4,
              started = $5::timestamptz WHERE id = $1`,
      [id, matchId, version, map, at],
    );
  }

  async finished(id: string, result: GameResult, reason: string, at: string): Promise<void> {
    await this.db.query(
      "UPDATE scrimmages SET state = 'done', result = $2, reason = $3, ended = $4::timestamptz WHERE id = $1",
      [id, result, reason, at],
    );
  }

  /** Ends a pending (or, at start-up, a playing) scrimmage without a result; false when it was not open. */
  async close(q: Queryable, id: string, state: "cancelled" | "expired", reason: string): Promise<boolean> {
    const rows = await q.query(
      `UPDATE scrimmages SET state = $2, reason = $3, ended = now()
       WHERE id = $1 AND state IN ('pending', 'playing') RETURNING id`,
      [id, state, reason],
    );
    return rows.length > 0;
  }

  async byId(id: string): Promise<ScrimmageRow | null> {
    const rows = await this.db.query(`SELECT ${SCRIM_COLUMNS} FROM ${SCRIM_FROM} WHERE s.id = $1`, [id]);
    return rows[0] ? scrim(rows[0]) : null;
  }

  /** A bot's lone scrimmages, as the requester's bot or as the opponent, newest first. */
  async ofBot(botId: string, limit: number): Promise<ScrimmageRow[]> {
    const rows = await this.db.query(
      `SELECT ${SCRIM_COLUMNS} FROM ${SCRIM_FROM}
       WHERE (s.bot_id = $1 OR s.opponent_id = $1) AND s.batch_id IS NULL ORDER BY s.seq DESC LIMIT $2`,
      [botId, limit],
    );
    return rows.map(scrim);
  }

  async open(): Promise<ScrimmageRow[]> {
    const rows = await this.db.query(
      `SELECT ${SCRIM_COLUMNS} FROM ${SCRIM_FROM} WHERE s.state IN ('pending', 'playing') ORDER BY s.seq`,
    );
    return rows.map(scrim);
  }

  /** Starts per account since a time (the hourly limit after a restart). */
  async startsSince(since: string): Promise<{ account_id: string; started: string }[]> {
    const rows = await this.db.query(
      "SELECT account_id, started FROM scrimmages WHERE started >= $1::timestamptz",
      [since],
    );
    return rows.map((r) => ({ account_id: String(r.account_id), started: iso(r.started) }));
  }

  async insertBatch(q: Queryable, b: Omit<BatchRow, "created" | "ended" | "state">): Promise<void> {
    await q.query(
      `INSERT INTO scrimmage_batches (id, account_id, bot_id, version, games, opponents, map, state)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, 'running')`,
      [b.id, b.account_id, b.bot_id, b.version, b.games, JSON.stringify(b.opponents), b.map],
    );
  }

  async endBatch(q: Queryable, id: string, state: "done" | "cancelled"): Promise<boolean> {
    const rows = await q.query(
      `UPDATE scrimmage_batches SET state = $2, ended = now() WHERE id = $1 AND state = 'running' RETURNING id`,
      [id, state],
    );
    return rows.length > 0;
  }

  async batch(id: string): Promise<BatchRow | null> {
    const rows = await this.db.query("SELECT * FROM scrimmage_batches WHERE id = $1", [id]);
    return rows[0] ? batch(rows[0]) : null;
  }

  async runningBatches(): Promise<BatchRow[]> {
    const rows = await this.db.query(
      "SELECT * FROM scrimmage_batches WHERE state = 'running' ORDER BY created",
    );
    return rows.map(batch);
  }

  async batchesOfBot(botId: string, limit: number): Promise<BatchRow[]> {
    const rows = await this.db.query(
      "SELECT * FROM scrimmage_batches WHERE bot_id = $1 ORDER BY created DESC LIMIT $2",
      [botId, limit],
    );
    return rows.map(batch);
  }

  async batchGames(batchId: string): Promise<ScrimmageRow[]> {
    const rows = await this.db.query(
      `SELECT ${SCRIM_COLUMNS} FROM ${SCRIM_FROM} WHERE s.batch_id = $1 ORDER BY s.seq`,
      [batchId],
    );
    return rows.map(scrim);
  }
}
