// Moving a ladder's window (PUT /api/admin/ladders/<id>/schedule), with the rules SPEC 4.6 states for event
// windows: only the future can move. Once a ladder has opened its opening time stays (409 window_started);
// once it has closed nothing moves (409 window_closed); a new time must be in the future (409 window_past);
// closing must follow opening (400 invalid_window). The change and its audit entry are one unit of work; the
// stored window outranks the manifest's on restart, and the phase job is told to look again; then
// LadderWindowMoved (the events on the ladder count a revision).

import type { AccountRow } from "../accounts/account-store.ts";
import { errors } from "../errors.ts";
import type { EventBus } from "../kernel/bus.ts";
import { DEFAULT_LADDER } from "../kernel/names.ts";
import type { Scheduler } from "../kernel/scheduler.ts";
import type { Store } from "../store/types.ts";
import type { Ladders } from "./registry.ts";
import type { LadderStore } from "./store.ts";

const ms = (t: string | null) => (t === null ? null : Date.parse(t));

export async function moveWindow(
  d: {
    store: Store;
    ladderTables: LadderStore;
    ladders: Ladders;
    scheduler: Scheduler;
    bus: EventBus;
    publicUrl: string;
  },
  staff: AccountRow,
  ladderId: string,
  opensAt: string | null,
  closesAt: string | null,
  now = Date.now(),
) {
  const ladder = d.ladders.require(ladderId);
  if (ladder.id === DEFAULT_LADDER)
    throw errors.invalidWindow(`the ${DEFAULT_LADDER} ladder is always open and has no window`);
  const cur = ladder.def;
  const [curOpen, curClose, newOpen, newClose] = [cur.opens_at, cur.closes_at, opensAt, closesAt].map(ms);
  if (curClose !== null && curClose !== undefined && now >= curClose) throw errors.windowClosed(ladder.id);
  if (newOpen !== curOpen) {
    // A ladder open from the start (no opening time) has opened as well.
    if (curOpen === null || curOpen === undefined || now >= curOpen) throw errors.windowStarted(ladder.id);
    if (newOpen !== null && newOpen !== undefined && newOpen <= now) throw errors.windowPast("opens_at");
  }
  if (newClose !== curClose && newClose !== null && newClose !== undefined && newClose <= now)
    throw errors.windowPast("closes_at");
  if (newOpen != null && newClose != null && newClose <= newOpen)
    throw errors.invalidWindow("closes_at must follow opens_at");
  const iso = (t: number | null | undefined) => (t == null ? null : new Date(t).toISOString());
  const [o, c] = [iso(newOpen), iso(newClose)];
  await d.store.work(async (u) => {
    await d.ladderTables.setSchedule(u.q, ladder.id, o, c, staff.id);
    await u.audit("ladder_schedule", ladder.id, {
      by: staff.handle ?? staff.id,
      from: { opens_at: cur.opens_at, closes_at: cur.closes_at },
      to: { opens_at: o, closes_at: c },
    });
  });
  d.ladders.setWindow(ladder.id, o, c);
  d.scheduler.reschedule();
  // The events on this ladder share its window: they count a revision before this answers.
  await d.bus.emit("LadderWindowMoved", {
    ladderId: ladder.id,
    opens_at: o,
    closes_at: c,
    by: staff.handle ?? staff.id,
  });
  return ladder.view(d.publicUrl, now);
}
