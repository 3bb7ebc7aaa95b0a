// Staff's changes to an event (SPEC 4.6): its window (an event ladder's window moves the ladder), its submission
// link, its image, and the admin list with the counts of awards. Each change stores an override and counts a
// revision, with its audit entry, as one unit of work.
import { createHash } from "node:crypto";
import type { AccountRow } from "../accounts/account-store.ts";
import { errors } from "../errors.ts";
import type { DomainEvents } from "../kernel/bus.ts";
import { ownsWindow } from "../ladders/event-definition.ts";
import { moveWindow } from "../ladders/schedule.ts";
import type { EventCatalog, EventRuntime, EventsDeps } from "./catalog.ts";
import type { EventOverrides } from "./store.ts";

const ms = (t: string | null | undefined) => (t == null ? null : Date.parse(t));

export class EventStaff {
  constructor(
    private readonly c: EventCatalog,
    private readonly d: EventsDeps,
  ) {}

  async adminList(imageUploadAvailable: boolean) {
    const out = [];
    for (const e of this.c.all()) {
      const awards = await this.c.tables.awards(e.def.id);
      out.push({
        ...this.c.view(e),
        definition: e.def,
        image_upload_available: imageUploadAvailable,
        flags_configured: e.def.achievements.every((a) => this.d.flags.has(e.def.id, a.id)),
        earning_unavailable: this.earningUnavailable(e),
        facts: await this.c.tables.factCount(e.def.id),
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
    const e = this.c.require(eventId);
    const by = staff.handle ?? staff.id;
    if (!ownsWindow(e.def)) {
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
      const cur = this.c.window(e);
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
    return this.c.view(e, now);
  }

  /**
   * A ladder's window moved (LadderWindowMoved, by either schedule route): every event on that ladder shares the
   * window, so each counts a revision, as an edit of its own window would.
   */
  async windowMoved(m: DomainEvents["LadderWindowMoved"]): Promise<void> {
    for (const e of this.c.all().filter((x) => x.def.ladder_id === m.ladderId))
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
      const r = await this.c.tables.override(u.q, e.def.id, change, by);
      await u.audit(kind, e.def.id, { by, ...detail });
      return r;
    });
    e.overrides = { ...e.overrides, ...change };
    e.revision = 1 + revision;
    this.c.edited();
  }

  async submission(staff: AccountRow, eventId: string, url: string | null, instructions: string) {
    const e = this.c.require(eventId);
    await this.bump(
      e,
      { submission_url: url, submission_instructions: instructions },
      staff.handle ?? staff.id,
      "event_submission",
      { submission_url: url, instructions_chars: instructions.length },
    );
    return this.c.view(e);
  }

  async setImage(
    staff: AccountRow,
    eventId: string,
    img: { webp: Buffer; width: number; height: number; alt: string | null },
  ) {
    const e = this.c.require(eventId);
    const alt = img.alt ?? e.def.name;
    const digest = createHash("sha256").update(img.webp).digest("hex").slice(0, 16);
    const by = staff.handle ?? staff.id;
    const revision = await this.d.store.work(async (u) => {
      await this.c.tables.setImage(u.q, {
        event_id: e.def.id,
        webp: img.webp,
        width: img.width,
        height: img.height,
        alt,
        digest,
      });
      const r = await this.c.tables.override(u.q, e.def.id, {}, by);
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
    this.c.edited();
    return this.c.view(e);
  }

  async deleteImage(staff: AccountRow, eventId: string) {
    const e = this.c.require(eventId);
    const by = staff.handle ?? staff.id;
    const revision = await this.d.store.work(async (u) => {
      const had = await this.c.tables.deleteImage(u.q, e.def.id);
      if (!had) return null;
      const r = await this.c.tables.override(u.q, e.def.id, {}, by);
      await u.audit("event_image_delete", e.def.id, { by });
      return r;
    });
    e.image = null;
    if (revision !== null) {
      e.revision = 1 + revision;
      this.c.edited();
    }
    return this.c.view(e);
  }
}
