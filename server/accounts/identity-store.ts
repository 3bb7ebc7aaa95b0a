// Storage of the built-in identity provider: users with scrypt password hashes, sessions, rotating refresh
// tokens, and single-use links and PKCE codes. Tokens are stored as sha256 hashes only. A sign-up's password
// waits on its confirmation link (never on the user row) until that link is opened.
import { randomBytes, randomUUID } from "node:crypto";
import type { Db, Queryable, Row } from "../db/db.ts";
import { hashToken, iso, isoOrNull } from "../db/rows.ts";

export interface IdentityUser {
  id: string;
  email: string;
  /** Empty until a sign-up link is opened: an unconfirmed sign-up never makes a usable password. */
  password_hash: string;
  email_confirmed_at: string | null;
  user_metadata: Record<string, unknown>;
  created: string;
  updated: string;
  last_sign_in: string | null;
}

export interface IdentitySession {
  id: string;
  user_id: string;
  created: string;
  ip: string | null;
  recovery_at: string | null;
  ended: string | null;
}

export type OneTimeKind = "signup" | "recovery" | "auth_code";

export interface OneTimeRow {
  /** The stored hash of the secret: names one link or code without the secret itself. */
  token_hash: string;
  user_id: string;
  created: string;
  kind: OneTimeKind;
  code_challenge: string | null;
  code_challenge_method: string | null;
  purpose: string | null;
  /** Sign-up links: the credentials of the sign-up that produced the link. */
  password_hash: string | null;
  user_metadata: Record<string, unknown> | null;
}

/** A rotated token; `reused` names the session a replayed token ended; null for an unknown token. */
export type Rotation = { userId: string; sessionId: string; token: string } | { reused: string } | null;

const json = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v) as Record<string, unknown> | null;

function toUser(r: Row): IdentityUser {
  return {
    id: String(r.id),
    email: String(r.email),
    password_hash: String(r.password_hash),
    email_confirmed_at: isoOrNull(r.email_confirmed_at),
    user_metadata: json(r.user_metadata) ?? {},
    created: iso(r.created),
    updated: iso(r.updated),
    last_sign_in: isoOrNull(r.last_sign_in),
  };
}

function toSession(r: Row): IdentitySession {
  return {
    id: String(r.id),
    user_id: String(r.user_id),
    created: iso(r.created),
    ip: (r.ip as string | null) ?? null,
    recovery_at: isoOrNull(r.recovery_at),
    ended: isoOrNull(r.ended),
  };
}

const newSecret = () => randomBytes(24).toString("base64url");

export class IdentityStore {
  constructor(private readonly db: Db) {}

  // --- Users ---

  /**
   * A new unconfirmed user without a usable password, or "exists" when the email (any case) is registered.
   * The sign-up's password goes on its confirmation link (createOneTime).
   */
  async createUser(email: string, metadata: Record<string, unknown>): Promise<IdentityUser | "exists"> {
    const rows = await this.db.query(
      `INSERT INTO identity_users (id, email, email_lower, password_hash, user_metadata)
       VALUES ($1, $2, lower($2), '', $3::jsonb) ON CONFLICT (email_lower) DO NOTHING RETURNING *`,
      [randomUUID(), email, JSON.stringify(metadata)],
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

  /**
   * Opens a sign-up link: its credentials become the user's and the email is confirmed, once. Every other
   * sign-up link of the user is void afterwards. False when the user was confirmed already (by another link).
   */
  async activateSignup(
    userId: string,
    passwordHash: string,
    metadata: Record<string, unknown> | null,
  ): Promise<boolean> {
    return this.db.tx(async (q) => {
      const rows = await q.query(
        `UPDATE identity_users SET password_hash = $2, user_metadata = COALESCE($3::jsonb, user_metadata),
           email_confirmed_at = now(), updated = now()
         WHERE id = $1 AND email_confirmed_at IS NULL RETURNING id`,
        [userId, passwordHash, metadata ? JSON.stringify(metadata) : null],
      );
      await voidLinks(q, userId, ["signup"]);
      return rows.length > 0;
    });
  }

  /**
   * A new password: every recovery link and pending code of the user is void, and every session but `keep`
   * ends. Returns the ended sessions' ids.
   */
  async setPassword(userId: string, passwordHash: string, keep: string | null): Promise<string[]> {
    return this.db.tx(async (q) => {
      await q.query("UPDATE identity_users SET password_hash = $2, updated = now() WHERE id = $1", [
        userId,
        passwordHash,
      ]);
      await voidLinks(q, userId, ["recovery", "auth_code"]);
      return endSessions(
        q,
        "user_id = $1 AND id IS DISTINCT FROM $2::text",
        [userId, keep],
        "password_changed",
      );
    });
  }

  async signedIn(userId: string): Promise<void> {
    await this.db.query("UPDATE identity_users SET last_sign_in = now() WHERE id = $1", [userId]);
  }

  // --- Single-use links and codes ---

  /**
   * Stores a single-use secret (link token or PKCE code) and returns it. `replace` voids the user's older
   * unused secrets of the same kind first: only the newest sign-up or reset link works.
   */
  async createOneTime(
    userId: string,
    kind: OneTimeKind,
    opts: {
      codeChallenge?: string | null;
      method?: string | null;
      purpose?: string | null;
      passwordHash?: string | null;
      metadata?: Record<string, unknown> | null;
      replace?: boolean;
    } = {},
  ): Promise<string> {
    const token = newSecret();
    await this.db.tx(async (q) => {
      if (opts.replace) await voidLinks(q, userId, [kind]);
      await q.query(
        `INSERT INTO identity_one_time
           (token_hash, user_id, kind, code_challenge, code_challenge_method, purpose, password_hash, user_metadata)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)`,
        [
          hashToken(token),
          userId,
          kind,
          opts.codeChallenge ?? null,
          opts.method ?? null,
          opts.purpose ?? null,
          opts.passwordHash ?? null,
          opts.metadata ? JSON.stringify(opts.metadata) : null,
        ],
      );
    });
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
    return rows[0] ? toOneTime(rows[0]) : null;
  }

  /** An unused secret younger than maxAgeMs, without using it (a PKCE sign-up link is opened many times). */
  async peekOneTime(token: string, kinds: OneTimeKind[], maxAgeMs: number): Promise<OneTimeRow | null> {
    const rows = await this.db.query(
      `SELECT * FROM identity_one_time
       WHERE token_hash = $1 AND NOT used AND kind = ANY($2::text[])
         AND created > now() - ($3::double precision * interval '1 millisecond')`,
      [hashToken(token), kinds, maxAgeMs],
    );
    return rows[0] ? toOneTime(rows[0]) : null;
  }

  /**
   * The user's pending sign-ups (unused sign-up links younger than maxAgeMs that carry credentials), oldest
   * first. Each is one person's sign-up: its own password, metadata and PKCE challenge.
   */
  async pendingSignups(userId: string, maxAgeMs: number): Promise<OneTimeRow[]> {
    const rows = await this.db.query(
      `SELECT * FROM identity_one_time
       WHERE user_id = $1 AND kind = 'signup' AND NOT used AND password_hash IS NOT NULL
         AND created > now() - ($2::double precision * interval '1 millisecond')
       ORDER BY created, token_hash`,
      [userId, maxAgeMs],
    );
    return rows.map(toOneTime);
  }

  /** Voids one link or code by its stored hash (a sign-up replaced by its own requester). */
  async voidOneTime(tokenHash: string): Promise<void> {
    await this.db.query("UPDATE identity_one_time SET used = true WHERE token_hash = $1", [tokenHash]);
  }

  // --- Sessions and refresh tokens ---

  /** A new session and its first refresh token. */
  async createSession(
    userId: string,
    opts: { ip?: string | null; recovery?: boolean } = {},
  ): Promise<{ token: string; sessionId: string }> {
    const sessionId = randomUUID();
    const token = newSecret();
    await this.db.tx(async (q) => {
      await q.query(
        `INSERT INTO identity_sessions (id, user_id, ip, recovery_at)
         VALUES ($1, $2, $3, CASE WHEN $4 THEN now() END)`,
        [sessionId, userId, opts.ip ?? null, opts.recovery ?? false],
      );
      await q.query(
        "INSERT INTO identity_refresh_tokens (token_hash, user_id, session_id) VALUES ($1, $2, $3)",
        [hashToken(token), userId, sessionId],
      );
    });
    return { token, sessionId };
  }

  async session(id: string): Promise<IdentitySession | null> {
    const rows = await this.db.query("SELECT * FROM identity_sessions WHERE id = $1", [id]);
    return rows[0] ? toSession(rows[0]) : null;
  }

  /**
   * Rotation: the presented token is revoked and its child issued in one transaction. The child is derived
   * from the parent (`child`, a keyed hash), so a parent presented again within `reuseMs` of its rotation
   * (two tabs refreshing at once) gets the same live descendant back instead of a new branch. A revoked
   * token presented later ("reused") ends the whole session, because someone else holds a copy. A token of
   * an ended session is unknown (null).
   */
  async rotateRefresh(token: string, reuseMs: number, child: (parent: string) => string): Promise<Rotation> {
    return this.db.tx(async (q) => {
      const rows = await q.query(
        `SELECT t.*, s.ended, t.revoked_at > now() - ($2::double precision * interval '1 millisecond') AS recent
         FROM identity_refresh_tokens t JOIN identity_sessions s ON s.id = t.session_id
         WHERE t.token_hash = $1 FOR UPDATE OF t`,
        [hashToken(token), reuseMs],
      );
      const r = rows[0];
      if (!r || r.ended != null) return null;
      const userId = String(r.user_id);
      const sessionId = String(r.session_id);
      if (r.revoked) {
        if (r.recent === true) {
          // Walk down the chain to the live descendant (a few steps at most within the interval).
          let t = token;
          for (let i = 0; i < 8; i++) {
            t = child(t);
            const next = await q.query(
              "SELECT revoked FROM identity_refresh_tokens WHERE token_hash = $1 AND session_id = $2",
              [hashToken(t), sessionId],
            );
            if (!next[0]) break;
            if (!next[0].revoked) return { userId, sessionId, token: t };
          }
        }
        await endSessions(q, "id = $1", [sessionId], "refresh_token_reused");
        return { reused: sessionId };
      }
      await q.query(
        "UPDATE identity_refresh_tokens SET revoked = true, revoked_at = now() WHERE token_hash = $1",
        [hashToken(token)],
      );
      const next = child(token);
      await q.query(
        `INSERT INTO identity_refresh_tokens (token_hash, user_id, session_id, parent) VALUES ($1, $2, $3, $4)
         ON CONFLICT (token_hash) DO NOTHING`,
        [hashToken(next), userId, sessionId, hashToken(token)],
      );
      return { userId, sessionId, token: next };
    });
  }

  /** The user a refresh token belongs to, used or not (null when unknown). */
  async refreshTokenUser(token: string): Promise<string | null> {
    const rows = await this.db.query("SELECT user_id FROM identity_refresh_tokens WHERE token_hash = $1", [
      hashToken(token),
    ]);
    return rows[0] ? String(rows[0].user_id) : null;
  }

  /** Whether a session is live: not ended, and its user still exists. */
  async sessionActive(sessionId: string): Promise<boolean> {
    const rows = await this.db.query(
      "SELECT 1 FROM identity_sessions WHERE id = $1 AND ended IS NULL LIMIT 1",
      [sessionId],
    );
    return rows.length > 0;
  }

  async endSession(sessionId: string, reason: string): Promise<void> {
    await endSessions(this.db, "id = $1", [sessionId], reason);
  }

  /** Ends every session of a user but `except`; returns their ids. */
  async endUserSessions(userId: string, reason: string, except: string | null = null): Promise<string[]> {
    return endSessions(this.db, "user_id = $1 AND id IS DISTINCT FROM $2::text", [userId, except], reason);
  }
}

function toOneTime(r: Row): OneTimeRow {
  return {
    token_hash: String(r.token_hash),
    user_id: String(r.user_id),
    created: iso(r.created),
    kind: r.kind as OneTimeKind,
    code_challenge: (r.code_challenge as string | null) ?? null,
    code_challenge_method: (r.code_challenge_method as string | null) ?? null,
    purpose: (r.purpose as string | null) ?? null,
    password_hash: (r.password_hash as string | null) ?? null,
    user_metadata: json(r.user_metadata),
  };
}

async function voidLinks(q: Queryable, userId: string, kinds: OneTimeKind[]): Promise<void> {
  await q.query(
    "UPDATE identity_one_time SET used = true WHERE user_id = $1 AND kind = ANY($2::text[]) AND NOT used",
    [userId, kinds],
  );
}

/** Ends the live sessions matching `where` (over identity_sessions) and revokes their refresh tokens. */
async function endSessions(
  q: Queryable,
  where: string,
  params: unknown[],
  reason: string,
): Promise<string[]> {
  const n = params.length + 1;
  const rows = await q.query(
    `UPDATE identity_sessions SET ended = now(), end_reason = $${n} WHERE ended IS NULL AND ${where} RETURNING id`,
    [...params, reason],
  );
  const ids = rows.map((r) => String(r.id));
  if (ids.length)
    await q.query(
      "UPDATE identity_refresh_tokens SET revoked = true, revoked_at = COALESCE(revoked_at, now()) WHERE session_id = ANY($1::text[])",
      [ids],
    );
  return ids;
}
