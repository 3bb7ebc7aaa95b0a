// Row conversions and token helpers shared by the stores: values are normalised on the way out (timestamps
// to ISO 8601 UTC strings, int8 to numbers) because pg and PGlite parse them differently.
import { createHash, randomBytes } from "node:crypto";
import type { Row } from "../db/db.ts";
import type { BotRow, BotStatus } from "./types.ts";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** A new secret with a prefix naming its kind (bt_ bot token, ak_ agent key, ok_ owner key). */
export function newToken(prefix = "bt_"): string {
  return prefix + randomBytes(24).toString("base64url");
}

export function iso(v: unknown): string {
  return (v instanceof Date ? v : new Date(String(v))).toISOString();
}
export const isoOrNull = (v: unknown): string | null => (v == null ? null : iso(v));
export const numOrNull = (v: unknown): number | null => (v == null ? null : Number(v));

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
