// The events service (SPEC 2 Event, 3.1, 3.9, 4.1, 4.5, 4.6), put together from its parts: the events at run time
// with their views and phases (catalog.ts, which this extends), achievements (`awards`: awards.ts), opponent
// requests (`requests`: requests.ts) and staff's changes (`staff`: staff.ts), and the phase job that ties them
// (closing an event expires its requests and announces EventPhaseChanged).
import type { ScheduledJob } from "../kernel/scheduler.ts";
import { type Manifest, nextPhaseChange } from "../ladders/manifest.ts";
import { EventAwards } from "./awards.ts";
import { EventCatalog, type EventsDeps } from "./catalog.ts";
import { Flags } from "./flags.ts";
import { OpponentRequests } from "./requests.ts";
import { EventStaff } from "./staff.ts";

export class Events extends EventCatalog {
  readonly awards: EventAwards;
  readonly requests: OpponentRequests;
  readonly staff: EventStaff;

  constructor(d: EventsDeps) {
    super(d);
    this.awards = new EventAwards(this, d);
    this.requests = new OpponentRequests(this, d);
    this.staff = new EventStaff(this, d);
  }

  override async load(manifest: Manifest, now = Date.now()): Promise<void> {
    await super.load(manifest, now);
    await this.requests.reload();
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
          if (to === "closed") await this.requests.expire(e.def.id);
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
}

export { Flags };
