// Ladder membership (SPEC 3.7): enrollment by the account, approval and revocation by staff, single-use
// invitations. Each change is one unit of work with its audit entry, then announced as MembershipChanged.
// Open ladders enroll at once; approval ladders wait in `pending` for staff; invitation ladders need an
// unused invitation made for this account or for anyone. Staff may also re-admit a revoked member.

import type { AccountRow } from "../accounts/account-store.ts";
import type { QueueRefusal } from "../connection/rules.ts";
import { errors } from "../errors.ts";
import type { EventBus } from "../kernel/bus.ts";
import type { BotRow, Store } from "../store/types.ts";
import type { Ladders } from "./registry.ts";
import type { LadderStore, MembershipState } from "./store.ts";

const key = (ladderId: string, accountId: string) => `${ladderId}\n${accountId}`;

export class Membership {
  /**
   * Every membership's state in memory: the socket asks on each `queue`, so the check costs no query. This
   * service is the only writer; it updates the copy after each commit (in a cluster, another node's commit
   * makes this one reload: server/cluster/feature.ts).
   */
  private readonly states = new Map<string, MembershipState>();

  constructor(
    private readonly store: Store,
    private readonly tables: LadderStore,
    private readonly ladders: Ladders,
    private readonly bus: EventBus,
  ) {}

  /**
   * Reads every membership; also called again in a cluster when another node changed one
   * (server/cluster/feature.ts). The copy is replaced in one step, after the read, so a check meanwhile
   * sees the old states rather than none.
   */
  async load(): Promise<void> {
    const rows = await this.tables.allMemberships();
    this.states.clear();
    for (const m of rows) this.states.set(key(m.ladder_id, m.account_id), m.state);
  }

  state(ladderId: string, accountId: string): MembershipState | null {
    return this.states.get(key(ladderId, accountId)) ?? null;
  }

  /**
   * The membership rule on queueing (SPEC 3.7), added to the ladders' rules: approval and invitation ladders need
   * an active enrollment of the bot's account; open ones need none, but a member revoked by staff may not queue.
   */
  mayQueue(bot: BotRow, ladderId: string): QueueRefusal | null {
    const l = this.ladders.get(ladderId);
    if (!l || bot.house) return null;
    const state = bot.account_id === null ? null : this.state(ladderId, bot.account_id);
    const ok = l.def.access === "open" ? state !== "revoked" : state === "active";
    if (ok) return null;
    return {
      code: "enrollment_required",
      message: `the ladder ${ladderId} needs an active enrollment of the bot's account: POST /api/account/ladders/${ladderId}/enrollment`,
    };
  }

  /** The ladders an account sees (visible ones, plus one named), each with its membership. */
  async accountLadders(accountId: string, base: string, named?: string) {
    const mine = new Map((await this.tables.membershipsOf(accountId)).map((m) => [m.ladder_id, m]));
    return this.ladders.listed(named).map((l) => ({
      ...l.view(base),
      membership: mine.get(l.id)?.state ?? null,
    }));
  }

  async enroll(account: AccountRow, ladderId: string, invitation: string | undefined): Promise<void> {
    const ladder = this.ladders.require(ladderId);
    if (!ladder.def.enabled) throw errors.ladderDisabled(ladder.id);
    if (ladder.phase === "closed" || !ladder.takesEnrollment()) throw errors.ladderClosed(ladder.id);
    const change = await this.store.work(async (u) => {
      const now = await this.tables.membership(ladder.id, account.id, u.q);
      const from = now?.state ?? null;
      if (from === "revoked") throw errors.membershipRevoked(ladder.id);
      if (from === "active") return null;
      let to: MembershipState = "active";
      let via: string | null = null;
      if (ladder.def.access === "approval") {
        if (from === "pending") return null;
        to = "pending";
      } else if (ladder.def.access === "invitation") {
        if (!invitation) throw errors.invitationRequired(ladder.id);
        const inv = await this.tables.invitationByCode(u.q, invitation);
        if (!inv || inv.ladder_id !== ladder.id || (inv.account_id !== null && inv.account_id !== account.id))
          throw errors.invalidInvitation();
        if (inv.used_by !== null || !(await this.tables.useInvitation(u.q, inv.id, account.id)))
          throw errors.invitationUsed();
        via = inv.id;
      }
      await this.tables.setMembership(u.q, {
        ladderId: ladder.id,
        accountId: account.id,
        state: to,
        via,
      });
      await u.audit("ladder_enrollment", account.handle ?? account.id, {
        ladder: ladder.id,
        account: account.id,
        from,
        to,
        ...(via ? { invitation: via } : {}),
      });
      return { from, to };
    });
    if (change) {
      this.states.set(key(ladder.id, account.id), change.to);
      this.bus.emit("MembershipChanged", { ladderId: ladder.id, accountId: account.id, ...change, by: null });
    }
  }

  /** Staff: pending (or revoked) to active. */
  approve(staff: AccountRow, ladderId: string, target: AccountRow, reason: string | undefined) {
    return this.staffChange(staff, ladderId, target, "active", ["pending", "revoked", null], reason);
  }

  /** Staff: active or pending to revoked. */
  revoke(staff: AccountRow, ladderId: string, target: AccountRow, reason: string | undefined) {
    return this.staffChange(staff, ladderId, target, "revoked", ["active", "pending"], reason);
  }

  private async staffChange(
    staff: AccountRow,
    ladderId: string,
    target: AccountRow,
    to: MembershipState,
    allowedFrom: (MembershipState | null)[],
    reason: string | undefined,
  ) {
    const ladder = this.ladders.require(ladderId);
    const result = await this.store.work(async (u) => {
      const now = await this.tables.membership(ladder.id, target.id, u.q);
      const from = now?.state ?? null;
      if (from === to) return { from, changed: false };
      if (!allowedFrom.includes(from)) throw errors.invalidTransition(from, to);
      await this.tables.setMembership(u.q, {
        ladderId: ladder.id,
        accountId: target.id,
        state: to,
        reason: reason ?? null,
      });
      await u.audit(to === "active" ? "ladder_approve" : "ladder_revoke", target.handle ?? target.id, {
        ladder: ladder.id,
        account: target.id,
        by: staff.handle ?? staff.id,
        from,
        to,
        ...(reason ? { reason } : {}),
      });
      return { from, changed: true };
    });
    if (result.changed) this.states.set(key(ladder.id, target.id), to);
    if (result.changed)
      this.bus.emit("MembershipChanged", {
        ladderId: ladder.id,
        accountId: target.id,
        from: result.from,
        to,
        by: staff.id,
      });
    const row = await this.tables.membership(ladder.id, target.id);
    return {
      ladder_id: ladder.id,
      account: target.id,
      handle: target.handle,
      membership: row?.state ?? null,
      reason: row?.reason ?? null,
    };
  }

  async invite(staff: AccountRow, ladderId: string, target: AccountRow | null) {
    const ladder = this.ladders.require(ladderId);
    if (ladder.def.access !== "invitation") throw errors.notInvitationLadder(ladder.id);
    const { invitation, code } = await this.store.work(async (u) => {
      const made = await this.tables.createInvitation(u.q, {
        ladderId: ladder.id,
        accountId: target?.id ?? null,
        createdBy: staff.id,
      });
      await u.audit("ladder_invitation", ladder.id, {
        invitation: made.invitation.id,
        for: target?.id ?? null,
        by: staff.handle ?? staff.id,
      });
      return made;
    });
    return { ...invitationView(invitation), code };
  }

  async uninvite(staff: AccountRow, ladderId: string, invitationId: string) {
    const ladder = this.ladders.require(ladderId);
    const gone = await this.store.work(async (u) => {
      const row = await this.tables.deleteInvitation(u.q, ladder.id, invitationId);
      if (!row) throw errors.noSuchInvitation(invitationId);
      await u.audit("ladder_invitation_delete", ladder.id, {
        invitation: row.id,
        by: staff.handle ?? staff.id,
      });
      return row;
    });
    return { deleted: gone.id };
  }

  /** The admin view of one ladder: definition, members and invitations (no codes). */
  async detail(ladderId: string, base: string) {
    const ladder = this.ladders.require(ladderId);
    const [members, invitations] = await Promise.all([
      this.tables.members(ladder.id),
      this.tables.invitations(ladder.id),
    ]);
    return {
      ...ladder.view(base),
      members: members.map((m) => ({
        account: m.account_id,
        handle: m.handle,
        membership: m.state,
        reason: m.reason,
        invitation: m.via_invitation,
        since: m.created,
        updated: m.updated,
      })),
      invitations: invitations.map(invitationView),
    };
  }
}

function invitationView(i: {
  id: string;
  ladder_id: string;
  account_id: string | null;
  handle: string | null;
  created: string;
  used_by: string | null;
  used_at: string | null;
}) {
  return {
    id: i.id,
    ladder_id: i.ladder_id,
    account: i.account_id,
    handle: i.handle,
    created: i.created,
    used_by: i.used_by,
    used_at: i.used_at,
  };
}
