// Row conversions and token helpers shared by every store: values are normalised on the way out (timestamps
// to ISO 8601 UTC strings, int8 to numbers) because pg and PGlite parse them differently.
import { createHash, randomBytes } from "node:crypto";

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
