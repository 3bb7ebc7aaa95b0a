// The unit of work: one transaction that a service's change, its audit entry and (later) its outbox messages
// share, so a change is never stored without its audit entry or the other way round. Services open one with
// `store.work(fn)` and pass `u.q` to the stores' write methods.
import type { Db, Queryable } from "../db/db.ts";

export interface Unit {
  /** Statements on the open transaction. */
  q: Queryable;
  /** An audit entry, committed with the change or not at all. */
  audit(kind: string, subject: string, detail?: Record<string, unknown>): Promise<void>;
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

export function runUnit<T>(db: Db, fn: (u: Unit) => Promise<T>): Promise<T> {
  return db.tx((q) => fn({ q, audit: (kind, subject, detail) => auditIn(q, kind, subject, detail) }));
}
