// Staff's settlements (issue 34, part 4): scheduling one for a ladder (POST /api/admin/ladders/<id>/settlement),
// changing it or cancelling it before it begins. The schedule is checked against the ladder's window and, when
// it ends an event's window, the event's (`plan`). Each change is one unit of work with its audit entry, made
// after the clock's running pass (clock.ts) so a pass never begins a settlement while staff change it.
import { errors } from "../errors.ts";
import { phaseAt } from "../ladders/manifest.ts";
import type { SettlementClock } from "./clock.ts";
import type { SettlementDeps, SettlementLedger, SettlementRequest } from "./ledger.ts";
import { newSettlementId, type SettlementRow } from "./store.ts";

type Staff = { id: string; handle: string | null };

/** What the audit log records of a settlement's schedule, when it is made and when it is changed. */
function scheduleAudit(by: Staff, row: SettlementRow) {
  const { id, event_id: event, top_k, game_budget, starts_at, ends_at } = row;
  return { by: by.handle ?? by.id, id, event, top_k, game_budget, starts_at, ends_at };
}

export class SettlementStaff {
  constructor(
    private readonly l: SettlementLedger,
    private readonly clock: SettlementClock,
    private readonly d: SettlementDeps,
  ) {}

  async create(by: Staff, ladderId: string, req: SettlementRequest, now = Date.now()) {
    const ladder = this.d.ladders.require(ladderId);
    if (phaseAt(ladder.def, now) === "closed") throw errors.ladderClosed(ladder.id);
    const existing = this.l.open.get(ladder.id);
    if (existing) throw errors.settlementExists(ladder.id, existing.row.id);
    const { startsAt, endsAt, eventId } = this.plan(ladder.id, req, now);
    const row: SettlementRow = {
      id: newSettlementId(),
      ladder_id: ladder.id,
      event_id: eventId,
      top_k: req.top_k,
      game_budget: req.game_budget,
      starts_at: new Date(startsAt).toISOString(),
      ends_at: new Date(endsAt).toISOString(),
      state: "scheduled",
      frozen: null,
      created_by: by.id,
      created: new Date(now).toISOString(),
      began_at: null,
      ended_at: null,
    };
    await this.d.work(async (u) => {
      await this.d.store.insert(u.q, row);
      await u.audit("settlement_scheduled", ladder.id, scheduleAudit(by, row));
    });
    this.l.open.set(ladder.id, {
      row,
      started: 0,
      played: 0,
      running: new Map(),
      pairGames: new Map(),
      known: null,
    });
    await this.clock.tick(now);
    return this.l.view(ladder.id);
  }

  /**
   * When a settlement asked for starts and ends, and the event it ends: within the ladder's window, and within
   * the event's when it names one (an event of this ladder that has not closed). The end defaults to the
   * event's closing, else the ladder's; a ladder (or event) that never closes needs ends_at or duration_s.
   */
  private plan(
    ladderId: string,
    req: Omit<SettlementRequest, "top_k" | "game_budget">,
    now: number,
  ): { startsAt: number; endsAt: number; eventId: string | null } {
    const def = this.d.ladders.require(ladderId).def;
    if (req.ends_at !== undefined && req.duration_s !== undefined)
      throw errors.invalidSettlement("give ends_at or duration_s, not both");
    let eventId: string | null = null;
    let window: { opens_at: string | null; closes_at: string | null } = def;
    let of = "the ladder's";
    if (req.event !== undefined && req.event !== null) {
      const e = this.d.events.find(req.event);
      if (!e || e.def.ladder_id !== ladderId)
        throw errors.invalidSettlement(`the ladder ${ladderId} has no event ${JSON.stringify(req.event)}`);
      window = this.d.events.window(e);
      if (phaseAt(window, now) === "closed")
        throw errors.invalidSettlement(`the event ${e.def.id} has closed (${window.closes_at})`);
      eventId = e.def.id;
      of = `the event's`;
    }
    const startsAt = Math.max(now, req.starts_at ? Date.parse(req.starts_at) : now);
    for (const w of [def, window])
      if (w.opens_at && startsAt < Date.parse(w.opens_at))
        throw errors.invalidSettlement(
          `starts_at must not precede ${w === def ? "the ladder's" : of} opening (${w.opens_at})`,
        );
    const endsAt =
      req.ends_at !== undefined
        ? Date.parse(req.ends_at)
        : req.duration_s !== undefined
          ? startsAt + req.duration_s * 1000
          : window.closes_at
            ? Date.parse(window.closes_at)
            : null;
    if (endsAt === null)
      throw errors.invalidSettlement(
        `${eventId ? "this event" : "this ladder"} never closes: give ends_at or duration_s`,
      );
    if (endsAt <= startsAt) throw errors.invalidSettlement("the settlement must end after it starts");
    for (const w of [def, window])
      if (w.closes_at && endsAt > Date.parse(w.closes_at))
        throw errors.invalidSettlement(
          `ends_at must not follow ${w === def ? "the ladder's" : of} closing (${w.closes_at})`,
        );
    return { startsAt, endsAt, eventId };
  }

  /**
   * Changes a ladder's settlement before it begins: the request replaces its schedule, read and checked as a
   * new one is (its id stays). One that has begun runs as it is (409 settlement_started). Audited with the unit.
   */
  async edit(by: Staff, ladderId: string, req: SettlementRequest, now = Date.now()) {
    const ladder = this.d.ladders.require(ladderId);
    await this.clock.pass;
    const o = this.l.open.get(ladder.id);
    if (!o) throw errors.noSettlement(ladder.id);
    if (o.row.state !== "scheduled") throw errors.settlementStarted(ladder.id, o.row.id);
    const { startsAt, endsAt, eventId } = this.plan(ladder.id, req, now);
    const row: SettlementRow = {
      ...o.row,
      event_id: eventId,
      top_k: req.top_k,
      game_budget: req.game_budget,
      starts_at: new Date(startsAt).toISOString(),
      ends_at: new Date(endsAt).toISOString(),
    };
    const changed = await this.d.work(async (u) => {
      if (!(await this.d.store.edit(u.q, row))) return false;
      await u.audit("settlement_edited", ladder.id, scheduleAudit(by, row));
      return true;
    });
    if (!changed) throw errors.settlementStarted(ladder.id, o.row.id);
    // The clock may have begun it meanwhile only through the database, which refused the change then.
    if (o.row.state === "scheduled") o.row = row;
    this.l.finals.delete(ladder.id);
    await this.clock.tick(now);
    return this.l.view(ladder.id);
  }

  /**
   * Cancels a ladder's settlement before it begins (nothing was frozen or played); one that has begun runs to its
   * end (409 settlement_started), so its games and its standings stay one story. Audited with the unit.
   */
  async cancel(by: Staff, ladderId: string) {
    const ladder = this.d.ladders.require(ladderId);
    await this.clock.pass;
    const o = this.l.open.get(ladder.id);
    if (!o) throw errors.noSettlement(ladder.id);
    if (o.row.state !== "scheduled") throw errors.settlementStarted(ladder.id, o.row.id);
    // Out of the clock's sight first, so no pass begins it while it is being deleted.
    this.l.open.delete(ladder.id);
    const gone = await this.d
      .work(async (u) => {
        if (!(await this.d.store.cancel(u.q, o.row.id))) return false;
        await u.audit("settlement_cancelled", ladder.id, { by: by.handle ?? by.id, id: o.row.id });
        return true;
      })
      .catch((err: unknown) => {
        this.l.open.set(ladder.id, o);
        throw err;
      });
    if (!gone) {
      this.l.open.set(ladder.id, o);
      throw errors.settlementStarted(ladder.id, o.row.id);
    }
    this.l.finals.delete(ladder.id);
    return { cancelled: o.row.id, ladder_id: ladder.id };
  }
}
