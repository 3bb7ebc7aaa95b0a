// Accounts, agent keys, legacy owner keys and bot ownership, on the same database as the rest of the store.
// Secrets are stored as sha256 hashes; the plain value leaves this module once, at creation.
import { randomBytes } from "node:crypto";
import { type Db, type Queryable, type Row, withTx } from "../db/db.ts";
import { hashToken, iso, isoOrNull, newToken } from "../db/rows.ts";
import type { BotRow } from "../store/bot-row.ts";
import { toBot } from "../store/bot-row.ts";

export const EMAIL_PREFERENCE_KEYS = [
  "onboarding",
  "achievements",
  "bot_health",
  "event_reminders",
  "weekly_digest",
  "admin_warnings",
] as const;
export type EmailPreferences = Record<(typeof EMAIL_PREFERENCE_KEYS)[number], boolean>;

export interface AccountRow {
  id: string;
  handle: string | null;
  role: "player" | "admin";
  banned_at: string | null;
  email: string | null;
  email_announcements: boolean;
  email_preferences: EmailPreferences;
  max_bots: number | null;
  created: string;
  last_seen: string | null;
}

export interface AgentKeyRow {
  id: string;
  account_id: string;
  label: string;
  created: string;
  last_used: string | null;
  /** When the key stops working, or null for a key that works until revoked. */
  expires: string | null;
}

export interface OwnerKeyRow {
  id: string;
  name: string;
  max_bots: number | null;
  created: string;
}

export interface AccountBot extends BotRow {
  played: boolean;
}

export const MAX_AGENT_KEYS = 10;

function toAccount(r: Row): AccountRow {
  const prefs = (
    typeof r.email_preferences === "string" ? JSON.parse(r.email_preferences) : (r.email_preferences ?? {})
  ) as Partial<EmailPreferences>;
  return {
    id: String(r.id),
    handle: (r.handle as string | null) ?? null,
    role: r.role === "admin" ? "admin" : "player",
    banned_at: isoOrNull(r.banned_at),
    email: (r.email as string | null) ?? null,
    email_announcements: Boolean(r.email_announcements),
    // Every category defaults on; a stored object holds only what the person changed.
    email_preferences: Object.fromEntries(
      EMAIL_PREFERENCE_KEYS.map((k) => [k, prefs[k] ?? true]),
    ) as EmailPreferences,
    max_bots: r.max_bots == null ? null : Number(r.max_bots),
    created: iso(r.created),
    last_seen: isoOrNull(r.last_seen),
  };
}

function toKey(r: Row): AgentKeyRow {
  return {
    id: String(r.id),
    account_id: String(r.account_id),
    label: String(r.label),
    created: iso(r.created),
    last_used: isoOrNull(r.last_used),
    expires: isoOrNull(r.expires),
  };
}

/** A unique-index violation, as either driver reports it. */
function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  return e?.code === "23505" || /duplicate key/i.test(String(e?.message ?? ""));
}

const PLAYED = "EXISTS (SELECT 1 FROM match_bots mb WHERE mb.bot_id = b.id) AS played";

export class AccountStore {
  constructor(private readonly db: Db) {}

  // --- Accounts ---

  /**
   * The account of an identity subject, created on first use (SPEC 4.4). "deleted" when an admin deleted the
   * account after `issuedAt` (a token's iat, in seconds): a token from before the deletion must not make the
   * account anew; the person signs in again for a new one (SPEC 3.6).
   */
  async ensureAccount(id: string, issuedAt: number | null = null): Promise<AccountRow | "deleted"> {
    // last_seen moves at most every five minutes: most authenticated requests then only read.
    const rows = await this.db.query(
      `INSERT INTO accounts (id, last_seen)
       SELECT $1, now() WHERE $2::double precision IS NULL OR NOT EXISTS (
         SELECT 1 FROM account_deletions d WHERE d.account_id = $1 AND d.deleted >= to_timestamp($2::double precision))
       ON CONFLICT (id) DO UPDATE SET last_seen = now()
         WHERE accounts.last_seen IS NULL OR accounts.last_seen < now() - interval '5 minutes'
       RETURNING *`,
      [id, issuedAt],
    );
    if (rows[0]) return toAccount(rows[0]);
    const existing = await this.account(id);
    if (!existing) {
      if (issuedAt !== null) return "deleted";
      throw new Error(`ensureAccount: account ${JSON.stringify(id)} vanished`);
    }
    return existing;
  }

  async account(id: string): Promise<AccountRow | null> {
    const rows = await this.db.query("SELECT * FROM accounts WHERE id = $1", [id]);
    return rows[0] ? toAccount(rows[0]) : null;
  }

  /** By handle, in any case. */
  async accountByHandle(handle: string): Promise<AccountRow | null> {
    const rows = await this.db.query("SELECT * FROM accounts WHERE handle_lower = lower($1)", [handle]);
    return rows[0] ? toAccount(rows[0]) : null;
  }

  /** By handle (any case) or by id, as the admin routes name accounts. */
  async accountByRef(ref: string): Promise<AccountRow | null> {
    const rows = await this.db.query("SELECT * FROM accounts WHERE handle_lower = lower($1) OR id = $1", [
      ref,
    ]);
    return rows[0] ? toAccount(rows[0]) : null;
  }

  /**
   * Sets the handle and renames the owner on the account's bots in one transaction. "taken" when another
   * account (or a legacy owner, or an anonymous bot owner) has it in any letter case.
   */
  async setHandle(id: string, handle: string, within?: Queryable): Promise<AccountRow | "taken"> {
    try {
      return await withTx(this.db, within, async (q) => {
        const clash = await q.query(
          `SELECT 1 FROM accounts WHERE handle_lower = lower($2) AND id <> $1
           UNION ALL SELECT 1 FROM owner_keys WHERE name_lower = lower($2)
           UNION ALL SELECT 1 FROM bots WHERE lower(owner) = lower($2) AND account_id IS DISTINCT FROM $1
           LIMIT 1`,
          [id, handle],
        );
        if (clash.length) return "taken" as const;
        const rows = await q.query(
          "UPDATE accounts SET handle = $2, handle_lower = lower($2) WHERE id = $1 RETURNING *",
          [id, handle],
        );
        await q.query("UPDATE bots SET owner = $2 WHERE account_id = $1", [id, handle]);
        return toAccount(rows[0]!);
      });
    } catch (err) {
      if (isUniqueViolation(err)) return "taken";
      throw err;
    }
  }

  async setNotifications(
    id: string,
    announcements: boolean | undefined,
    prefs: Partial<EmailPreferences> | undefined,
  ): Promise<AccountRow> {
    const rows = await this.db.query(
      `UPDATE accounts SET
         email_announcements = COALESCE($2, email_announcements),
         email_preferences = email_preferences || $3::jsonb
       WHERE id = $1 RETURNING *`,
      [id, announcements ?? null, JSON.stringify(prefs ?? {})],
    );
    return toAccount(rows[0]!);
  }

  async setEmail(id: string, email: string | null): Promise<void> {
    await this.db.query("UPDATE accounts SET email = $2 WHERE id = $1 AND email IS DISTINCT FROM $2", [
      id,
      email,
    ]);
  }

  /**
   * An account never holds both a stored (listed) email and the admin role: the routes refuse the role to a
   * listed account, so an email still stored when the role is given is a stale one from an earlier list,
   * and goes (the list would put it back, and Accounts then drops the role).
   */
  async setRole(id: string, role: "player" | "admin", q: Queryable = this.db): Promise<AccountRow> {
    const rows = await q.query(
      "UPDATE accounts SET role = $2, email = CASE WHEN $2 = 'admin' THEN NULL ELSE email END WHERE id = $1 RETURNING *",
      [id, role],
    );
    return toAccount(rows[0]!);
  }

  async setBanned(id: string, banned: boolean, q: Queryable = this.db): Promise<AccountRow> {
    const rows = await q.query(
      `UPDATE accounts SET banned_at = CASE WHEN $2 THEN COALESCE(banned_at, now()) ELSE NULL END
       WHERE id = $1 RETURNING *`,
      [id, banned],
    );
    return toAccount(rows[0]!);
  }

  /**
   * SPEC 3.6: removes the account, its handle and agent keys; its bots are banned with their tokens replaced
   * (the new token is never shown) and keep their names and history; the built-in provider's sessions of
   * the person end, and a tombstone keeps older tokens of an external provider from making the account anew.
   * One transaction.
   */
  async deleteAccount(id: string, within?: Queryable): Promise<string[]> {
    return withTx(this.db, within, async (q) => {
      const bots = await q.query<{ id: string; name: string }>(
        "SELECT id, name FROM bots WHERE account_id = $1 ORDER BY name",
        [id],
      );
      for (const b of bots) {
        await q.query("UPDATE bots SET status = 'banned', token_hash = $2, account_id = NULL WHERE id = $1", [
          b.id,
          hashToken(newToken()),
        ]);
      }
      await q.query("DELETE FROM accounts WHERE id = $1", [id]);
      await q.query("INSERT INTO account_deletions (account_id) VALUES ($1)", [id]);
      await q.query(
        `UPDATE identity_sessions SET ended = now(), end_reason = 'account_deleted'
         WHERE user_id = $1 AND ended IS NULL`,
        [id],
      );
      return bots.map((b) => b.name);
    });
  }

  /** Newest first; `q` matches handle, id or bot name in any case. */
  async searchAccounts(
    query: string | null,
    limit: number,
  ): Promise<{
    total: number;
    accounts: (AccountRow & {
      bots: { name: string; status: string; id: string }[];
      keys: number;
      key_last_used: string | null;
    })[];
    found: number;
  }> {
    const total = Number((await this.db.query("SELECT count(*) AS n FROM accounts"))[0]?.n ?? 0);
    // `q` is text to find, not a pattern: LIKE's wildcards (and its escape character) in it match themselves.
    const literal = query === null ? null : query.replace(/[\\%_]/g, "\\$&");
    const contains = `'%' || lower($2::text) || '%' ESCAPE '\\'`;
    const where = `($1::text IS NULL OR a.handle_lower LIKE ${contains} OR a.id = $1::text
       OR EXISTS (SELECT 1 FROM bots b WHERE b.account_id = a.id AND b.name_lower LIKE ${contains}))`;
    const found = Number(
      (await this.db.query(`SELECT count(*) AS n FROM accounts a WHERE ${where}`, [query, literal]))[0]?.n ??
        0,
    );
    const rows = await this.db.query(
      `SELECT a.*,
         (SELECT count(*) FROM agent_keys k WHERE k.account_id = a.id) AS key_count,
         (SELECT max(last_used) FROM agent_keys k WHERE k.account_id = a.id) AS key_last_used
       FROM accounts a WHERE ${where} ORDER BY a.created DESC, a.id LIMIT $3`,
      [query, literal, limit],
    );
    const ids = rows.map((r) => String(r.id));
    const bots = ids.length
      ? await this.db.query(
          "SELECT id, name, status, account_id FROM bots WHERE account_id = ANY($1::text[]) ORDER BY name",
          [ids],
        )
      : [];
    return {
      total,
      found,
      accounts: rows.map((r) => ({
        ...toAccount(r),
        bots: bots
          .filter((b) => b.account_id === r.id)
          .map((b) => ({ id: String(b.id), name: String(b.name), status: String(b.status) })),
        keys: Number(r.key_count),
        key_last_used: isoOrNull(r.key_last_used),
      })),
    };
  }

  async admins(): Promise<AccountRow[]> {
    return (await this.db.query("SELECT * FROM accounts WHERE role = 'admin' OR email IS NOT NULL")).map(
      toAccount,
    );
  }

  // --- Agent keys ---

  /** A new key, or "limit" when the account has MAX_AGENT_KEYS already (checked in the same transaction). */
  async createKey(
    accountId: string,
    label: string,
    expiresInDays: number | null = null,
    within?: Queryable,
  ): Promise<{ key: string; row: AgentKeyRow } | "limit"> {
    const key = newToken("ak_");
    return withTx(this.db, within, async (q) => {
      // Lock the account row so two concurrent creations cannot both pass the count.
      await q.query("SELECT id FROM accounts WHERE id = $1 FOR UPDATE", [accountId]);
      const n = Number(
        (await q.query("SELECT count(*) AS n FROM agent_keys WHERE account_id = $1", [accountId]))[0]?.n,
      );
      if (n >= MAX_AGENT_KEYS) return "limit" as const;
      const rows = await q.query(
        `INSERT INTO agent_keys (id, account_id, label, key_hash, expires)
         VALUES ($1, $2, $3, $4, now() + $5::double precision * interval '1 day') RETURNING *`,
        ["key_" + randomBytes(6).toString("hex"), accountId, label, hashToken(key), expiresInDays],
      );
      return { key, row: toKey(rows[0]!) };
    });
  }

  async keys(accountId: string): Promise<AgentKeyRow[]> {
    return (
      await this.db.query("SELECT * FROM agent_keys WHERE account_id = $1 ORDER BY created, id", [accountId])
    ).map(toKey);
  }

  /** The key and its account behind a presented agent key that has not expired; marks it used. */
  async useKey(key: string): Promise<{ key: AgentKeyRow; account: AccountRow } | null> {
    const rows = await this.db.query(
      "UPDATE agent_keys SET last_used = now() WHERE key_hash = $1 AND (expires IS NULL OR expires > now()) RETURNING *",
      [hashToken(key)],
    );
    if (!rows[0]) return null;
    const account = await this.account(String(rows[0].account_id));
    return account ? { key: toKey(rows[0]), account } : null;
  }

  async revokeKey(accountId: string, id: string, q: Queryable = this.db): Promise<boolean> {
    const rows = await q.query("DELETE FROM agent_keys WHERE account_id = $1 AND id = $2 RETURNING id", [
      accountId,
      id,
    ]);
    return rows.length > 0;
  }

  // --- Bots of an account ---

  async accountBots(accountId: string): Promise<AccountBot[]> {
    const rows = await this.db.query(
      `SELECT b.*, ${PLAYED} FROM bots b WHERE b.account_id = $1 ORDER BY b.created, b.id`,
      [accountId],
    );
    return rows.map((r) => ({ ...toBot(r), played: Boolean(r.played) }));
  }

  async hasPlayed(botId: string): Promise<boolean> {
    return (await this.db.query("SELECT 1 FROM match_bots WHERE bot_id = $1 LIMIT 1", [botId])).length > 0;
  }

  /** Bots of an account that count against its limit (not retired). */
  async countBots(accountId: string): Promise<number> {
    const rows = await this.db.query(
      "SELECT count(*) AS n FROM bots WHERE account_id = $1 AND status <> 'retired'",
      [accountId],
    );
    return Number(rows[0]?.n ?? 0);
  }

  /** Moves an unowned player bot into an account. False when it has an owner account already. */
  async claimBot(botId: string, accountId: string, owner: string, q: Queryable = this.db): Promise<boolean> {
    const rows = await q.query(
      "UPDATE bots SET account_id = $2, owner = $3 WHERE id = $1 AND account_id IS NULL AND NOT house RETURNING id",
      [botId, accountId, owner],
    );
    return rows.length > 0;
  }

  /** Renames a bot; "taken" when another bot has the name in any case. Versions, token and history stay. */
  async renameBot(botId: string, name: string, q: Queryable = this.db): Promise<BotRow | "taken"> {
    try {
      const rows = await q.query(
        `UPDATE bots SET name = $2, name_lower = lower($2), display_name = $2
         WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM bots o WHERE o.name_lower = lower($2) AND o.id <> $1)
         RETURNING *`,
        [botId, name],
      );
      return rows[0] ? toBot(rows[0]) : "taken";
    } catch (err) {
      if (isUniqueViolation(err)) return "taken";
      throw err;
    }
  }

  async setAvatar(botId: string, avatar: string | null): Promise<void> {
    await this.db.query("UPDATE bots SET avatar = $2 WHERE id = $1", [botId, avatar]);
  }

  /** Deletes a bot that never played any game (its versions go with it). False when it has played. */
  async deleteUnplayedBot(botId: string, q: Queryable = this.db): Promise<boolean> {
    const rows = await q.query(
      "DELETE FROM bots b WHERE b.id = $1 AND NOT EXISTS (SELECT 1 FROM match_bots mb WHERE mb.bot_id = b.id) RETURNING id",
      [botId],
    );
    return rows.length > 0;
  }

  /** Bans a bot and replaces its token in one statement (SPEC 3.5: a ban rotates the token). */
  async banBot(botId: string, q: Queryable = this.db): Promise<void> {
    await q.query("UPDATE bots SET status = 'banned', token_hash = $2 WHERE id = $1", [
      botId,
      hashToken(newToken()),
    ]);
  }

  // --- Legacy owner keys (explicit anonymous local ladders only) ---

  async createOwnerKey(
    name: string,
    maxBots: number | null,
    q: Queryable = this.db,
  ): Promise<{ key: string; row: OwnerKeyRow } | "taken"> {
    const key = newToken("ok_");
    try {
      const rows = await q.query(
        `INSERT INTO owner_keys (id, name, name_lower, key_hash, max_bots) VALUES ($1, $2, lower($2), $3, $4)
         ON CONFLICT (name_lower) DO NOTHING RETURNING *`,
        ["own_" + randomBytes(6).toString("hex"), name, hashToken(key), maxBots],
      );
      if (!rows[0]) return "taken";
      return { key, row: toOwner(rows[0]) };
    } catch (err) {
      if (isUniqueViolation(err)) return "taken";
      throw err;
    }
  }

  async ownerByKey(key: string): Promise<OwnerKeyRow | null> {
    const rows = await this.db.query("SELECT * FROM owner_keys WHERE key_hash = $1", [hashToken(key)]);
    return rows[0] ? toOwner(rows[0]) : null;
  }

  async ownerKeys(): Promise<(OwnerKeyRow & { bots: string[] })[]> {
    const rows = await this.db.query(
      `SELECT o.*, COALESCE((SELECT array_agg(b.name ORDER BY b.name) FROM bots b
         WHERE lower(b.owner) = o.name_lower AND b.account_id IS NULL), '{}') AS bots
       FROM owner_keys o ORDER BY o.created, o.id`,
    );
    return rows.map((r) => ({ ...toOwner(r), bots: (r.bots as string[]) ?? [] }));
  }
}

function toOwner(r: Row): OwnerKeyRow {
  return {
    id: String(r.id),
    name: String(r.name),
    max_bots: r.max_bots == null ? null : Number(r.max_bots),
    created: iso(r.created),
  };
}
