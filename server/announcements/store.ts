// SQL of announcements (SPEC 3.8, migration 0008). Writes take the unit of work's Queryable, so each change
// commits with its audit entry and, at publication, with its outbox rows.
import type { Db, Queryable, Row } from "../db/db.ts";
import { iso, isoOrNull } from "../db/rows.ts";

export type AnnouncementState = "draft" | "published" | "discarded";

export interface AnnouncementRow {
  id: string;
  title: string;
  body: string;
  in_game: boolean;
  email: boolean;
  state: AnnouncementState;
  archived: boolean;
  audience: string[];
  email_title: string | null;
  email_text: string | null;
  email_html: string | null;
  created: string;
  created_by: string;
  previewed: string;
  published: string | null;
  archived_at: string | null;
  edited: string | null;
}

function toRow(r: Row): AnnouncementRow {
  const audience = typeof r.audience === "string" ? JSON.parse(r.audience) : r.audience;
  return {
    id: String(r.id),
    title: String(r.title),
    body: String(r.body),
    in_game: Boolean(r.in_game),
    email: Boolean(r.email),
    state: String(r.state) as AnnouncementState,
    archived: Boolean(r.archived),
    audience: Array.isArray(audience) ? audience.map(String) : [],
    email_title: (r.email_title as string | null) ?? null,
    email_text: (r.email_text as string | null) ?? null,
    email_html: (r.email_html as string | null) ?? null,
    created: iso(r.created),
    created_by: String(r.created_by),
    previewed: iso(r.previewed),
    published: isoOrNull(r.published),
    archived_at: isoOrNull(r.archived_at),
    edited: isoOrNull(r.edited),
  };
}

export interface NewAnnouncement {
  id: string;
  title: string;
  body: string;
  in_game: boolean;
  email: boolean;
  audience: string[];
  email_title: string | null;
  email_text: string | null;
  email_html: string | null;
  created_by: string;
}

export interface AudienceCounts {
  accounts: number;
  recipients: number;
  opted_out: number;
  no_address: number;
}

export class AnnouncementStore {
  constructor(private readonly db: Db) {}

  async insert(a: NewAnnouncement, q: Queryable): Promise<AnnouncementRow> {
    const rows = await q.query(
      `INSERT INTO announcements (id, title, body, in_game, email, audience, email_title, email_text, email_html,
         created_by) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10) RETURNING *`,
      [
        a.id,
        a.title,
        a.body,
        a.in_game,
        a.email,
        JSON.stringify(a.audience),
        a.email_title,
        a.email_text,
        a.email_html,
        a.created_by,
      ],
    );
    return toRow(rows[0]!);
  }

  async get(id: string, q: Queryable = this.db, lock = false): Promise<AnnouncementRow | null> {
    const rows = await q.query(`SELECT * FROM announcements WHERE id = $1${lock ? " FOR UPDATE" : ""}`, [id]);
    return rows[0] ? toRow(rows[0]) : null;
  }

  async update(
    id: string,
    fields: Partial<
      Pick<
        AnnouncementRow,
        "title" | "body" | "state" | "archived" | "email_title" | "email_text" | "email_html"
      >
    > & { published?: true; archived_at?: true; edited?: true },
    q: Queryable,
  ): Promise<AnnouncementRow> {
    const sets: string[] = [];
    const params: unknown[] = [id];
    for (const [k, v] of Object.entries(fields)) {
      if (v === undefined) continue;
      if (k === "published" || k === "archived_at" || k === "edited") sets.push(`${k} = now()`);
      else {
        params.push(v);
        sets.push(`${k} = $${params.length}`);
      }
    }
    const rows = await q.query(
      `UPDATE announcements SET ${sets.join(", ")} WHERE id = $1 RETURNING *`,
      params,
    );
    return toRow(rows[0]!);
  }

  async remove(id: string, q: Queryable): Promise<void> {
    await q.query("DELETE FROM announcements WHERE id = $1", [id]);
  }

  /** The latest 100 published, unarchived in-game announcements (GET /api/announcements). */
  async published(limit = 100): Promise<AnnouncementRow[]> {
    const rows = await this.db.query(
      `SELECT * FROM announcements WHERE state = 'published' AND NOT archived AND in_game
       ORDER BY published DESC, id DESC LIMIT $1`,
      [limit],
    );
    return rows.map(toRow);
  }

  /** The latest drafts and announcements for the console (discarded drafts left out). */
  async latest(limit = 100): Promise<AnnouncementRow[]> {
    const rows = await this.db.query(
      `SELECT * FROM announcements WHERE state <> 'discarded' ORDER BY created DESC, id DESC LIMIT $1`,
      [limit],
    );
    return rows.map(toRow);
  }

  /** Who an announcement email would reach now: opted-in, unbanned accounts with a known address. */
  async audience(): Promise<{ ids: string[]; counts: AudienceCounts }> {
    const rows = await this.db.query(
      `SELECT a.id, a.email_announcements, a.banned_at, coalesce(iu.email, a.email) AS address
       FROM accounts a LEFT JOIN identity_users iu ON iu.id = a.id ORDER BY a.created, a.id`,
    );
    const ids: string[] = [];
    let optedOut = 0;
    let noAddress = 0;
    let accounts = 0;
    for (const r of rows) {
      if (r.banned_at != null) continue;
      accounts++;
      if (!r.email_announcements) optedOut++;
      else if (!r.address) noAddress++;
      else ids.push(String(r.id));
    }
    return { ids, counts: { accounts, recipients: ids.length, opted_out: optedOut, no_address: noAddress } };
  }
}
