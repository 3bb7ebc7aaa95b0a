// SQL of events (migration 0007): staff overrides, the image, retained match facts, awards and opponent
// requests. Writes take the Queryable of a unit of work, so the service commits each change with its audit
// entry. No flag is ever stored.
import { randomBytes } from "node:crypto";
import type { Db, Queryable, Row } from "../db/db.ts";
import { iso, isoOrNull } from "../db/rows.ts";
import type { MatchFacts } from "./definition.ts";

export interface EventOverrides {
  opens_at?: string;
  closes_at?: string;
  submission_url?: string | null;
  submission_instructions?: string;
}

export interface AwardRow {
  event_id: string;
  account_id: string;
  achievement_id: string;
  earned_at: string;
  evidence: string[];
  revoked_at: string | null;
  revoked_reason: string | null;
  revoked_by: string | null;
}

export interface FactRow {
  event_id: string;
  account_id: string;
  facts: MatchFacts;
}

export type RequestState = "pending" | "served" | "cancelled" | "expired";
export interface RequestRow {
  id: string;
  event_id: string;
  account_id: string;
  bot_id: string;
  opponent: string;
  state: RequestState;
  created: string;
  ended: string | null;
}

export interface ImageRow {
  event_id: string;
  webp: Buffer;
  width: number;
  height: number;
  alt: string;
  digest: string;
}

const json = <T>(v: unknown): T => (typeof v === "string" ? JSON.parse(v) : v) as T;

const toAward = (r: Row): AwardRow => ({
  event_id: String(r.event_id),
  account_id: String(r.account_id),
  achievement_id: String(r.achievement_id),
  earned_at: iso(r.earned_at),
  evidence: json<string[]>(r.evidence),
  revoked_at: isoOrNull(r.revoked_at),
  revoked_reason: (r.revoked_reason as string | null) ?? null,
  revoked_by: (r.revoked_by as string | null) ?? null,
});

const toRequest = (r: Row): RequestRow => ({
  id: String(r.id),
  event_id: String(r.event_id),
  account_id: String(r.account_id),
  bot_id: String(r.bot_id),
  opponent: String(r.opponent),
  state: r.state as RequestState,
  created: iso(r.created),
  ended: isoOrNull(r.ended),
});

export class EventStore {
  constructor(private readonly db: Db) {}

  async overrides(): Promise<Map<string, { overrides: EventOverrides; revision: number }>> {
    const rows = await this.db.query("SELECT event_id, overrides, revision FROM event_overrides");
    return new Map(
      rows.map((r) => [
        String(r.event_id),
        { overrides: json<EventOverrides>(r.overrides), revision: Number(r.revision) },
      ]),
    );
  }

  /** Merges `change` into an event's overrides and counts a revision; returns the new revision. */
  async override(q: Queryable, eventId: string, change: EventOverrides, by: string): Promise<number> {
    const rows = await q.query(
      `INSERT INTO event_overrides (event_id, overrides, revision, updated_by) VALUES ($1, $2::jsonb, 1, $3)
       ON CONFLICT (event_id) DO UPDATE SET overrides = event_overrides.overrides || $2::jsonb,
         revision = event_overrides.revision + 1, updated = now(), updated_by = $3
       RETURNING revision`,
      [eventId, JSON.stringify(change), by],
    );
    return Number(rows[0]!.revision);
  }

  async images(): Promise<ImageRow[]> {
    return (await this.db.query("SELECT * FROM event_images")).map((r) => ({
      event_id: String(r.event_id),
      webp: Buffer.from(r.webp as Uint8Array),
      width: Number(r.width),
      height: Number(r.height),
      alt: String(r.alt),
      digest: String(r.digest),
    }));
  }

  async setImage(q: Queryable, img: ImageRow): Promise<void> {
    await q.query(
      `INSERT INTO event_images (event_id, webp, width, height, alt, digest) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (event_id) DO UPDATE SET webp = $2, width = $3, height = $4, alt = $5, digest = $6,
         updated = now()`,
      [img.event_id, img.webp, img.width, img.height, img.alt, img.digest],
    );
  }

  async deleteImage(q: Queryable, eventId: string): Promise<boolean> {
    return (
      (await q.query("DELETE FROM event_images WHERE event_id = $1 RETURNING event_id", [eventId])).length > 0
    );
  }

  // --- Facts and awards ---

  async addFacts(q: Queryable, eventId: string, accountId: string, f: MatchFacts): Promise<boolean> {
    const rows = await q.query(
      `INSERT INTO event_facts (event_id, match_id, bot_id, account_id, facts, ended)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6) ON CONFLICT DO NOTHING RETURNING match_id`,
      [eventId, f.match_id, f.bot_id, accountId, JSON.stringify(f), f.ended],
    );
    return rows.length > 0;
  }

  async factsOf(eventId: string, accountId: string, q: Queryable = this.db): Promise<MatchFacts[]> {
    return (
      await q.query("SELECT facts FROM event_facts WHERE event_id = $1 AND account_id = $2 ORDER BY ended", [
        eventId,
        accountId,
      ])
    ).map((r) => json<MatchFacts>(r.facts));
  }

  /** The accounts with a fact of the event: those that have played for it. */
  async participants(eventId: string): Promise<string[]> {
    const rows = await this.db.query("SELECT DISTINCT account_id FROM event_facts WHERE event_id = $1", [
      eventId,
    ]);
    return rows.map((r) => String(r.account_id));
  }

  /** Every retained fact of an event, grouped by account. */
  async allFacts(eventId: string, q: Queryable = this.db): Promise<Map<string, MatchFacts[]>> {
    const out = new Map<string, MatchFacts[]>();
    for (const r of await q.query(
      "SELECT account_id, facts FROM event_facts WHERE event_id = $1 ORDER BY ended",
      [eventId],
    )) {
      const list = out.get(String(r.account_id)) ?? [];
      list.push(json<MatchFacts>(r.facts));
      out.set(String(r.account_id), list);
    }
    return out;
  }

  async factCount(eventId: string): Promise<number> {
    const rows = await this.db.query("SELECT count(*)::int AS n FROM event_facts WHERE event_id = $1", [
      eventId,
    ]);
    return Number(rows[0]!.n);
  }

  async awardsOf(eventId: string, accountId: string, q: Queryable = this.db): Promise<AwardRow[]> {
    return (
      await q.query("SELECT * FROM event_awards WHERE event_id = $1 AND account_id = $2", [
        eventId,
        accountId,
      ])
    ).map(toAward);
  }

  async awards(eventId: string, q: Queryable = this.db): Promise<AwardRow[]> {
    return (await q.query("SELECT * FROM event_awards WHERE event_id = $1", [eventId])).map(toAward);
  }

  /** Inserts an award unless one (valid or revoked) exists; true when inserted. */
  async award(
    q: Queryable,
    a: { eventId: string; accountId: string; achievementId: string; earnedAt: string; evidence: string[] },
  ): Promise<boolean> {
    const rows = await q.query(
      `INSERT INTO event_awards (event_id, account_id, achievement_id, earned_at, evidence)
       VALUES ($1, $2, $3, $4, $5::jsonb) ON CONFLICT DO NOTHING RETURNING achievement_id`,
      [a.eventId, a.accountId, a.achievementId, a.earnedAt, JSON.stringify(a.evidence)],
    );
    return rows.length > 0;
  }

  async revoke(
    q: Queryable,
    eventId: string,
    accountId: string,
    achievementId: string,
    reason: string,
    by: string,
  ): Promise<AwardRow | null> {
    const rows = await q.query(
      `UPDATE event_awards SET revoked_at = coalesce(revoked_at, now()), revoked_reason = $4, revoked_by = $5
       WHERE event_id = $1 AND account_id = $2 AND achievement_id = $3 RETURNING *`,
      [eventId, accountId, achievementId, reason, by],
    );
    return rows[0] ? toAward(rows[0]) : null;
  }

  // --- Opponent requests ---

  async pendingRequests(): Promise<RequestRow[]> {
    return (await this.db.query("SELECT * FROM event_opponent_requests WHERE state = 'pending'")).map(
      toRequest,
    );
  }

  async lastRequest(eventId: string, accountId: string, q: Queryable = this.db): Promise<RequestRow | null> {
    const rows = await q.query(
      `SELECT * FROM event_opponent_requests WHERE event_id = $1 AND account_id = $2
       ORDER BY created DESC LIMIT 1`,
      [eventId, accountId],
    );
    return rows[0] ? toRequest(rows[0]) : null;
  }

  async createRequest(
    q: Queryable,
    r: { eventId: string; accountId: string; botId: string; opponent: string },
  ): Promise<RequestRow> {
    const rows = await q.query(
      `INSERT INTO event_opponent_requests (id, event_id, account_id, bot_id, opponent, state)
       VALUES ($1, $2, $3, $4, $5, 'pending') RETURNING *`,
      [`req_${randomBytes(9).toString("base64url")}`, r.eventId, r.accountId, r.botId, r.opponent],
    );
    return toRequest(rows[0]!);
  }

  /** Ends a pending request (served, cancelled or expired); null when none was pending. */
  async endRequest(
    q: Queryable,
    id: string,
    state: Exclude<RequestState, "pending">,
  ): Promise<RequestRow | null> {
    const rows = await q.query(
      `UPDATE event_opponent_requests SET state = $2, ended = now() WHERE id = $1 AND state = 'pending'
       RETURNING *`,
      [id, state],
    );
    return rows[0] ? toRequest(rows[0]) : null;
  }
}
