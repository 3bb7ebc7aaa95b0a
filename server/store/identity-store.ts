// Storage of the built-in identity provider: users with scrypt password hashes, rotating refresh tokens,
// and single-use links and PKCE codes. Tokens are stored as sha256 hashes only.
import { randomBytes, randomUUID } from "node:crypto";
import type { Db, Row } from "../db/db.ts";
import { hashToken, iso, isoOrNull } from "./rows.ts";

export interface IdentityUser {
  id: string;
  email: string;
  password_hash: string;
  email_confirmed_at: string | null;
  user_metadata: Record<string, unknown>;
  created: string;
  updated: string;
  last_sign_in: string | null;
}

export type OneTimeKind = "signup" | "recovery" | "auth_code";

export interface OneTimeRow {
  user_id: string;
  kind: OneTimeKind;
  code_challenge: string | null;
  code_challenge_method: string | null;
  purpose: string | null;
}

function toUser(r: Row): IdentityUser {
  const meta = typeof r.user_metadata === "string" ? JSON.parse(r.user_metadata) : r.user_metadata;
  return {
    id: String(r.id),
    email: String(r.email),
    password_hash: String(r.password_hash),
    email_confirmed_at: isoOrNull(r.email_confirmed_at),
    user_metadata: (meta as Record<string, unknown>) ?? {},
    created: iso(r.created),
    updated: iso(r.updated),
    last_sign_in: isoOrNull(r.last_sign_in),
  };
}

export class IdentityStore {
  constructor(private readonly db: Db) {}

  /** A new unconfirmed user, or "exists" when the email (any case) is registered. */
  async createUser(
    email: string,
    passwordHash: string,
    metadata: Record<string, unknown>,
  ): Promise<IdentityUser | "exists"> {
    const rows = await this.db.query(
      `INSERT INTO identity_users (id, email, email_lower, password_hash, user_metadata)
       VALUES ($1, $2, lower($2), $3, $4::jsonb) ON CONFLICT (email_lower) DO NOTHING RETURNING *`,
      [randomUUID(), email, passwordHash, JSON.stringify(metadata)],
    );
    return rows[0] ? toUser(rows[0]) : "exists";
  }

  async userByEmail(email: string): Promise<IdentityUser | null> {
    const rows = await this.db.query("SELECT * FROM identity_users WHERE email_lower = lower($1)", [email]);
    return rows[0] ? toUser(rows[0]) : null;
  }

  async userById(id: string): Promise<IdentityUser | null> {
    const rows = await this.db.query("SELECT * FROM identity_users WHERE id = $1", [id]);
    return rows[0] ? toUser(rows[0]) : null;
  }

  async confirmEmail(userId: string): Promise<void> {
    await this.db.query(
      "UPDATE identity_users SET email_confirmed_at = COALESCE(email_confirmed_at, now()), updated = now() WHERE id = $1",
      [userId],
    );
  }

  async setPassword(userId: string, passwordHash: string): Promise<void> {
    await this.db.query("UPDATE identity_users SET password_hash = $2, updated = now() WHERE id = $1", [
      userId,
      passwordHash,
    ]);
  }

  async signedIn(userId: string): Promise<void> {
    await this.db.query("UPDATE identity_users SET last_sign_in = now() WHERE id = $1", [userId]);
  }

  /** Stores a single-use secret (link token or PKCE code) and returns it. */
  async createOneTime(
    userId: string,
    kind: OneTimeKind,
    opts: { codeChallenge?: string | null; method?: string | null; purpose?: string | null } = {},
  ): Promise<string> {
    const token = randomBytes(24).toString("base64url");
    await this.db.query(
      `INSERT INTO identity_one_time (token_hash, user_id, kind, code_challenge, code_challenge_method, purpose)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [hashToken(token), userId, kind, opts.codeChallenge ?? null, opts.method ?? null, opts.purpose ?? null],
    );
    return token;
  }

  /** Uses a single-use secret once: null when unknown, of another kind, used, or older than maxAgeMs. */
  async consumeOneTime(token: string, kinds: OneTimeKind[], maxAgeMs: number): Promise<OneTimeRow | null> {
    const rows = await this.db.query(
      `UPDATE identity_one_time SET used = true
       WHERE token_hash = $1 AND NOT used AND kind = ANY($2::text[])
         AND created > now() - ($3::double precision * interval '1 millisecond')
       RETURNING *`,
      [hashToken(token), kinds, maxAgeMs],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      user_id: String(r.user_id),
      kind: r.kind as OneTimeKind,
      code_challenge: (r.code_challenge as string | null) ?? null,
      code_challenge_method: (r.code_challenge_method as string | null) ?? null,
      purpose: (r.purpose as string | null) ?? null,
    };
  }

  /** A refresh token for a session (a new session when sessionId is omitted). */
  async createRefresh(
    userId: string,
    sessionId: string = randomUUID(),
  ): Promise<{ token: string; sessionId: string }> {
    const token = randomBytes(24).toString("base64url");
    await this.db.query(
      "INSERT INTO identity_refresh_tokens (token_hash, user_id, session_id) VALUES ($1, $2, $3)",
      [hashToken(token), userId, sessionId],
    );
    return { token, sessionId };
  }

  /**
   * Rotation: the presented token is revoked and a child issued in one transaction. A token presented again
   * after rotation ("reused") revokes its whole session, because someone else holds a copy.
   */
  async rotateRefresh(
    token: string,
  ): Promise<{ userId: string; sessionId: string; token: string } | "reused" | null> {
    return this.db.tx(async (q) => {
      const rows = await q.query("SELECT * FROM identity_refresh_tokens WHERE token_hash = $1 FOR UPDATE", [
        hashToken(token),
      ]);
      const r = rows[0];
      if (!r) return null;
      const sessionId = String(r.session_id);
      if (r.revoked) {
        await q.query("UPDATE identity_refresh_tokens SET revoked = true WHERE session_id = $1", [sessionId]);
        return "reused" as const;
      }
      await q.query("UPDATE identity_refresh_tokens SET revoked = true WHERE token_hash = $1", [
        hashToken(token),
      ]);
      const next = randomBytes(24).toString("base64url");
      await q.query(
        "INSERT INTO identity_refresh_tokens (token_hash, user_id, session_id) VALUES ($1, $2, $3)",
        [hashToken(next), String(r.user_id), sessionId],
      );
      return { userId: String(r.user_id), sessionId, token: next };
    });
  }

  async sessionActive(sessionId: string): Promise<boolean> {
    const rows = await this.db.query(
      "SELECT 1 FROM identity_refresh_tokens WHERE session_id = $1 AND NOT revoked LIMIT 1",
      [sessionId],
    );
    return rows.length > 0;
  }

  async revokeSession(sessionId: string): Promise<void> {
    await this.db.query("UPDATE identity_refresh_tokens SET revoked = true WHERE session_id = $1", [
      sessionId,
    ]);
  }

  async revokeUserSessions(userId: string): Promise<void> {
    await this.db.query("UPDATE identity_refresh_tokens SET revoked = true WHERE user_id = $1", [userId]);
  }
}
