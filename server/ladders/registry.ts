// Every ladder of the manifest as a runtime, looked up by id. `require` is how a route or the socket turns a
// `?ladder=` or `ladder_id` into a ladder: an unknown id is the SPEC's 404 `unknown_ladder`. Phase changes
// are one scheduled job over all ladders, announced on the bus as LadderPhaseChanged.

import { errors } from "../errors.ts";
import type { EventBus } from "../kernel/bus.ts";
import type { ScheduledJob } from "../kernel/scheduler.ts";
import type { QueueRefusal } from "../socket/hub.ts";
import type { BotRow } from "../store/types.ts";
import { DEFAULT_LADDER, type Manifest, nextPhaseChange, phaseAt } from "./manifest.ts";
import { LadderRuntime, type RuntimeDeps } from "./runtime.ts";
import type { MembershipState } from "./store.ts";

export class Ladders {
  private readonly byId = new Map<string, LadderRuntime>();

  constructor(manifest: Manifest, deps: RuntimeDeps, now = Date.now()) {
    for (const def of manifest.ladders) this.byId.set(def.id, new LadderRuntime(def, deps, now));
  }

  /** The default ladder (always present: the manifest refuses a document without it). */
  get main(): LadderRuntime {
    return this.byId.get(DEFAULT_LADDER)!;
  }

  get(id: string): LadderRuntime | undefined {
    return this.byId.get(id);
  }

  /** The ladder a query or message names (omitted: the default one); unknown ids are the SPEC's 404. */
  require(id: string | undefined): LadderRuntime {
    const l = this.byId.get(id ?? DEFAULT_LADDER);
    if (!l) throw errors.unknownLadder(id ?? DEFAULT_LADDER);
    return l;
  }

  all(): LadderRuntime[] {
    return [...this.byId.values()];
  }

  /** Visible ladders, plus one explicitly named hidden one (SPEC 4.1 GET /api/ladders). */
  listed(named?: string): LadderRuntime[] {
    if (named !== undefined) this.require(named);
    return this.all().filter((l) => l.def.visible || l.id === named);
  }

  /**
   * Whether a bot may queue on a ladder (SPEC 6.1, 3.7): known, enabled, not closed, and for approval and
   * invitation ladders an active enrollment of the bot's account. An upcoming ladder takes the queue, which
   * waits for opening.
   */
  async mayQueue(
    bot: BotRow,
    ladderId: string | undefined,
    membership: (ladderId: string, accountId: string) => MembershipState | null,
    now = Date.now(),
  ): Promise<{ ladderId: string } | QueueRefusal> {
    const id = ladderId ?? DEFAULT_LADDER;
    const l = this.byId.get(id);
    if (!l) return { code: "unknown_ladder", message: `unknown ladder ${JSON.stringify(id)}` };
    if (!l.def.enabled) return { code: "ladder_disabled", message: `the ladder ${id} is disabled` };
    if (phaseAt(l.def, now) === "closed")
      return { code: "ladder_closed", message: `the ladder ${id} closed at ${l.def.closes_at}` };
    if (!bot.house) {
      // Open ladders need no enrollment, but a member revoked by staff may not queue there either.
      const state = bot.account_id === null ? null : membership(id, bot.account_id);
      const ok = l.def.access === "open" ? state !== "revoked" : state === "active";
      if (!ok)
        return {
          code: "enrollment_required",
          message: `the ladder ${id} needs an active enrollment of the bot's account: POST /api/account/ladders/${id}/enrollment`,
        };
    }
    return { ladderId: id };
  }

  /**
   * Moves a ladder's window (the schedule route, windows stored at start-up, tests that shorten a window). The
   * phase job sees the new times once the scheduler is told to look again.
   */
  setWindow(id: string, opensAt: string | null, closesAt: string | null): LadderRuntime {
    const l = this.require(id);
    l.def = { ...l.def, opens_at: opensAt, closes_at: closesAt };
    return l;
  }

  /** One job for every ladder's window: at each opening or closing, announce the new phase. */
  phaseJob(bus: EventBus): ScheduledJob {
    return {
      name: "ladder phases",
      nextAt: (now) => {
        const next = Math.min(...this.all().map((l) => nextPhaseChange(l.def, now) ?? Infinity));
        return Number.isFinite(next) ? next : null;
      },
      run: (now) => {
        for (const l of this.all()) {
          const to = phaseAt(l.def, now);
          if (to === l.phase) continue;
          const from = l.phase;
          l.phase = to;
          bus.emit("LadderPhaseChanged", { ladderId: l.id, from, to, at: new Date(now).toISOString() });
        }
      },
    };
  }
}
