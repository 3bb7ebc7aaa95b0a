// The storage kernel every domain's store is built on, and the row types the domains share. Implemented on one
// SQL schema by two drivers (pg against PostgreSQL, PGlite embedded); see server/db/. Each domain's SQL lives in
// its own folder (issue 32: accounts/, admin/audit-store.ts, ratings/, bots/, results/, ...). Every write that
// must not be lost is one transaction; a match result is written once (idempotent on match id).

import type { MatchStatsT } from "../../engine/protocol.ts";
import type { Db } from "../db/db.ts";
import type { Reachability } from "../db/reachability.ts";
import type { WriteCounter } from "../db/track-writes.ts";
import type { Unit } from "../kernel/unit-of-work.ts";
import type { PairingRecord } from "./pairing-record.ts";
import type { PlannerStats } from "./planner-stats.ts";
import type { ReadMemo } from "./read-memo.ts";

export type { BotRow, BotStatus } from "./bot-row.ts";

export interface VersionRow {
  bot_id: string;
  label: string;
  notes: string;
  created: string;
  retired: boolean;
}

export interface MatchBotRecord {
  fighter: number;
  bot_id: string;
  name: string;
  display_name: string;
  version: string;
  house: boolean;
  avatar: string | null;
  rating_before: number | null;
  rating_after: number | null;
}

/**
 * How a match came about: paired by the matchmaker and rated (`ranked`), a person's game (`human`), or an
 * unrated game an owner asked for (`scrimmage`, server/scrimmages/). Only `ranked` reaches ratings, forecasts,
 * leaderboards and quotas: every reader of those filters on it.
 */
export type MatchMode = "ranked" | "human" | "scrimmage" | "tournament";

/** A finished match as the runner hands it to storage. */
export interface MatchRecord {
  id: string;
  ladder_id: string;
  mode: MatchMode;
  seed: number;
  map: string;
  started: string | null;
  ended: string;
  duration_ms: number | null;
  final_tick: number;
  reason: string;
  winner_bot_id: string | null;
  voided: boolean;
  /** Why a match was voided or aborted, for operators (e.g. "worker crashed"). */
  note: string | null;
  bots: MatchBotRecord[];
  stats: MatchStatsT | null;
  /** Path of the replay file relative to the data dir, or null when there is none. */
  replay_file: string | null;
  /** Why the matchmaker paired the two (ranked matches since issue 33); null or absent otherwise. */
  pairing?: PairingRecord | null;
}

export interface StoredMatch extends Omit<MatchRecord, "stats"> {
  replay_trimmed: boolean;
  has_stats: boolean;
}

export interface MatchQuery {
  ladder?: string;
  botName?: string;
  /** The id of the bot named `botName` when the caller has looked it up already (no second lookup). */
  botId?: string;
  limit: number;
  /**
   * Keyset cursor: only matches stored before this one (by insertion order, `seq`), so paging with the id of a
   * page's last match neither repeats nor skips a match while new ones arrive. Unknown ids are the caller's to
   * reject first (matchSeq).
   */
  beforeSeq?: number;
}

export interface Store {
  readonly driver: "pg" | "pglite";
  /** The highest applied migration number. */
  readonly schema: number;
  /** Grows after each committed change to bots or versions (in-memory copies reload when it moves). */
  readonly botWrites: WriteCounter;
  /**
   * Grows after each committed write to matches or their seats (memoised reads are asked again when it moves);
   * another node's results count through bump().
   */
  readonly matchWrites: WriteCounter;
  /** Committed writes to accounts. */
  readonly accountWrites: WriteCounter;
  /**
   * Answers of the read queries that pages and routes repeat, kept until their tables are written (read-memo.ts):
   * one memo for every domain's store, so its bound holds for the server as a whole.
   */
  readonly memo: ReadMemo;
  /** An answer about accounts, kept in memory until accounts are written (or for a second: other nodes). */
  rememberAccountRead<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** Whether the database answered the store's last statement (server/db/reachability.ts). */
  readonly reachability: Reachability;
  /** The database, for the stores that features keep in their own folders (server/kernel/feature.ts). */
  readonly db: Db;
  /** ANALYZE on the embedded database as it grows (the match store tells it of each insert). */
  readonly plannerStats: PlannerStats;
  /** Runs `fn` as one unit of work: one transaction for the change and its audit entry. */
  work<T>(fn: (u: Unit) => Promise<T>): Promise<T>;
  /** Called after each unit of work that queued mail has committed (the mail sender listens). */
  onMailQueued(listener: () => void): void;

  close(): Promise<void>;
}
