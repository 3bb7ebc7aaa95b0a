// The unit of work: one transaction that a service's change, its audit entry and its outbox messages share,
// so a change is never stored without its audit entry or the other way round, and a mail it causes is queued
// exactly when the change commits. Services open one with `store.work(fn)` and pass `u.q` to the stores' write
// methods; `u.outbox(mail)` queues an email (server/mail/ sends it).
import type { Db, Queryable } from "../db/db.ts";

/** The email categories of SPEC 6.3 (each one an account can opt out of). */
export const EMAIL_CATEGORIES = [
  "onboarding",
  "achievements",
  "bot_health",
  "event_reminders",
  "weekly_digest",
  "admin_warnings",
  "announcements",
] as const;
export type EmailCategory = (typeof EMAIL_CATEGORIES)[number];
/**
 * What the outbox carries: the categories above, and `identity` (the built-in identity provider's sign-up
 * and recovery links: transactional, never opted out of, addressed before any account exists).
 */
export type OutboxCategory = EmailCategory | "identity";

/**
 * An email for the outbox: rendered already. An account's address is looked up when it is sent; identity
 * mail names its address (`to`) instead of an account.
 */
export type OutboxMail = {
  subject: string;
  text: string;
  html: string;
  /** A mail that must go at most once: a second write with the same key is ignored. */
  dedupeKey?: string;
  announcementId?: string;
} & ({ category: EmailCategory; accountId: string } | { category: "identity"; to: string });

export interface Unit {
  /** Statements on the open transaction. */
  q: Queryable;
  /** An audit entry, committed with the change or not at all. */
  audit(kind: string, subject: string, detail?: Record<string, unknown>): Promise<void>;
  /** Queues an email, committed with the change or not at all; false when its dedupe key was used already. */
  outbox(mail: OutboxMail): Promise<boolean>;
}

export function auditIn(q: Queryable, kind: string, subject: string, detail: Record<string, unknown> = {}) {
  return q
    .query("INSERT INTO audit (kind, subject, detail) VALUES ($1, $2, $3::jsonb)", [
      kind,
      subject,
      JSON.stringify(detail),
    ])
    .then(() => undefined);
}

export async function outboxIn(q: Queryable, m: OutboxMail): Promise<boolean> {
  const rows = await q.query(
    `INSERT INTO email_outbox (category, account_id, to_address, subject, text_body, html_body, dedupe_key,
       announcement_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`,
    [
      m.category,
      m.category === "identity" ? null : m.accountId,
      m.category === "identity" ? m.to : null,
      m.subject,
      m.text,
      m.html,
      m.dedupeKey ?? null,
      m.announcementId ?? null,
    ],
  );
  return rows.length > 0;
}

/**
 * Runs `fn` in one transaction. `queued` is called after a commit that queued mail (the sender wakes up); a
 * rolled-back unit queued nothing.
 */
export async function runUnit<T>(db: Db, fn: (u: Unit) => Promise<T>, queued?: () => void): Promise<T> {
  let mailed = false;
  const result = await db.tx((q) =>
    fn({
      q,
      audit: (kind, subject, detail) => auditIn(q, kind, subject, detail),
      outbox: async (mail) => {
        const added = await outboxIn(q, mail);
        if (added) mailed = true;
        return added;
      },
    }),
  );
  if (mailed) queued?.();
  return result;
}
