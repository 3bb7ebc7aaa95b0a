// The events service (SPEC 2 Event, 3.1, 3.9, 4.1, 4.5, 4.6): event definitions from the manifest with the
// changes staff made, their phases, earning achievements from finished matches, reveals, opponent requests,
// and the administration (schedule, submission, image, revoke, reconcile). Each change is one unit of work
// with its audit entry; flags never enter an audit entry, a log line or any answer but a reveal.
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import type { QueueRefusal } from "../connection/rules.ts";
import { errors } from "../errors.ts";
import type { DomainEvents, EventBus } from "../kernel/bus.ts";
import { DEFAULT_LADDER } from "../kernel/names.ts";
import type { ScheduledJob, Scheduler } from "../kernel/scheduler.ts";
import {
  type AchievementDefinition,
  type EventDefinition,
  HOUSE_NAMES,
} from "../ladders/event-definition.ts";
import { type Manifest, nextPhaseChange, type Phase, phaseAt } from "../ladders/manifest.ts";
import type { Membership } from "../ladders/membership.ts";
import type { Ladders } from "../ladders/registry.ts";
import { moveWindow } from "../ladders/schedule.ts";
import type { LadderStore } from "../ladders/store.ts";
import type { Lobby } from "../lobby/lobby.ts";
import type { AccountRow } from "../store/account-store.ts";
import type { BotRow, MatchRecord, Store } from "../store/types.ts";
import { describeCondition, evaluate, type MatchFacts } from "./definition.ts";
import { Flags, testFlag } from "./flags.ts";
import { type AwardRow, type EventOverrides, EventStore, type RequestRow } from "./store.ts";

/** One opponent request per account and event every 30 seconds (SPEC 3.9's cooldown; docs/events.md). */
export const REQUEST_COOLDOWN_MS = 30_000;
/** Event reminders go out a day before a window opens or closes, looked for at least hourly. */
export const REMIND_BEFORE_MS = 24 * 3600_000;
const REMIND_EVERY_MS = 3600_000;

/** One reminder for the mail producers (their remindEvent). */
export interface EventReminder {
  eventId: string;
  name: string;
  what: "opens" | "closes";
  at: string;
  accountIds: readonly string[];
  url: string;
}

interface EventImage {
  webp: Buffer;
  width: number;
  height: number;
  alt: string;
  digest: string;
}

/** An event at run time: the manifest's definition with staff's overrides applied. */
export interface EventRuntime {
  def: EventDefinition;
  overrides: EventOverrides;
  revision: number;
  image: EventImage | null;
  /** The phase last announced (EventPhaseChanged compares against it). */
  phase: Phase;
}

export interface EventsDeps {
  store: Store;
  /** The ladders' tables (every membership, for an event's standings). */
  ladderTables: LadderStore;
  ladders: Ladders;
  membership: Membership;
  lobby: Lobby;
  bus: EventBus;
  scheduler: Scheduler;
  log: Logger;
  flags: Flags;
  /** Whether this server hosts the house bots (--no-house-bots turns them off). */
  houseBots: boolean;
  publicUrl: string;
}

const ms = (t: string | null | undefined) => (t == null ? null : Date.parse(t));

export class Events {
  private readonly byId = new Map<string, EventRuntime>();
  /** Pending opponent requests by bot id (the matchmaker asks on every pass). */
  private readonly pending = new Map<string, RequestRow>();

  /** The events' own tables (overrides, facts, awards, requests, images), on the store's database. */
  readonly tables: EventStore;

  constructor(private readonly d: EventsDeps) {
    this.tables = new EventStore(d.store.db);
  }

  async load(manifest: Manifest, now = Date.now()): Promise<void> {
    const stored = await this.tables.overrides();
    const images = new Map((await this.tables.images()).map((i) => [i.event_id, i]));
    for (const def of manifest.events ?? []) {
      const o = stored.get(def.id);
      const img = images.get(def.id);
      const e: EventRuntime = {
        def,
        overrides: o?.overrides ?? {},
        revision: 1 + (o?.revision ?? 0),
        image: img
          ? { webp: img.webp, width: img.width, height: img.height, alt: img.alt, digest: img.digest }
          : null,
        phase: "upcoming",
      };
      e.phase = phaseAt(this.window(e), now);
      this.byId.set(def.id, e);
    }
    for (const l of this.d.ladders.all())
      l.eventList = this.all()
        .filter((e) => e.def.ladder_id === l.id)
        .map((e) => ({ id: e.def.id, name: e.def.name }));
    this.pending.clear();
    for (const r of await this.tables.pendingRequests()) this.pending.set(r.bot_id, r);
    // Names only, never a value: a misspelt id in the flags is said at start, not found at the first reveal.
    const unmatched = this.d.flags.unmatched(manifest.events ?? []);
    if (unmatched.length > 0)
      this.d.log.warn(
        { unmatched },
        `the event flags name ${unmatched.length === 1 ? "an event or achievement" : "events or achievements"} the manifest does not have: ${unmatched.join(", ")} (a misspelt id? those flags are never revealed)`,
      );
  }

  all(): EventRuntime[] {
    return [...this.byId.values()];
  }

  require(id: string): EventRuntime {
    const e = this.byId.get(id);
    if (!e) throw errors.unknownEvent(id);
    return e;
  }

  /** The window: an event ladder's own, or the event's (staff's change first) on the default ladder. */
  window(e: EventRuntime): { opens_at: string | null; closes_at: string | null } {
    if (e.def.ladder_id !== DEFAULT_LADDER) {
      const l = this.d.ladders.require(e.def.ladder_id).def;
      return { opens_at: l.opens_at, closes_at: l.closes_at };
    }
    return {
      opens_at: e.overrides.opens_at ?? e.def.opens_at,
      closes_at: e.overrides.closes_at ?? e.def.closes_at,
    };
  }

  phaseOf(e: EventRuntime, now = Date.now()): Phase {
    return phaseAt(this.window(e), now);
  }

  /** Opponents the server cannot field now (house bots off on this server or this ladder). */
  unavailableOpponents(e: EventRuntime): string[] {
    const ladder = this.d.ladders.get(e.def.ladder_id);
    return e.def.opponents
      .filter(
        (o) =>
          !this.d.houseBots ||
          !ladder?.def.house_bots ||
          !this.d.lobby.all().some((p) => p.house && p.bot.name === o.name),
      )
      .map((o) => o.name);
  }

  flagsReady(e: EventRuntime): boolean {
    return e.def.flag_mode === "testing" || e.def.achievements.every((a) => this.d.flags.has(e.def.id, a.id));
  }

  /** The Event resource of SPEC 2: public data, never a flag or an account's progress. */
  view(e: EventRuntime, now = Date.now()) {
    const base = this.d.publicUrl;
    const d = e.def;
    const w = this.window(e);
    const ladder = this.d.ladders.require(d.ladder_id);
    const unavailable = this.unavailableOpponents(e);
    const opponentName = (n: string) => d.opponents.find((o) => o.name === n)?.display_name ?? n;
    return {
      id: d.id,
      name: d.name,
      description: d.description,
      ladder_id: d.ladder_id,
      ladder: ladder.view(base, now),
      opens_at: w.opens_at,
      closes_at: w.closes_at,
      timezone: d.timezone,
      enabled: d.enabled,
      phase: phaseAt(w, now),
      ready:
        d.enabled &&
        w.opens_at !== null &&
        w.closes_at !== null &&
        unavailable.length === 0 &&
        this.flagsReady(e),
      achievements: d.achievements.map((a) => ({
        id: a.id,
        name: a.name,
        description: a.description,
        condition: a.condition,
        condition_text: describeCondition(a.condition, opponentName),
      })),
      opponents: d.opponents.map((o) => ({ kind: o.kind, name: o.name, display_name: o.display_name })),
      metadata: d.metadata,
      image: e.image
        ? {
            url: `${base}/events/${encodeURIComponent(d.id)}/image.webp?v=${e.image.digest}`,
            alt: e.image.alt,
            width: e.image.width,
            height: e.image.height,
          }
        : null,
      submission_url:
        e.overrides.submission_url !== undefined ? e.overrides.submission_url : d.submission_url,
      submission_instructions: e.overrides.submission_instructions ?? d.submission_instructions,
      flag_mode: d.flag_mode,
      revision: e.revision,
      unavailable_opponents: unavailable,
      url: `${base}/events/${encodeURIComponent(d.id)}`,
    };
  }

  /** GET /api/events: events of visible ladders, plus one named event whatever its ladder (SPEC 4.1). */
  list(named?: string) {
    if (named !== undefined) this.require(named);
    return this.all()
      .filter((e) => e.def.id === named || this.d.ladders.get(e.def.ladder_id)?.def.visible)
      .map((e) => this.view(e));
  }

  // --- Earning (a MatchFinished listener) ---

  private official(e: EventRuntime): string[] {
    return e.def.opponents.map((o) => o.name);
  }

  private enrolled(e: EventRuntime, accountId: string): boolean {
    return this.d.membership.state(e.def.ladder_id, accountId) === "active";
  }

  /**
   * A committed result: for each event on the match's ladder that was open when the match ended, each seat of
   * an account with an active enrollment keeps the match's facts and earns what its facts now meet.
   */
  async onMatch(ev: DomainEvents["MatchFinished"]): Promise<void> {
    const m = ev.match;
    if (m.mode !== "ranked" || m.voided) return;
    const events = this.all().filter((e) => e.def.ladder_id === m.ladder_id && e.def.enabled);
    if (events.length === 0) return;
    const at = Date.parse(m.ended);
    for (const e of events) {
      if (this.phaseOf(e, at) !== "open") continue;
      for (const seat of m.bots) {
        const accountId = ev.accounts[seat.fighter] ?? null;
        if (seat.house || !accountId || !this.enrolled(e, accountId)) continue;
        const account = await this.d.store.accounts.account(accountId);
        if (!account || account.banned_at) continue;
        await this.earn(e, account.id, factsOf(m, seat.bot_id));
      }
    }
  }

  private async earn(e: EventRuntime, accountId: string, facts: MatchFacts): Promise<void> {
    const store = this.d.store;
    const earned = await store.work(async (u) => {
      if (!(await this.tables.addFacts(u.q, e.def.id, accountId, facts))) return [];
      const all = await this.tables.factsOf(e.def.id, accountId, u.q);
      const have = new Set(
        (await this.tables.awardsOf(e.def.id, accountId, u.q)).map((a) => a.achievement_id),
      );
      const out: { a: AchievementDefinition; earnedAt: string; evidence: string[] }[] = [];
      for (const a of e.def.achievements) {
        if (have.has(a.id)) continue;
        const r = evaluate(a.condition, all, this.official(e));
        if (!r.met || !r.completedAt) continue;
        // A concurrent result of the same account may have stored it first: then it is not announced twice.
        const stored = await this.tables.award(u.q, {
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
        evidence: x.evidence.map((id) => this.matchUrl(id)),
      });
    }
  }

  private matchUrl(id: string): string {
    return `${this.d.publicUrl}/match/${encodeURIComponent(id)}`;
  }

  // --- The bot socket: event queues need an active enrollment (SPEC 3.7) ---

  /** An event ladder (one other than the default that hosts events) takes queues from enrolled accounts only. */
  mayQueue(bot: BotRow, ladderId: string): QueueRefusal | null {
    if (bot.house || ladderId === DEFAULT_LADDER) return null;
    if (!this.all().some((e) => e.def.ladder_id === ladderId && e.def.enabled)) return null;
    if (bot.account_id !== null && this.d.membership.state(ladderId, bot.account_id) === "active")
      return null;
    return {
      code: "enrollment_required",
      message: `the event ladder ${ladderId} needs an active enrollment of the bot's account: POST /api/account/ladders/${ladderId}/enrollment`,
    };
  }

  // --- The account's routes (SPEC 4.5) ---

  /** Cards: progress, earned or revoked times, reason, evidence and whether a flag can be revealed. */
  private async cards(e: EventRuntime, accountId: string) {
    const facts = await this.tables.factsOf(e.def.id, accountId);
    const awards = new Map(
      (await this.tables.awardsOf(e.def.id, accountId)).map((a) => [a.achievement_id, a]),
    );
    const flagsOk = (a: AchievementDefinition) =>
      e.def.flag_mode === "testing" || this.d.flags.has(e.def.id, a.id);
    return e.def.achievements.map((a) => {
      const r = evaluate(a.condition, facts, this.official(e));
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
        evidence: (award?.evidence ?? r.evidence).map((id) => this.matchUrl(id)),
        flag_available: earned && flagsOk(a),
      };
    });
  }

  async achievements(account: AccountRow, eventId: string) {
    const e = this.require(eventId);
    const bots = (await this.d.store.accounts.accountBots(account.id))
      .filter((b) => b.status === "active")
      .map((b) => ({ id: b.id, name: b.name, online: !!this.d.lobby.get(b.id)?.conn }));
    const last = await this.tables.lastRequest(e.def.id, account.id);
    const cooldown = last ? Date.parse(last.created) + REQUEST_COOLDOWN_MS : 0;
    return {
      event: this.view(e),
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
    const e = this.require(eventId);
    const a = e.def.achievements.find((x) => x.id === achievementId);
    if (!a) throw errors.unknownAchievement(achievementId);
    if (!this.enrolled(e, account.id)) throw errors.eventEnrollmentRequired(e.def.ladder_id);
    const award = (await this.tables.awardsOf(e.def.id, account.id)).find((x) => x.achievement_id === a.id);
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

  async requestOpponent(
    account: AccountRow,
    eventId: string,
    botRef: string,
    opponent: string,
    now = Date.now(),
  ) {
    const e = this.require(eventId);
    const phase = this.phaseOf(e, now);
    if (!e.def.enabled || phase !== "open")
      throw errors.eventClosed(e.def.id, e.def.enabled ? phase : "disabled");
    if (!this.enrolled(e, account.id)) throw errors.eventEnrollmentRequired(e.def.ladder_id);
    const names = this.official(e);
    if (!(HOUSE_NAMES as readonly string[]).includes(opponent) || !names.includes(opponent))
      throw errors.unknownOpponent(names);
    if (this.unavailableOpponents(e).includes(opponent))
      throw errors.opponentsUnavailable(
        this.d.houseBots
          ? `${opponent} does not play on the ladder ${e.def.ladder_id}`
          : "this server hosts no house bots",
      );
    const bot = (await this.d.store.accounts.accountBots(account.id)).find(
      (b) => (b.id === botRef || b.name === botRef) && b.status === "active",
    );
    if (!bot) throw errors.noSuchBot(botRef);
    if (!this.d.lobby.get(bot.id)?.conn) throw errors.botOffline(bot.name);
    const created = await this.d.store.work(async (u) => {
      const last = await this.tables.lastRequest(e.def.id, account.id, u.q);
      if (last?.state === "pending") throw errors.requestExists();
      if (last && now - Date.parse(last.created) < REQUEST_COOLDOWN_MS)
        throw errors.requestCooldown(
          Math.ceil((Date.parse(last.created) + REQUEST_COOLDOWN_MS - now) / 1000),
        );
      const r = await this.tables.createRequest(u.q, {
        eventId: e.def.id,
        accountId: account.id,
        botId: bot.id,
        opponent,
      });
      await u.audit("event_opponent_request", account.handle ?? account.id, {
        event: e.def.id,
        bot: bot.name,
        opponent,
      });
      return r;
    });
    this.pending.set(bot.id, created);
    this.d.ladders.get(e.def.ladder_id)?.matchmaker.pass();
    return this.achievements(account, eventId);
  }

  async cancelRequest(account: AccountRow, eventId: string) {
    const e = this.require(eventId);
    const last = await this.tables.lastRequest(e.def.id, account.id);
    if (last?.state === "pending") await this.endRequest(last, "cancelled", account.handle ?? account.id);
    return this.achievements(account, eventId);
  }

  private async endRequest(
    r: RequestRow,
    state: "served" | "cancelled" | "expired",
    by: string,
  ): Promise<void> {
    if (this.pending.get(r.bot_id)?.id === r.id) this.pending.delete(r.bot_id);
    await this.d.store.work(async (u) => {
      if (await this.tables.endRequest(u.q, r.id, state))
        await u.audit(`event_opponent_${state}`, by, {
          event: r.event_id,
          opponent: r.opponent,
          request: r.id,
        });
    });
  }

  /** The matchmaker's question: whom did this bot ask to meet on this ladder (an open event's request)? */
  requested(botId: string, ladderId: string): string | null {
    const r = this.pending.get(botId);
    if (!r) return null;
    const e = this.byId.get(r.event_id);
    if (!e || e.def.ladder_id !== ladderId || this.phaseOf(e) !== "open") return null;
    return r.opponent;
  }

  /** The matchmaker started the requested match: the request is served. */
  served(botId: string): void {
    const r = this.pending.get(botId);
    if (!r) return;
    this.pending.delete(botId);
    void this.endRequest(r, "served", "matchmaker").catch((err) =>
      this.d.log.error({ err, request: r.id }, "could not mark an opponent request served"),
    );
  }

  // --- Phases (the scheduler) ---

  /**
   * Reminders of an event's own window, a day before it opens and a day before it closes, through `remind` (the
   * mail producers' remindEvent, which keeps each to once per account by its dedupe key). Only events on the
   * default ladder have a window of their own; an event ladder's members are reminded by the ladder's job. The
   * audience: the ladder's members (not revoked) and every account that has played for the event.
   */
  reminderJob(remind: (r: EventReminder) => Promise<number>): ScheduledJob {
    const own = () => this.all().filter((e) => e.def.ladder_id === DEFAULT_LADDER && e.def.enabled);
    const times = () =>
      own().flatMap((e) => {
        const w = this.window(e);
        return [w.opens_at, w.closes_at].flatMap((t) => (t ? [Date.parse(t) - REMIND_BEFORE_MS] : []));
      });
    return {
      name: "event reminders",
      nextAt: (now) => Math.min(now + REMIND_EVERY_MS, ...times().filter((t) => t > now)),
      run: async (now) => {
        for (const e of own()) {
          const w = this.window(e);
          for (const [what, at] of [
            ["opens", w.opens_at],
            ["closes", w.closes_at],
          ] as const) {
            if (!at) continue;
            const t = Date.parse(at);
            if (now < t - REMIND_BEFORE_MS || now >= t) continue;
            const members = (await this.d.ladderTables.allMemberships())
              .filter((m) => m.ladder_id === e.def.ladder_id && m.state !== "revoked")
              .map((m) => m.account_id);
            const played = await this.tables.participants(e.def.id);
            await remind({
              eventId: e.def.id,
              name: e.def.name,
              what,
              at,
              accountIds: [...new Set([...members, ...played])],
              url: `${this.d.publicUrl}/events/${encodeURIComponent(e.def.id)}`,
            });
          }
        }
      },
    };
  }

  phaseJob(): ScheduledJob {
    return {
      name: "event phases",
      nextAt: (now) => {
        const next = Math.min(...this.all().map((e) => nextPhaseChange(this.window(e), now) ?? Infinity));
        return Number.isFinite(next) ? next : null;
      },
      run: async (now) => {
        for (const e of this.all()) {
          const to = this.phaseOf(e, now);
          if (to === e.phase) continue;
          const from = e.phase;
          e.phase = to;
          this.d.log.info({ event: e.def.id, from, to }, "event phase changed");
          // Closing ends the pending opponent requests: nothing is served after closing.
          if (to === "closed")
            for (const r of [...this.pending.values()].filter((x) => x.event_id === e.def.id))
              await this.endRequest(r, "expired", "closing");
          void this.d.bus.emit("EventPhaseChanged", {
            eventId: e.def.id,
            ladderId: e.def.ladder_id,
            from,
            to,
            at: new Date(now).toISOString(),
          });
        }
      },
    };
  }

  // --- Administration (SPEC 4.6) ---

  async adminList(imageUploadAvailable: boolean) {
    const out = [];
    for (const e of this.all()) {
      const awards = await this.tables.awards(e.def.id);
      out.push({
        ...this.view(e),
        definition: e.def,
        image_upload_available: imageUploadAvailable,
        flags_configured: e.def.achievements.every((a) => this.d.flags.has(e.def.id, a.id)),
        earning_unavailable: this.earningUnavailable(e),
        facts: await this.tables.factCount(e.def.id),
        counts: e.def.achievements.map((a) => ({
          id: a.id,
          valid: awards.filter((x) => x.achievement_id === a.id && x.revoked_at === null).length,
          revoked: awards.filter((x) => x.achievement_id === a.id && x.revoked_at !== null).length,
        })),
      });
    }
    return out;
  }

  /** Why this host cannot award the event's achievements now, or null. */
  private earningUnavailable(e: EventRuntime): string | null {
    if (!e.def.enabled) return "the event is disabled in the manifest";
    if (!this.d.houseBots)
      return "this server runs without house bots (--no-house-bots): the official opponents never play";
    if (!this.d.ladders.get(e.def.ladder_id)?.def.house_bots)
      return `the ladder ${e.def.ladder_id} has house_bots off: the official opponents never play there`;
    return null;
  }

  async schedule(staff: AccountRow, eventId: string, opensAt: string, closesAt: string, now = Date.now()) {
    const e = this.require(eventId);
    const by = staff.handle ?? staff.id;
    if (e.def.ladder_id !== DEFAULT_LADDER) {
      // The event ladder moves, and with it every event on it (they share its window).
      await moveWindow(
        {
          store: this.d.store,
          ladderTables: this.d.ladderTables,
          ladders: this.d.ladders,
          scheduler: this.d.scheduler,
          bus: this.d.bus,
          publicUrl: this.d.publicUrl,
        },
        staff,
        e.def.ladder_id,
        opensAt,
        closesAt,
        now,
      );
      // Its LadderWindowMoved has bumped every event on the ladder (windowMoved, below).
    } else {
      const cur = this.window(e);
      const [curOpen, curClose, newOpen, newClose] = [cur.opens_at, cur.closes_at, opensAt, closesAt].map(ms);
      if (curClose !== null && now >= curClose) throw errors.windowClosed(e.def.id);
      if (newOpen !== curOpen) {
        if (curOpen === null || now >= curOpen) throw errors.windowStarted(e.def.id);
        if (newOpen !== null && newOpen <= now) throw errors.windowPast("opens_at");
      }
      if (newClose !== curClose && newClose !== null && newClose <= now) throw errors.windowPast("closes_at");
      if (newOpen !== null && newClose !== null && newClose <= newOpen)
        throw errors.invalidWindow("closes_at must follow opens_at");
      const o = new Date(newOpen!).toISOString();
      const c = new Date(newClose!).toISOString();
      await this.bump(e, { opens_at: o, closes_at: c }, by, "event_schedule", {
        from: cur,
        to: { opens_at: o, closes_at: c },
      });
      this.d.scheduler.reschedule();
    }
    return this.view(e, now);
  }

  /**
   * A ladder's window moved (LadderWindowMoved, by either schedule route): every event on that ladder shares the
   * window, so each counts a revision, as an edit of its own window would.
   */
  async windowMoved(m: DomainEvents["LadderWindowMoved"]): Promise<void> {
    for (const e of this.all().filter((x) => x.def.ladder_id === m.ladderId))
      await this.bump(e, {}, m.by, "event_schedule", {
        ladder: m.ladderId,
        opens_at: m.opens_at,
        closes_at: m.closes_at,
      });
  }

  /** Stores an override and counts a revision, with its audit entry, as one unit of work. */
  private async bump(
    e: EventRuntime,
    change: EventOverrides,
    by: string,
    kind: string,
    detail: Record<string, unknown>,
  ): Promise<void> {
    const revision = await this.d.store.work(async (u) => {
      const r = await this.tables.override(u.q, e.def.id, change, by);
      await u.audit(kind, e.def.id, { by, ...detail });
      return r;
    });
    e.overrides = { ...e.overrides, ...change };
    e.revision = 1 + revision;
  }

  async submission(staff: AccountRow, eventId: string, url: string | null, instructions: string) {
    const e = this.require(eventId);
    await this.bump(
      e,
      { submission_url: url, submission_instructions: instructions },
      staff.handle ?? staff.id,
      "event_submission",
      { submission_url: url, instructions_chars: instructions.length },
    );
    return this.view(e);
  }

  async setImage(
    staff: AccountRow,
    eventId: string,
    img: { webp: Buffer; width: number; height: number; alt: string | null },
  ) {
    const e = this.require(eventId);
    const alt = img.alt ?? e.def.name;
    const digest = createHash("sha256").update(img.webp).digest("hex").slice(0, 16);
    const by = staff.handle ?? staff.id;
    const revision = await this.d.store.work(async (u) => {
      await this.tables.setImage(u.q, {
        event_id: e.def.id,
        webp: img.webp,
        width: img.width,
        height: img.height,
        alt,
        digest,
      });
      const r = await this.tables.override(u.q, e.def.id, {}, by);
      await u.audit("event_image", e.def.id, {
        by,
        width: img.width,
        height: img.height,
        bytes: img.webp.length,
      });
      return r;
    });
    e.image = { webp: img.webp, width: img.width, height: img.height, alt, digest };
    e.revision = 1 + revision;
    return this.view(e);
  }

  async deleteImage(staff: AccountRow, eventId: string) {
    const e = this.require(eventId);
    const by = staff.handle ?? staff.id;
    const revision = await this.d.store.work(async (u) => {
      const had = await this.tables.deleteImage(u.q, e.def.id);
      if (!had) return null;
      const r = await this.tables.override(u.q, e.def.id, {}, by);
      await u.audit("event_image_delete", e.def.id, { by });
      return r;
    });
    e.image = null;
    if (revision !== null) e.revision = 1 + revision;
    return this.view(e);
  }

  /** The image bytes for GET /events/<id>/image.webp, or null. */
  image(eventId: string): EventImage | null {
    return this.byId.get(eventId)?.image ?? null;
  }

  async accountDetail(eventId: string, account: AccountRow) {
    const e = this.require(eventId);
    const facts = await this.tables.factsOf(e.def.id, account.id);
    const last = await this.tables.lastRequest(e.def.id, account.id);
    return {
      event_id: e.def.id,
      account: { id: account.id, handle: account.handle },
      enrollment: this.d.membership.state(e.def.ladder_id, account.id),
      achievements: await this.cards(e, account.id),
      facts: facts.map((f) => ({ ...f, url: this.matchUrl(f.match_id) })),
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
    const e = this.require(eventId);
    if (!e.def.achievements.some((a) => a.id === achievementId))
      throw errors.unknownAchievement(achievementId);
    const by = staff.handle ?? staff.id;
    const row = await this.d.store.work(async (u) => {
      const r = await this.tables.revoke(u.q, e.def.id, account.id, achievementId, reason, by);
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
    const e = this.require(eventId);
    const store = this.d.store;
    return store.work(async (u) => {
      const facts = await this.tables.allFacts(e.def.id, u.q);
      const existing = new Set(
        (await this.tables.awards(e.def.id, u.q)).map((a) => `${a.account_id}\n${a.achievement_id}`),
      );
      const missing: { account_id: string; achievement_id: string; earned_at: string; evidence: string[] }[] =
        [];
      for (const [accountId, list] of facts)
        for (const a of e.def.achievements) {
          if (existing.has(`${accountId}\n${a.id}`)) continue;
          const r = evaluate(a.condition, list, this.official(e));
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
            await this.tables.award(u.q, {
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
        missing_awards: missing.map((m) => ({ ...m, evidence: m.evidence.map((id) => this.matchUrl(id)) })),
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

export { Flags };
