// A bot as the stores return it, and its conversion from a database row.
import type { Row } from "../db/db.ts";
import { iso } from "../db/rows.ts";

export type BotStatus = "active" | "suspended" | "banned" | "retired";

export interface BotRow {
  id: string;
  name: string;
  display_name: string;
  owner: string;
  house: boolean;
  status: BotStatus;
  avatar: string | null;
  created: string; // ISO 8601
  /** The owning account; null for house bots and bots of anonymous development ladders. */
  account_id: string | null;
}

export function toBot(r: Row): BotRow {
  return {
    id: String(r.id),
    name: String(r.name),
    display_name: String(r.display_name),
    owner: String(r.owner),
    house: Boolean(r.house),
    status: r.status as BotStatus,
    avatar: (r.avatar as string | null) ?? null,
    created: iso(r.created),
    account_id: (r.account_id as string | null) ?? null,
  };
}

/** Every bot as read at one count of writes (the bot directory's copy; the leaderboards read it). */
export interface BotSnapshot {
  /** The store's write count the snapshot was read at. */
  readonly generation: number;
  readonly bots: readonly BotRow[];
  readonly byId: ReadonlyMap<string, BotRow>;
  readonly byTokenHash: ReadonlyMap<string, BotRow>;
  readonly retired: ReadonlyMap<string, ReadonlySet<string>>;
}
