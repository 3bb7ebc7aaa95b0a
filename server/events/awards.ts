// Achievements (SPEC 3.9, 4.5, 4.6, 6): earned from committed results while an event is open (a MatchFinished
// listener), shown to the account with its progress, revealed, and staff's revocations and reconciliation. Each
// change is one unit of work with its audit entry; a flag never enters an audit entry, a log line or any answer
// but a reveal.

import type { AccountRow } from "../accounts/account-store.ts";
import { errors } from "../errors.ts";
import type { DomainEvents } from "../kernel/bus.ts";
import type { AchievementDefinition } from "../ladders/event-definition.ts";
import type { MatchRecord } from "../store/types.ts";
import { type EventCatalog, type EventRuntime, type EventsDeps, officialNames } from "./catalog.ts";
import { evaluate, type MatchFacts } from "./definition.ts";
import { testFlag } from "./flags.ts";
import { REQUEST_COOLDOWN_MS } from "./requests.ts";
import type { AwardRow } from "./store.ts";

export class EventAwards {
  constructor(
    private readonly c: EventCatalog,
    private readonly d: EventsDeps,
  ) {}

  /**
   * A committed result: for each event on the match's ladder that was open when the match ended, each seat of
   * an account with an active enrollment keeps the match's facts and earns what its facts now meet.
   */
  async onMatch(ev: DomainEvents["MatchFinished"]): Promise<void> {
    const m = ev.match;
    if (m.mode !== "ranked" || m.voided) return;
    const events = this.c.all().filter((e) => e.def.ladder_id === m.ladder_id && e.def.enabled);
    if (events.length === 0) return;
    const at = Date.parse(m.ended);
    for (const e of events) {
      if (this.c.phaseOf(e, at) !== "open") continue;
      for (const seat of m.bots) {
        const accountId = ev.accounts[seat.fighter] ?? null;
        if (seat.house || !accountId || !this.c.enrolled(e, accountId)) continue;
        const account = await this.d.accountStore.account(accountId);
        if (!account || account.banned_at) continue;
        await this.earn(e, account.id, factsOf(m, seat.bot_id));
      }
    }
  }

  private async earn(e: EventRuntime, accountId: string, facts: MatchFacts): Promise<void> {
    const store = this.d.store;
    const earned = await store.work(async (u) => {
      if (!(await this.c.tables.addFacts(u.q, e.def.id, accountId, facts))) return [];
      const all = await this.c.tables.factsOf(e.def.id, accountId, u.q);
      const have = new Set(
        (await this.c.tables.awardsOf(e.def.id, accountId, u.q)).map((a) => a.achievement_id),
      );
      const out: { a: AchievementDefinition; earnedAt: string; evidence: string[] }[] = [];
      for (const a of e.def.achievements) {
        if (have.has(a.id)) continue;
        const r = evaluate(a.condition, all, officialNames(e));
        if (!r.met || !r.completedAt) continue;
        // A concurrent result of the same account may have stored it first: then it is not announced twice.
        const stored = await this.c.tables.award(u.q, {
          eventId: e.def.id,
          accountId,
          achievementId: a.id,
          earnedAt: r.completedAt,
          evidence: r.evidence,
        });
        if (!stored) continue;
        await u.audit("event_award", accountId, { event: e.def.id, achievement: a.id, evidence: r.evidence });
        out.push({ a, earnedAt: r.completedAt, evidence: r.evidence });
      }
      return out;
    });
    for (const x of earned) {
      this.d.log.info({ event: e.def.id, achievement: x.a.id, account: accountId }, "achievement earned");
      void this.d.bus.emit("AchievementEarned", {
        eventId: e.def.id,
        eventName: e.def.name,
        achievementId: x.a.id,
        achievementName: x.a.name,
        accountId,
        earnedAt: x.earnedAt,
        evidence: x.evidence.map((id) => this.c.matchUrl(id)),
      });
    }
  }

  /** Cards: progress, earned or revoked times, reason, evidence and whether a flag can be revealed. */
  private async cards(e: EventRuntime, accountId: string) {
    const facts = await this.c.tables.factsOf(e.def.id, accountId);
    const awards = new Map(
      (await this.c.tables.awardsOf(e.def.id, accountId)).map((a) => [a.achievement_id, a]),
    );
    const flagsOk = (a: AchievementDefinition) =>
      e.def.flag_mode === "testing" || this.d.flags.has(e.def.id, a.id);
    return e.def.achievements.map((a) => {
      const r = evaluate(a.condition, facts, officialNames(e));
      const award = awards.get(a.id) ?? null;
      const earned = award !== null && award.revoked_at === null;
      return {
        id: a.id,
        name: a.name,
        description: a.description,
        progress: earned ? { current: r.progress.target, target: r.progress.target } : r.progress,
        earned: earned,
        earned_at: award?.earned_at ?? null,
        revoked_at: award?.revoked_at ?? null,
        revoked_reason: award?.revoked_reason ?? null,
        evidence: (award?.evidence ?? r.evidence).map((id) => this.c.matchUrl(id)),
        flag_available: earned && flagsOk(a),
      };
    });
  }

  async achievements(account: AccountRow, eventId: string) {
    const e = this.c.require(eventId);
    const bots = (await this.d.accountStore.accountBots(account.id))
      .filter((b) => b.status === "active")
      .map((b) => ({ id: b.id, name: b.name, online: !!this.d.lobby.get(b.id)?.conn }));
    const last = await this.c.tables.lastRequest(e.def.id, account.id);
    const cooldown = last ? Date.parse(last.created) + REQUEST_COOLDOWN_MS : 0;
    return {
      event: this.c.view(e),
      enrollment: this.d.membership.state(e.def.ladder_id, account.id),
      bots,
      request:
        last && last.state === "pending"
          ? {
              id: last.id,
              bot_id: last.bot_id,
              bot_name: bots.find((b) => b.id === last.bot_id)?.name ?? null,
              opponent: last.opponent,
              state: last.state,
              created: last.created,
            }
          : null,
      request_cooldown_until: cooldown > Date.now() ? new Date(cooldown).toISOString() : null,
      achievements: await this.cards(e, account.id),
    };
  }

  async reveal(account: AccountRow, eventId: string, achievementId: string) {
    const e = this.c.require(eventId);
    const a = e.def.achievements.find((x) => x.id === achievementId);
    if (!a) throw errors.unknownAchievement(achievementId);
    if (!this.c.enrolled(e, account.id)) throw errors.eventEnrollmentRequired(e.def.ladder_id);
    const award = (await this.c.tables.awardsOf(e.def.id, account.id)).find((x) => x.achievement_id === a.id);
    if (!award) throw errors.achievementLocked();
    if (award.revoked_at) throw errors.achievementRevoked();
    const flag =
      e.def.flag_mode === "testing"
        ? testFlag(e.def.id, a.id, account.id)
        : this.d.flags.official(e.def.id, a.id);
    if (flag === null) throw errors.flagsUnavailable();
    // Audited without the value: who saw which achievement's flag, and when.
    await this.d.store.work((u) =>
      u.audit("event_reveal", account.handle ?? account.id, {
        event: e.def.id,
        achievement: a.id,
        account: account.id,
        mode: e.def.flag_mode,
      }),
    );
    return { event_id: e.def.id, achievement_id: a.id, flag, earned_at: award.earned_at };
  }

  async accountDetail(eventId: string, account: AccountRow) {
    const e = this.c.require(eventId);
    const facts = await this.c.tables.factsOf(e.def.id, account.id);
    const last = await this.c.tables.lastRequest(e.def.id, account.id);
    return {
      event_id: e.def.id,
      account: { id: account.id, handle: account.handle },
      enrollment: this.d.membership.state(e.def.ladder_id, account.id),
      achievements: await this.cards(e, account.id),
      facts: facts.map((f) => ({ ...f, url: this.c.matchUrl(f.match_id) })),
      request: last,
    };
  }

  async revoke(
    staff: AccountRow,
    eventId: string,
    account: AccountRow,
    achievementId: string,
    reason: string,
  ) {
    const e = this.c.require(eventId);
    if (!e.def.achievements.some((a) => a.id === achievementId))
      throw errors.unknownAchievement(achievementId);
    const by = staff.handle ?? staff.id;
    const row = await this.d.store.work(async (u) => {
      const r = await this.c.tables.revoke(u.q, e.def.id, account.id, achievementId, reason, by);
      if (!r) throw errors.noSuchAward();
      await u.audit("event_revoke", account.handle ?? account.id, {
        by,
        event: e.def.id,
        achievement: achievementId,
        account: account.id,
        reason,
      });
      return r;
    });
    return { revoked: awardView(row) };
  }

  /**
   * Recomputes awards from the retained facts: lists the awards the facts earn that are missing (a revoked award
   * is not missing: revocations are preserved); `apply` stores them, audited, as one unit of work.
   */
  async reconcile(staff: AccountRow, eventId: string, apply: boolean) {
    const e = this.c.require(eventId);
    const store = this.d.store;
    return store.work(async (u) => {
      const facts = await this.c.tables.allFacts(e.def.id, u.q);
      const existing = new Set(
        (await this.c.tables.awards(e.def.id, u.q)).map((a) => `${a.account_id}\n${a.achievement_id}`),
      );
      const missing: { account_id: string; achievement_id: string; earned_at: string; evidence: string[] }[] =
        [];
      for (const [accountId, list] of facts)
        for (const a of e.def.achievements) {
          if (existing.has(`${accountId}\n${a.id}`)) continue;
          const r = evaluate(a.condition, list, officialNames(e));
          if (r.met && r.completedAt)
            missing.push({
              account_id: accountId,
              achievement_id: a.id,
              earned_at: r.completedAt,
              evidence: r.evidence,
            });
        }
      let applied = 0;
      if (apply) {
        for (const m of missing)
          if (
            await this.c.tables.award(u.q, {
              eventId: e.def.id,
              accountId: m.account_id,
              achievementId: m.achievement_id,
              earnedAt: m.earned_at,
              evidence: m.evidence,
            })
          )
            applied++;
        await u.audit("event_reconcile", e.def.id, {
          by: staff.handle ?? staff.id,
          restored: missing.map((m) => ({ account: m.account_id, achievement: m.achievement_id })),
        });
      }
      return {
        facts: [...facts].map(([accountId, list]) => ({ account_id: accountId, matches: list.length })),
        missing_awards: missing.map((m) => ({ ...m, evidence: m.evidence.map((id) => this.c.matchUrl(id)) })),
        applied,
      };
    });
  }
}

function awardView(a: AwardRow) {
  return {
    event_id: a.event_id,
    account_id: a.account_id,
    achievement_id: a.achievement_id,
    earned_at: a.earned_at,
    revoked_at: a.revoked_at,
    revoked_reason: a.revoked_reason,
    revoked_by: a.revoked_by,
  };
}

/** One seat's facts of a finished match (kept so that conditions can be evaluated again). */
export function factsOf(m: MatchRecord, botId: string): MatchFacts {
  const seat = m.bots.find((b) => b.bot_id === botId)!;
  const other = m.bots.find((b) => b !== seat)!;
  const f = m.stats?.fighters[seat.fighter];
  const stats: MatchFacts["stats"] = { ticks: m.final_tick };
  if (f) {
    stats.hp_left = f.hp;
    stats.damage_dealt = f.damage_dealt;
    stats.damage_taken = f.damage_taken;
    stats.ricochet_hits = f.ricochets.hits;
    stats.ricochet_damage = f.ricochets.damage;
    stats.dashes = f.dashes;
    stats.healed = f.healed;
    stats.pickups = Object.values(f.pickups).reduce((s, n) => s + n, 0);
    stats.wall_slams = f.wall_slams;
    stats.knocked_back = f.knocked_back;
    stats.stunned = f.stunned;
  }
  return {
    match_id: m.id,
    ended: new Date(m.ended).toISOString(),
    bot_id: seat.bot_id,
    bot_name: seat.name,
    version: seat.version,
    opponent: other.name,
    opponent_house: other.house,
    map: m.map,
    result: m.winner_bot_id === null ? "draw" : m.winner_bot_id === seat.bot_id ? "win" : "loss",
    reason: m.reason,
    stats,
  };
}
