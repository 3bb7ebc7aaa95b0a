// The bots' and their versions' SQL (issue 32: each domain's SQL lives with it): registration, tokens (stored as
// sha256 hashes only), status, versions created on first use. Every write goes through the store's database, so
// the store's bot write counter (`botWrites`) moves after each committed one and the bot directory and the
// memoised version lists reload; a write inside a unit of work takes the unit's `u.q`.
import { randomBytes } from "node:crypto";
import type { Queryable, Row } from "../db/db.ts";
import { hashToken, iso, newToken } from "../db/rows.ts";
import { type BotRow, type BotStatus, toBot } from "../store/bot-row.ts";
import type { Store, VersionRow } from "../store/types.ts";

/** createBot with a name another bot already has, in any letter case. */
export class NameTakenError extends Error {
  constructor(readonly botName: string) {
    super(`the bot name ${JSON.stringify(botName)} is taken`);
    this.name = "NameTakenError";
  }
}

function toVersion(r: Row): VersionRow {
  return {
    bot_id: String(r.bot_id),
    label: String(r.label),
    notes: String(r.notes),
    created: iso(r.created),
    retired: Boolean(r.retired),
  };
}

/** What the bot store works through: the database, and the read memo kept until bots or versions are written. */
export type BotStoreBase = Pick<Store, "db" | "memo" | "botWrites">;

export class BotStore {
  constructor(private readonly k: BotStoreBase) {}

  async createBot(
    b: {
      name: string;
      owner: string;
      house: boolean;
      display_name?: string;
      account_id?: string | null;
    },
    q: Queryable = this.k.db,
  ) {
    const token = b.house ? null : newToken();
    // ON CONFLICT on the lowercase name instead of catching a unique violation: the same outcome on both
    // drivers without parsing error codes. An id collision (72 random bits) would still throw.
    const rows = await q.query(
      `INSERT INTO bots (id, name, name_lower, display_name, owner, house, token_hash, account_id)
       VALUES ($1, $2, lower($2), $3, $4, $5, $6, $7)
       ON CONFLICT (name_lower) DO NOTHING
       RETURNING *`,
      [
        "b_" + randomBytes(9).toString("base64url"),
        b.name,
        b.display_name ?? b.name,
        b.owner,
        b.house,
        token && hashToken(token),
        b.account_id ?? null,
      ],
    );
    if (rows.length === 0) throw new NameTakenError(b.name);
    return { bot: toBot(rows[0]), token };
  }

  async botByToken(token: string): Promise<BotRow | null> {
    // The lookup key is the token's hash, so timing reveals at most how a hash the caller chose compares with
    // stored hashes; with sha256 that says nothing usable about any real token. No separate constant-time
    // compare is needed.
    const rows = await this.k.db.query("SELECT * FROM bots WHERE token_hash = $1", [hashToken(token)]);
    return rows.length ? toBot(rows[0]) : null;
  }

  /** Every bot's token hash with its id (the bot directory keeps them, so a socket's token check costs no query). */
  async botTokenHashes(): Promise<[hash: string, botId: string][]> {
    const rows = await this.k.db.query<{ token_hash: string; id: string }>("SELECT token_hash, id FROM bots");
    return rows.map((r) => [String(r.token_hash), String(r.id)]);
  }

  async botByName(name: string): Promise<BotRow | null> {
    const rows = await this.k.db.query("SELECT * FROM bots WHERE name_lower = lower($1)", [name]);
    return rows.length ? toBot(rows[0]) : null;
  }

  async rotateToken(botId: string, q: Queryable = this.k.db): Promise<string> {
    const token = newToken();
    const rows = await q.query("UPDATE bots SET token_hash = $2 WHERE id = $1 RETURNING id", [
      botId,
      hashToken(token),
    ]);
    if (rows.length === 0) throw new Error(`rotateToken: no bot with id ${JSON.stringify(botId)}`);
    return token;
  }

  async setBotStatus(botId: string, status: BotStatus, q: Queryable = this.k.db): Promise<void> {
    const rows = await q.query("UPDATE bots SET status = $2 WHERE id = $1 RETURNING id", [botId, status]);
    if (rows.length === 0) throw new Error(`setBotStatus: no bot with id ${JSON.stringify(botId)}`);
  }

  async ensureVersion(botId: string, label: string, notes = "") {
    // Insert-or-read rather than read-then-insert, so two connections racing on the first queue of a new
    // label both succeed and exactly one reports created.
    const made = await this.k.db.query(
      `INSERT INTO bot_versions (bot_id, label, notes) VALUES ($1, $2, $3)
       ON CONFLICT (bot_id, label) DO NOTHING RETURNING *`,
      [botId, label, notes],
    );
    if (made.length) return { version: toVersion(made[0]), created: true };
    return { version: (await this.version(botId, label))!, created: false };
  }

  /** One version by its label; null when the bot has none by that label. */
  async version(botId: string, label: string): Promise<VersionRow | null> {
    const rows = await this.k.db.query("SELECT * FROM bot_versions WHERE bot_id = $1 AND label = $2", [
      botId,
      label,
    ]);
    return rows.length ? toVersion(rows[0]) : null;
  }

  versions(botId: string): Promise<VersionRow[]> {
    return this.k.memo.get(
      `versions\0${botId}`,
      this.k.botWrites.generation,
      () => this.readVersions(botId),
      (v) => v.length,
    );
  }

  private async readVersions(botId: string): Promise<VersionRow[]> {
    const rows = await this.k.db.query(
      "SELECT * FROM bot_versions WHERE bot_id = $1 ORDER BY created, label",
      [botId],
    );
    return rows.map(toVersion);
  }

  /** True when the version exists (now retired, whether or not it already was); false for an unknown label. */
  async retireVersion(botId: string, label: string): Promise<boolean> {
    const rows = await this.k.db.query(
      "UPDATE bot_versions SET retired = true WHERE bot_id = $1 AND label = $2 RETURNING label",
      [botId, label],
    );
    return rows.length > 0;
  }

  /** Every retired version, per bot. */
  async retiredVersions(): Promise<Map<string, Set<string>>> {
    const rows = await this.k.db.query("SELECT bot_id, label FROM bot_versions WHERE retired");
    const out = new Map<string, Set<string>>();
    for (const r of rows) {
      const id = String(r.bot_id);
      out.set(id, (out.get(id) ?? new Set()).add(String(r.label)));
    }
    return out;
  }

  async botById(id: string): Promise<BotRow | null> {
    const rows = await this.k.db.query("SELECT * FROM bots WHERE id = $1", [id]);
    return rows[0] ? toBot(rows[0]) : null;
  }

  async allBots(): Promise<BotRow[]> {
    return (await this.k.db.query("SELECT * FROM bots ORDER BY created, id")).map(toBot);
  }

  /** Bots of an owner that count against the bot limit (not retired). */
  async countActiveBots(owner: string): Promise<number> {
    const rows = await this.k.db.query(
      "SELECT count(*) AS n FROM bots WHERE owner = $1 AND status <> 'retired' AND NOT house",
      [owner],
    );
    return Number(rows[0]?.n ?? 0);
  }

  async versionsCreatedSince(botId: string, since: string): Promise<number> {
    const rows = await this.k.db.query(
      "SELECT count(*) AS n FROM bot_versions WHERE bot_id = $1 AND created >= $2::timestamptz",
      [botId, since],
    );
    return Number(rows[0]?.n ?? 0);
  }
}
