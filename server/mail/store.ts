// SQL of the email outbox, its sending incidents and the unsubscribe key (migration 0008). Writes that belong
// to a change take the unit of work's Queryable; the sender's own state moves are single statements, each
// committed before the next step (a claim is committed before the SMTP submission starts).
import { randomBytes } from "node:crypto";
import type { Db, Queryable, Row } from "../db/db.ts";
import { iso, isoOrNull } from "../db/rows.ts";
import { EMAIL_CATEGORIES, type EmailCategory, type OutboxCategory } from "../kernel/unit-of-work.ts";

export const EMAIL_STATES = ["pending", "sending", "accepted", "failed", "unknown", "skipped"] as const;
export type EmailState = (typeof EMAIL_STATES)[number];
export type DeliveryCounts = Record<EmailState, number>;

/** What an identity mail's body becomes once it is settled: its single-use link is not kept. */
export const REDACTED_BODY = "(an account link: removed from the outbox once the mail was settled)";

/** Every category the outbox holds (the totals of the emails screen). */
export const OUTBOX_CATEGORIES: readonly OutboxCategory[] = [...EMAIL_CATEGORIES, "identity"];

export interface OutboxRow {
  id: number;
  category: OutboxCategory;
  /** The recipient's account; null for identity mail (addressed before an account exists). */
  account_id: string | null;
  subject: string;
  text: string;
  html: string;
  announcement_id: string | null;
  state: EmailState;
  attempts: number;
  detail: string | null;
  created: string;
  updated: string;
  sent_at: string | null;
}

/** A pending row with what the sender needs to decide about its recipient. */
export interface Candidate extends OutboxRow {
  address: string | null;
  account_exists: boolean;
  banned: boolean;
  handle: string | null;
  email_announcements: boolean;
  email_preferences: Record<string, boolean>;
}

export interface IncidentRow {
  id: number;
  scope: string;
  problem: string;
  opened: string;
  resolved: string | null;
  resolved_by: string | null;
  resolution: string | null;
}

export const emptyCounts = (): DeliveryCounts =>
  Object.fromEntries(EMAIL_STATES.map((s) => [s, 0])) as DeliveryCounts;

function toOutbox(r: Row): OutboxRow {
  return {
    id: Number(r.id),
    category: String(r.category) as OutboxCategory,
    account_id: r.account_id == null ? null : String(r.account_id),
    subject: String(r.subject),
    text: String(r.text_body),
    html: String(r.html_body),
    announcement_id: (r.announcement_id as string | null) ?? null,
    state: String(r.state) as EmailState,
    attempts: Number(r.attempts),
    detail: (r.detail as string | null) ?? null,
    created: iso(r.created),
    updated: iso(r.updated),
    sent_at: isoOrNull(r.sent_at),
  };
}

function toIncident(r: Row): IncidentRow {
  return {
    id: Number(r.id),
    scope: String(r.scope),
    problem: String(r.problem),
    opened: iso(r.opened),
    resolved: isoOrNull(r.resolved),
    resolved_by: (r.resolved_by as string | null) ?? null,
    resolution: (r.resolution as string | null) ?? null,
  };
}

const json = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : (v ?? {})) as Record<string, boolean>;

export class MailStore {
  /** The database, for the mail producers' reads of accounts, matches and members (server/mail/producers.ts). */
  constructor(readonly db: Db) {}

  /** The unsubscribe key: made once, then the same for every server on this database. */
  async secret(): Promise<Buffer> {
    await this.db.query("INSERT INTO email_keys (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING", [
      randomBytes(32).toString("base64"),
    ]);
    const rows = await this.db.query("SELECT secret FROM email_keys WHERE id = 1");
    return Buffer.from(String(rows[0]!.secret), "base64");
  }

  /**
   * At start: a send that was under way when the process died may have reached the server: `unknown`
   * (never resent; an identity mail's link is removed like any settled one). Returns their ids.
   */
  async interrupted(): Promise<number[]> {
    const rows = await this.db.query(
      `UPDATE email_outbox SET state = 'unknown', updated = now(),
         detail = 'interrupted mid-send (the server stopped); not resent',
         text_body = CASE WHEN category = 'identity' THEN $1 ELSE text_body END,
         html_body = CASE WHEN category = 'identity' THEN $1 ELSE html_body END
       WHERE state = 'sending' RETURNING id`,
      [REDACTED_BODY],
    );
    return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
  }

  /**
   * The oldest pending mail whose scope has no open incident, with its recipient's address and preferences;
   * identity mail first (someone is waiting for the link), then the rest (announcements included) in order.
   * A recipient domain under an open incident waits; a global incident (`*`) is checked by the caller.
   * `identityOnly`: without SMTP only identity mail is delivered (as files); the rest stays queued.
   */
  async nextPending(identityOnly = false): Promise<Candidate | null> {
    for (const identity of identityOnly ? [true] : [true, false]) {
      const c = await this.pendingOf(identity);
      if (c) return c;
    }
    return null;
  }

  private async pendingOf(identity: boolean): Promise<Candidate | null> {
    const rows = await this.db.query(
      `SELECT o.*, (a.id IS NOT NULL) AS account_exists, a.banned_at, a.handle, a.email_announcements,
              a.email_preferences, coalesce(o.to_address, iu.email, a.email) AS address
       FROM email_outbox o
       LEFT JOIN accounts a ON a.id = o.account_id
       LEFT JOIN identity_users iu ON iu.id = o.account_id
       WHERE o.state = 'pending' AND (o.category = 'identity') = $1
         AND lower(split_part(coalesce(o.to_address, iu.email, a.email, ''), '@', 2)) NOT IN
             (SELECT scope FROM email_incidents WHERE resolved IS NULL)
       ORDER BY o.id LIMIT 1`,
      [identity],
    );
    const r = rows[0];
    if (!r) return null;
    return {
      ...toOutbox(r),
      address: (r.address as string | null) ?? null,
      account_exists: Boolean(r.account_exists),
      banned: r.banned_at != null,
      handle: (r.handle as string | null) ?? null,
      email_announcements: r.email_announcements == null ? true : Boolean(r.email_announcements),
      email_preferences: json(r.email_preferences),
    };
  }

  /** pending -> sending, committed before the submission; false if another sender took it. */
  async claim(id: number, domain: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE email_outbox SET state = 'sending', attempts = attempts + 1, domain = $2, updated = now()
       WHERE id = $1 AND state = 'pending' RETURNING id`,
      [id, domain],
    );
    return rows.length > 0;
  }

  /**
   * The outcome of a claim (or a skip of a pending row). An identity mail that is settled (anything but back
   * to pending) loses its body: the single-use link it carries is not kept in the database once it went out,
   * was refused, is in doubt or was skipped.
   */
  async settle(id: number, from: EmailState, state: EmailState, detail: string | null): Promise<void> {
    await this.db.query(
      `UPDATE email_outbox SET state = $3, detail = $4, updated = now(),
         sent_at = CASE WHEN $3 = 'accepted' THEN now() ELSE sent_at END,
         text_body = CASE WHEN category = 'identity' AND $3 <> 'pending' THEN $5 ELSE text_body END,
         html_body = CASE WHEN category = 'identity' AND $3 <> 'pending' THEN $5 ELSE html_body END
       WHERE id = $1 AND state = $2`,
      [id, from, state, detail, REDACTED_BODY],
    );
  }

  async pendingCount(): Promise<number> {
    const rows = await this.db.query("SELECT count(*)::int AS n FROM email_outbox WHERE state = 'pending'");
    return Number(rows[0]!.n);
  }

  async counts(announcementIds: readonly string[]): Promise<Map<string, DeliveryCounts>> {
    const out = new Map<string, DeliveryCounts>(announcementIds.map((id) => [id, emptyCounts()]));
    if (announcementIds.length === 0) return out;
    const rows = await this.db.query(
      `SELECT announcement_id, state, count(*)::int AS n FROM email_outbox
       WHERE announcement_id = ANY($1::text[]) GROUP BY announcement_id, state`,
      [announcementIds],
    );
    for (const r of rows) {
      const c = out.get(String(r.announcement_id));
      if (c) c[String(r.state) as EmailState] = Number(r.n);
    }
    return out;
  }

  /** Totals by category and state (the emails screen). */
  async totals(): Promise<Record<OutboxCategory, DeliveryCounts>> {
    const out = Object.fromEntries(OUTBOX_CATEGORIES.map((c) => [c, emptyCounts()])) as Record<
      OutboxCategory,
      DeliveryCounts
    >;
    const rows = await this.db.query(
      "SELECT category, state, count(*)::int AS n FROM email_outbox GROUP BY category, state",
    );
    for (const r of rows) {
      const c = out[String(r.category) as OutboxCategory];
      if (c) c[String(r.state) as EmailState] = Number(r.n);
    }
    return out;
  }

  /** The latest mails, newest first (without recipients: the operator's history). */
  async history(limit: number): Promise<OutboxRow[]> {
    const rows = await this.db.query("SELECT * FROM email_outbox ORDER BY id DESC LIMIT $1", [limit]);
    return rows.map(toOutbox);
  }

  async byAnnouncement(id: string, q: Queryable = this.db): Promise<OutboxRow[]> {
    const rows = await q.query("SELECT * FROM email_outbox WHERE announcement_id = $1 ORDER BY id", [id]);
    return rows.map(toOutbox);
  }

  /** Cancels an announcement's queued mail (a send under way may complete). */
  async cancelAnnouncement(id: string, q: Queryable): Promise<number> {
    const rows = await q.query(
      `UPDATE email_outbox SET state = 'skipped', detail = 'announcement deleted', updated = now()
       WHERE announcement_id = $1 AND state = 'pending' RETURNING id`,
      [id],
    );
    return rows.length;
  }

  /** Requeues only what was definitely refused; accepted and unknown are never resent. */
  async retryAnnouncement(id: string, q: Queryable): Promise<number> {
    const rows = await q.query(
      `UPDATE email_outbox SET state = 'pending', detail = 'retry requested', updated = now()
       WHERE announcement_id = $1 AND state = 'failed' RETURNING id`,
      [id],
    );
    return rows.length;
  }

  async openIncidents(): Promise<IncidentRow[]> {
    const rows = await this.db.query("SELECT * FROM email_incidents WHERE resolved IS NULL ORDER BY id");
    return rows.map(toIncident);
  }

  async incidents(limit: number): Promise<IncidentRow[]> {
    const rows = await this.db.query("SELECT * FROM email_incidents ORDER BY id DESC LIMIT $1", [limit]);
    return rows.map(toIncident);
  }

  /** Opens an incident for a scope unless one is open already; true when this call opened it. */
  async openIncident(scope: string, problem: string, q: Queryable = this.db): Promise<boolean> {
    const rows = await q.query(
      `INSERT INTO email_incidents (scope, problem) VALUES ($1, $2)
       ON CONFLICT (scope) WHERE resolved IS NULL DO NOTHING RETURNING id`,
      [scope, problem],
    );
    return rows.length > 0;
  }

  async resolveIncident(
    scope: string,
    by: string,
    reason: string,
    q: Queryable,
  ): Promise<IncidentRow | null> {
    const rows = await q.query(
      `UPDATE email_incidents SET resolved = now(), resolved_by = $2, resolution = $3
       WHERE scope = $1 AND resolved IS NULL RETURNING *`,
      [scope, by, reason],
    );
    return rows[0] ? toIncident(rows[0]) : null;
  }
}

/** Opts an account out of one category; null when the account is gone, else whether it was still in. */
export async function optOut(
  q: Queryable,
  accountId: string,
  category: EmailCategory,
): Promise<boolean | null> {
  const rows = await q.query(
    "SELECT email_announcements, email_preferences FROM accounts WHERE id = $1 FOR UPDATE",
    [accountId],
  );
  const r = rows[0];
  if (!r) return null;
  if (category === "announcements") {
    if (!r.email_announcements) return false;
    await q.query("UPDATE accounts SET email_announcements = false WHERE id = $1", [accountId]);
    return true;
  }
  if (json(r.email_preferences)[category] === false) return false;
  await q.query("UPDATE accounts SET email_preferences = email_preferences || $2::jsonb WHERE id = $1", [
    accountId,
    JSON.stringify({ [category]: false }),
  ]);
  return true;
}
