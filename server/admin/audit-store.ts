// The audit log's SQL (issue 32: each domain's SQL lives with it). Staff read it in the console (admin/routes.ts);
// throttles outside a unit of work write to it here, while a change and its entry share one transaction through
// the unit of work's `u.audit` (server/kernel/unit-of-work.ts), which writes the same row.
import type { Queryable } from "../db/db.ts";
import { iso } from "../db/rows.ts";
import { auditIn } from "../kernel/unit-of-work.ts";

export interface AuditEntry {
  id: number;
  at: string;
  kind: string;
  subject: string;
  detail: Record<string, unknown>;
}

export class AuditStore {
  constructor(private readonly db: Queryable) {}

  /** One entry on its own (no change to commit with it: a throttle, a registration noted after the fact). */
  async audit(kind: string, subject: string, detail: Record<string, unknown> = {}): Promise<void> {
    await auditIn(this.db, kind, subject, detail);
  }

  /** The newest entries first, of one kind when named. */
  async auditEntries(kind: string | null, limit: number): Promise<AuditEntry[]> {
    const rows = await this.db.query(
      "SELECT * FROM audit WHERE ($1::text IS NULL OR kind = $1::text) ORDER BY id DESC LIMIT $2",
      [kind, limit],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      at: iso(r.at),
      kind: String(r.kind),
      subject: String(r.subject),
      detail: (typeof r.detail === "string" ? JSON.parse(r.detail) : r.detail) as Record<string, unknown>,
    }));
  }
}
