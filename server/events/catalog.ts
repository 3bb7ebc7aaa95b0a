// The events at run time (SPEC 2 Event, 3.1, 4.1): the manifest's definitions with the changes staff made, their
// windows and phases, their public view, the queue rule of an event ladder and the reminders of an event's own
// window. What happens to an event is in the files beside this one: earning and revoking achievements
// (awards.ts), opponent requests (requests.ts), staff's changes (staff.ts); service.ts puts them together.
import type { Logger } from "pino";
import type { AccountStore } from "../accounts/account-store.ts";
import type { QueueRefusal } from "../connection/rules.ts";
import { errors } from "../errors.ts";
import type { EventBus } from "../kernel/bus.ts";
import type { ScheduledJob, Scheduler } from "../kernel/scheduler.ts";
import { type EventDefinition, ownsWindow } from "../ladders/event-definition.ts";
import { type Manifest, type Phase, phaseAt } from "../ladders/manifest.ts";
import type { Membership } from "../ladders/membership.ts";
import type { Ladders } from "../ladders/registry.ts";
import type { LadderStore } from "../ladders/store.ts";
import type { Lobby } from "../lobby/lobby.ts";
import type { BotRow, Store } from "../store/types.ts";
import { describeCondition } from "./definition.ts";
import type { Flags } from "./flags.ts";
import { type EventOverrides, EventStore } from "./store.ts";

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
  accountStore: AccountStore;
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

/** The events' names of their official opponents (the house bots an achievement counts against). */
export function officialNames(e: EventRuntime): string[] {
  return e.def.opponents.map((o) => o.name);
}

export class EventCatalog {
  protected readonly byId = new Map<string, EventRuntime>();

  /** The events' own tables (overrides, facts, awards, requests, images), on the store's database. */
  readonly tables: EventStore;

  constructor(protected readonly d: EventsDeps) {
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
    // Names only, never a value: a misspelt id in the flags is said at start, not found at the first reveal.
    const unmatched = this.d.flags.unmatched(manifest.events ?? []);
    if (unmatched.length > 0)
      this.d.log.warn(
        { unmatched },
        `the event flags name ${unmatched.length === 1 ? "an event or achievement" : "events or achievements"} the manifest does not have: ${unmatched.join(", ")} (a misspelt id? those flags are never revealed)`,
      );
  }

  private readonly editListeners: (() => void)[] = [];

  /** Cluster mode: told after each staff edit this node committed (the other nodes then `refresh`). */
  onEdited(listener: () => void): void {
    this.editListeners.push(listener);
  }

  /** A staff edit of an event committed here (events/staff.ts). */
  edited(): void {
    for (const l of this.editListeners) l();
  }

  /**
   * Reads staff's overrides and images again (another node of a cluster edited an event). Each event keeps its
   * announced phase: the phase job announces a change the new window makes, as on the node that made it.
   */
  async refresh(): Promise<void> {
    const stored = await this.tables.overrides();
    const images = new Map((await this.tables.images()).map((i) => [i.event_id, i]));
    for (const e of this.byId.values()) {
      const o = stored.get(e.def.id);
      const img = images.get(e.def.id);
      e.overrides = o?.overrides ?? {};
      e.revision = 1 + (o?.revision ?? 0);
      e.image = img
        ? { webp: img.webp, width: img.width, height: img.height, alt: img.alt, digest: img.digest }
        : null;
    }
    // An event's own window may have moved: its phase job looks again.
    this.d.scheduler.reschedule();
  }

  all(): EventRuntime[] {
    return [...this.byId.values()];
  }

  /** The event by id, or undefined. */
  find(id: string): EventRuntime | undefined {
    return this.byId.get(id);
  }

  require(id: string): EventRuntime {
    const e = this.byId.get(id);
    if (!e) throw errors.unknownEvent(id);
    return e;
  }

  /** The window: the event's own (staff's change first), or its event ladder's, which it shares. */
  window(e: EventRuntime): { opens_at: string | null; closes_at: string | null } {
    if (!ownsWindow(e.def)) {
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

  /** Whether the account's enrollment on the event's ladder is active (earning, reveals, requests need it). */
  enrolled(e: EventRuntime, accountId: string): boolean {
    return this.d.membership.state(e.def.ladder_id, accountId) === "active";
  }

  matchUrl(id: string): string {
    return `${this.d.publicUrl}/match/${encodeURIComponent(id)}`;
  }

  // --- The bot socket: event queues need an active enrollment (SPEC 3.7) ---

  /** An event ladder (one whose events share its window) takes queues from enrolled accounts only. */
  mayQueue(bot: BotRow, ladderId: string): QueueRefusal | null {
    if (bot.house) return null;
    // An event ladder is one whose events share its window; events with windows of their own sit on an
    // always-open ladder (the default), which takes every queue.
    if (!this.all().some((e) => e.def.ladder_id === ladderId && e.def.enabled && !ownsWindow(e.def)))
      return null;
    if (bot.account_id !== null && this.d.membership.state(ladderId, bot.account_id) === "active")
      return null;
    return {
      code: "enrollment_required",
      message: `the event ladder ${ladderId} needs an active enrollment of the bot's account: POST /api/account/ladders/${ladderId}/enrollment`,
    };
  }

  /**
   * Reminders of an event's own window, a day before it opens and a day before it closes, through `remind` (the
   * mail producers' remindEvent, which keeps each to once per account by its dedupe key). Only events on the
   * default ladder have a window of their own; an event ladder's members are reminded by the ladder's job. The
   * audience: the ladder's members (not revoked) and every account that has played for the event.
   */
  reminderJob(remind: (r: EventReminder) => Promise<number>): ScheduledJob {
    const own = () => this.all().filter((e) => ownsWindow(e.def) && e.def.enabled);
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

  /** The image bytes for GET /events/<id>/image.webp, or null. */
  image(eventId: string): EventImage | null {
    return this.byId.get(eventId)?.image ?? null;
  }
}
