// SQL of the tool endpoint's authorization server (migrations/0009_mcp.sql): registered clients, pending
// authorizations and their codes, grants and their rotating refresh tokens, and the agent keys' permission.
// Writes take the Queryable of a unit of work, so the service commits each change with its audit entry.
import { randomBytes } from "node:crypto";
import type { Db, Queryable, Row } from "../db/db.ts";
import { hashToken, iso, isoOrNull } from "../db/rows.ts";

export interface ClientRow {
  id: string;
  name: string;
  redirect_uris: string[];
  metadata: Record<string, unknown>;
  created: string;
}

export interface AuthorizationRow {
  id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  state: string | null;
  resource: string;
  scope: string;
  status: "pending" | "approved" | "denied" | "used";
  account_id: string | null;
  grant_id: string | null;
  redirect_url: string | null;
  expires: string;
}

export interface GrantRow {
  id: string;
  account_id: string;
  client_id: string;
  client_name: string;
  manage: boolean;
  created: string;
  last_used: string | null;
  revoked: string | null;
}

const toClient = (r: Row): ClientRow => ({
  id: String(r.id),
  name: String(r.name),
  redirect_uris: (typeof r.redirect_uris === "string"
    ? JSON.parse(r.redirect_uris)
    : r.redirect_uris) as string[],
  metadata: (typeof r.metadata === "string" ? JSON.parse(r.metadata) : r.metadata) as Record<string, unknown>,
  created: iso(r.created),
});

const toAuthorization = (r: Row): AuthorizationRow => ({
  id: String(r.id),
  client_id: String(r.client_id),
  redirect_uri: String(r.redirect_uri),
  code_challenge: String(r.code_challenge),
  state: (r.state as string | null) ?? null,
  resource: String(r.resource),
  scope: String(r.scope),
  status: r.status as AuthorizationRow["status"],
  account_id: (r.account_id as string | null) ?? null,
  grant_id: (r.grant_id as string | null) ?? null,
  redirect_url: (r.redirect_url as string | null) ?? null,
  expires: iso(r.expires),
});

const toGrant = (r: Row): GrantRow => ({
  id: String(r.id),
  account_id: String(r.account_id),
  client_id: String(r.client_id),
  client_name: String(r.client_name ?? ""),
  manage: Boolean(r.manage),
  created: iso(r.created),
  last_used: isoOrNull(r.last_used),
  revoked: isoOrNull(r.revoked),
});

const id = (prefix: string) => prefix + randomBytes(12).toString("base64url");

const GRANT = `SELECT g.*, c.name AS client_name FROM mcp_grants g JOIN mcp_clients c ON c.id = g.client_id`;

export class McpStore {
  constructor(private readonly db: Db) {}

  // --- Clients (RFC 7591) ---

  async createClient(
    name: string,
    redirectUris: string[],
    metadata: Record<string, unknown>,
    q: Queryable = this.db,
  ): Promise<ClientRow> {
    const rows = await q.query(
      `INSERT INTO mcp_clients (id, name, redirect_uris, metadata) VALUES ($1, $2, $3::jsonb, $4::jsonb)
       RETURNING *`,
      [id("mcpc_"), name, JSON.stringify(redirectUris), JSON.stringify(metadata)],
    );
    return toClient(rows[0]!);
  }

  async client(clientId: string): Promise<ClientRow | null> {
    const rows = await this.db.query("SELECT * FROM mcp_clients WHERE id = $1", [clientId]);
    return rows[0] ? toClient(rows[0]) : null;
  }

  // --- Authorizations and codes ---

  async createAuthorization(
    a: Omit<AuthorizationRow, "id" | "status" | "account_id" | "grant_id" | "redirect_url" | "expires">,
    ttlS: number,
  ): Promise<AuthorizationRow> {
    const rows = await this.db.query(
      `INSERT INTO mcp_authorizations (id, client_id, redirect_uri, code_challenge, state, resource, scope, expires)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8)) RETURNING *`,
      [id("mcpa_"), a.client_id, a.redirect_uri, a.code_challenge, a.state, a.resource, a.scope, ttlS],
    );
    return toAuthorization(rows[0]!);
  }

  /** A live (unexpired) authorization by id. */
  async authorization(authorizationId: string): Promise<AuthorizationRow | null> {
    const rows = await this.db.query("SELECT * FROM mcp_authorizations WHERE id = $1 AND expires > now()", [
      authorizationId,
    ]);
    return rows[0] ? toAuthorization(rows[0]) : null;
  }

  /** Records the owner's decision on a pending authorization; false if it was decided meanwhile. */
  async decide(
    authorizationId: string,
    accountId: string,
    d: {
      status: "approved" | "denied";
      grantId: string | null;
      codeHash: string | null;
      redirectUrl: string;
    },
    q: Queryable,
  ): Promise<boolean> {
    const rows = await q.query(
      `UPDATE mcp_authorizations
         SET status = $3, account_id = $2, grant_id = $4, code_hash = $5, redirect_url = $6
       WHERE id = $1 AND status = 'pending' AND expires > now() RETURNING id`,
      [authorizationId, accountId, d.status, d.grantId, d.codeHash, d.redirectUrl],
    );
    return rows.length > 0;
  }

  /**
   * Takes an approved code once: the authorization it belongs to, now marked used, or null. Only the client it
   * was issued to can take it: another client's attempt leaves it for its owner (issue 31).
   */
  async takeCode(code: string, clientId: string, q: Queryable): Promise<AuthorizationRow | null> {
    const rows = await q.query(
      `UPDATE mcp_authorizations SET status = 'used'
       WHERE code_hash = $1 AND client_id = $2 AND status = 'approved' AND expires > now() RETURNING *`,
      [hashToken(code), clientId],
    );
    return rows[0] ? toAuthorization(rows[0]) : null;
  }

  /**
   * A code its client presented before: its grant (to revoke, RFC 6749 4.1.2), or null for an unknown code or
   * one of another client.
   */
  async usedCodeGrant(code: string, clientId: string): Promise<string | null> {
    const rows = await this.db.query(
      "SELECT grant_id FROM mcp_authorizations WHERE code_hash = $1 AND client_id = $2 AND status = 'used'",
      [hashToken(code), clientId],
    );
    return (rows[0]?.grant_id as string | null | undefined) ?? null;
  }

  // --- Grants ---

  /** The account's live grant for a client, replaced by a new one (a fresh approval starts over). */
  async replaceGrant(accountId: string, clientId: string, manage: boolean, q: Queryable): Promise<string> {
    await q.query(
      `UPDATE mcp_grants SET revoked = now(), revoke_reason = 'replaced'
       WHERE account_id = $1 AND client_id = $2 AND revoked IS NULL`,
      [accountId, clientId],
    );
    const grantId = id("mcpg_");
    await q.query("INSERT INTO mcp_grants (id, account_id, client_id, manage) VALUES ($1, $2, $3, $4)", [
      grantId,
      accountId,
      clientId,
      manage,
    ]);
    return grantId;
  }

  async grant(grantId: string): Promise<GrantRow | null> {
    const rows = await this.db.query(`${GRANT} WHERE g.id = $1`, [grantId]);
    return rows[0] ? toGrant(rows[0]) : null;
  }

  /** A live grant, its last use recorded; null when revoked or unknown. */
  async useGrant(grantId: string): Promise<GrantRow | null> {
    const rows = await this.db.query(
      "UPDATE mcp_grants SET last_used = now() WHERE id = $1 AND revoked IS NULL RETURNING id",
      [grantId],
    );
    return rows[0] ? this.grant(grantId) : null;
  }

  /** The account's live grants, oldest first (SPEC 2 Account `mcp_clients`). */
  async liveGrants(accountId: string): Promise<GrantRow[]> {
    const rows = await this.db.query(
      `${GRANT} WHERE g.account_id = $1 AND g.revoked IS NULL ORDER BY g.created, g.id`,
      [accountId],
    );
    return rows.map(toGrant);
  }

  /** Revokes an account's live grants of a client; how many there were. */
  async revokeClient(accountId: string, clientId: string, reason: string, q: Queryable): Promise<number> {
    const rows = await q.query(
      `UPDATE mcp_grants SET revoked = now(), revoke_reason = $3
       WHERE account_id = $1 AND client_id = $2 AND revoked IS NULL RETURNING id`,
      [accountId, clientId, reason],
    );
    return rows.length;
  }

  async revokeGrant(grantId: string, reason: string, q: Queryable): Promise<boolean> {
    const rows = await q.query(
      "UPDATE mcp_grants SET revoked = now(), revoke_reason = $2 WHERE id = $1 AND revoked IS NULL RETURNING id",
      [grantId, reason],
    );
    return rows.length > 0;
  }

  // --- Refresh tokens ---

  async addRefresh(grantId: string, token: string, ttlS: number, q: Queryable): Promise<void> {
    await q.query(
      `INSERT INTO mcp_refresh_tokens (token_hash, grant_id, expires)
       VALUES ($1, $2, now() + make_interval(secs => $3))`,
      [hashToken(token), grantId, ttlS],
    );
  }

  /**
   * What a refresh token is, without using it: its grant and the grant's client, whether it was rotated and
   * whether it expired. Null for an unknown token. The service checks the client before rotating, so another
   * client presenting the token changes nothing (issue 31).
   */
  async peekRefresh(
    token: string,
  ): Promise<{ grantId: string; clientId: string; rotated: boolean; expired: boolean } | null> {
    const rows = await this.db.query(
      `SELECT t.grant_id, g.client_id, t.rotated IS NOT NULL AS rotated, t.expires <= now() AS expired
       FROM mcp_refresh_tokens t JOIN mcp_grants g ON g.id = t.grant_id WHERE t.token_hash = $1`,
      [hashToken(token)],
    );
    const r = rows[0];
    return r
      ? {
          grantId: String(r.grant_id),
          clientId: String(r.client_id),
          rotated: Boolean(r.rotated),
          expired: Boolean(r.expired),
        }
      : null;
  }

  /**
   * Rotates a refresh token: `fresh` (its grant, now marked rotated), `reused` (it was rotated before: its
   * grant id, to revoke), or null for an unknown or expired token.
   */
  async rotateRefresh(
    token: string,
    q: Queryable,
  ): Promise<{ kind: "fresh"; grantId: string } | { kind: "reused"; grantId: string } | null> {
    const rows = await q.query(
      `UPDATE mcp_refresh_tokens SET rotated = now()
       WHERE token_hash = $1 AND rotated IS NULL AND expires > now() RETURNING grant_id`,
      [hashToken(token)],
    );
    if (rows[0]) return { kind: "fresh", grantId: String(rows[0].grant_id) };
    const old = await q.query(
      "SELECT grant_id FROM mcp_refresh_tokens WHERE token_hash = $1 AND rotated IS NOT NULL",
      [hashToken(token)],
    );
    return old[0] ? { kind: "reused", grantId: String(old[0].grant_id) } : null;
  }

  /**
   * Forgets what can no longer be used: authorizations a day past their expiry, refresh tokens past theirs
   * (a rotated one is kept until then, so its reuse is still recognised), and clients never approved after a day.
   */
  async sweep(): Promise<number> {
    const a = await this.db.query(
      "DELETE FROM mcp_authorizations WHERE expires < now() - interval '1 day' RETURNING id",
    );
    const r = await this.db.query("DELETE FROM mcp_refresh_tokens WHERE expires < now() RETURNING grant_id");
    const c = await this.db.query(
      `DELETE FROM mcp_clients c WHERE c.created < now() - interval '1 day'
         AND NOT EXISTS (SELECT 1 FROM mcp_grants g WHERE g.client_id = c.id)
         AND NOT EXISTS (SELECT 1 FROM mcp_authorizations a WHERE a.client_id = c.id) RETURNING id`,
    );
    return a.length + r.length + c.length;
  }

  // --- Agent keys ---

  /** Whether an agent key may retire bots and enroll (keys made since this release may). */
  async keyMayManage(keyId: string): Promise<boolean> {
    const rows = await this.db.query("SELECT manage FROM agent_keys WHERE id = $1", [keyId]);
    return Boolean(rows[0]?.manage);
  }
}
