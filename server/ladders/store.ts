// SQL of ladder memberships and invitations (SPEC 3.7), and of the live settings and their presets. Writes
// take the Queryable of a unit of work, so the service commits each change with its audit entry.
import type { Db, Queryable, Row } from "../db/db.ts";
import { hashToken, iso, isoOrNull, newToken } from "../db/rows.ts";

export type MembershipState = "pending" | "active" | "revoked";

export interface MembershipRow {
  ladder_id: string;
  account_id: string;
  handle: string | null;
  state: MembershipState;
  reason: string | null;
  via_invitation: string | null;
  created: string;
  updated: string;
}

export interface InvitationRow {
  id: string;
  ladder_id: string;
  account_id: string | null;
  handle: string | null;
  created: string;
  created_by: string;
  used_by: string | null;
  used_at: string | null;
}

export interface StoredSettings {
  revision: number;
  overrides: unknown;
  updated: string;
  updated_by: string;
}

export interface PresetRow {
  name: string;
  overrides: unknown;
  created: string;
  created_by: string;
}

const toMembership = (r: Row): MembershipRow => ({
  ladder_id: String(r.ladder_id),
  account_id: String(r.account_id),
  handle: (r.handle as string | null) ?? null,
  state: r.state as MembershipState,
  reason: (r.reason as string | null) ?? null,
  via_invitation: (r.via_invitation as string | null) ?? null,
  created: iso(r.created),
  updated: iso(r.updated),
});

const toInvitation = (r: Row): InvitationRow => ({
  id: String(r.id),
  ladder_id: String(r.ladder_id),
  account_id: (r.account_id as string | null) ?? null,
  handle: (r.handle as string | null) ?? null,
  created: iso(r.created),
  created_by: String(r.created_by),
  used_by: (r.used_by as string | null) ?? null,
  used_at: isoOrNull(r.used_at),
});

const MEMBER_SELECT = `SELECT m.*, a.handle FROM ladder_members m JOIN accounts a ON a.id = m.account_id`;
const INVITATION_SELECT = `SELECT i.*, a.handle FROM ladder_invitations i LEFT JOIN accounts a ON a.id = i.account_id`;

export class LadderStore {
  constructor(private readonly db: Db) {}

  async membership(
    ladderId: string,
    accountId: string,
    q: Queryable = this.db,
  ): Promise<MembershipRow | null> {
    const rows = await q.query(`${MEMBER_SELECT} WHERE m.ladder_id = $1 AND m.account_id = $2`, [
      ladderId,
      accountId,
    ]);
    return rows[0] ? toMembership(rows[0]) : null;
  }

  /** Every membership's state, for the in-memory copy the socket's queue check reads. */
  async allMemberships(): Promise<{ ladder_id: string; account_id: string; state: MembershipState }[]> {
    return (await this.db.query("SELECT ladder_id, account_id, state FROM ladder_members")).map((r) => ({
      ladder_id: String(r.ladder_id),
      account_id: String(r.account_id),
      state: r.state as MembershipState,
    }));
  }

  async membershipsOf(accountId: string): Promise<MembershipRow[]> {
    return (await this.db.query(`${MEMBER_SELECT} WHERE m.account_id = $1`, [accountId])).map(toMembership);
  }

  async members(ladderId: string): Promise<MembershipRow[]> {
    return (
      await this.db.query(`${MEMBER_SELECT} WHERE m.ladder_id = $1 ORDER BY m.updated DESC, m.account_id`, [
        ladderId,
      ])
    ).map(toMembership);
  }

  async setMembership(
    q: Queryable,
    m: {
      ladderId: string;
      accountId: string;
      state: MembershipState;
      reason?: string | null;
      via?: string | null;
    },
  ): Promise<void> {
    await q.query(
      `INSERT INTO ladder_members (ladder_id, account_id, state, reason, via_invitation)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (ladder_id, account_id)
       DO UPDATE SET state = $3, reason = $4, via_invitation = coalesce($5, ladder_members.via_invitation),
                     updated = now()`,
      [m.ladderId, m.accountId, m.state, m.reason ?? null, m.via ?? null],
    );
  }

  /** A new invitation; its code is returned once and only its hash is kept. */
  async createInvitation(
    q: Queryable,
    i: { ladderId: string; accountId: string | null; createdBy: string },
  ): Promise<{ invitation: InvitationRow; code: string }> {
    const code = newToken("inv_");
    const id = `i${newToken("").slice(0, 12)}`;
    await q.query(
      `INSERT INTO ladder_invitations (id, ladder_id, code_hash, account_id, created_by)
       VALUES ($1, $2, $3, $4, $5)`,
      [id, i.ladderId, hashToken(code), i.accountId, i.createdBy],
    );
    const rows = await q.query(`${INVITATION_SELECT} WHERE i.id = $1`, [id]);
    return { invitation: toInvitation(rows[0]!), code };
  }

  async invitations(ladderId: string): Promise<InvitationRow[]> {
    return (
      await this.db.query(`${INVITATION_SELECT} WHERE i.ladder_id = $1 ORDER BY i.created DESC, i.id`, [
        ladderId,
      ])
    ).map(toInvitation);
  }

  /** The invitation a code names, locked for the rest of the unit (two uses at once: one wins). */
  async invitationByCode(q: Queryable, code: string): Promise<InvitationRow | null> {
    const locked = await q.query("SELECT id FROM ladder_invitations WHERE code_hash = $1 FOR UPDATE", [
      hashToken(code),
    ]);
    if (!locked[0]) return null;
    const rows = await q.query(`${INVITATION_SELECT} WHERE i.id = $1`, [locked[0].id]);
    return toInvitation(rows[0]!);
  }

  async useInvitation(q: Queryable, id: string, accountId: string): Promise<boolean> {
    const rows = await q.query(
      "UPDATE ladder_invitations SET used_by = $2, used_at = now() WHERE id = $1 AND used_by IS NULL RETURNING id",
      [id, accountId],
    );
    return rows.length === 1;
  }

  async deleteInvitation(q: Queryable, ladderId: string, id: string): Promise<InvitationRow | null> {
    const rows = await q.query(`${INVITATION_SELECT} WHERE i.id = $1 AND i.ladder_id = $2`, [id, ladderId]);
    if (!rows[0]) return null;
    await q.query("DELETE FROM ladder_invitations WHERE id = $1", [id]);
    return toInvitation(rows[0]);
  }

  // --- Schedules moved by staff ---

  async schedules(): Promise<Map<string, { opens_at: string | null; closes_at: string | null }>> {
    const rows = await this.db.query("SELECT * FROM ladder_schedules");
    return new Map(
      rows.map((r) => [
        String(r.ladder_id),
        { opens_at: isoOrNull(r.opens_at), closes_at: isoOrNull(r.closes_at) },
      ]),
    );
  }

  async setSchedule(
    q: Queryable,
    ladderId: string,
    opensAt: string | null,
    closesAt: string | null,
    by: string,
  ): Promise<void> {
    await q.query(
      `INSERT INTO ladder_schedules (ladder_id, opens_at, closes_at, updated_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (ladder_id) DO UPDATE SET opens_at = $2, closes_at = $3, updated = now(), updated_by = $4`,
      [ladderId, opensAt, closesAt, by],
    );
  }

  // --- Live settings ---

  async settings(q: Queryable = this.db): Promise<StoredSettings | null> {
    const rows = await q.query("SELECT * FROM settings WHERE id = 1");
    const r = rows[0];
    return r
      ? {
          revision: Number(r.revision),
          overrides: r.overrides,
          updated: iso(r.updated),
          updated_by: String(r.updated_by),
        }
      : null;
  }

  /**
   * Writes new overrides if the stored revision is still `expected` (0: none stored yet); returns the new
   * revision, or null when someone else changed the settings first.
   */
  async writeSettings(
    q: Queryable,
    expected: number,
    overrides: unknown,
    by: string,
  ): Promise<number | null> {
    const current = await q.query("SELECT revision FROM settings WHERE id = 1 FOR UPDATE");
    const revision = current[0] ? Number(current[0].revision) : 0;
    if (revision !== expected) return null;
    await q.query(
      `INSERT INTO settings (id, revision, overrides, updated_by) VALUES (1, $1, $2::jsonb, $3)
       ON CONFLICT (id) DO UPDATE SET revision = $1, overrides = $2::jsonb, updated = now(), updated_by = $3`,
      [revision + 1, JSON.stringify(overrides), by],
    );
    return revision + 1;
  }

  async presets(): Promise<PresetRow[]> {
    return (await this.db.query("SELECT * FROM settings_presets ORDER BY name")).map((r) => ({
      name: String(r.name),
      overrides: r.overrides,
      created: iso(r.created),
      created_by: String(r.created_by),
    }));
  }

  async savePreset(q: Queryable, name: string, overrides: unknown, by: string): Promise<void> {
    await q.query(
      `INSERT INTO settings_presets (name, overrides, created_by) VALUES ($1, $2::jsonb, $3)
       ON CONFLICT (name) DO UPDATE SET overrides = $2::jsonb, created = now(), created_by = $3`,
      [name, JSON.stringify(overrides), by],
    );
  }
}
