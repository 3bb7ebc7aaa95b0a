// Every ladder of the manifest as a runtime, looked up by id. `require` is how a route or the socket turns a
// `?ladder=` or `ladder_id` into a ladder: an unknown id is the SPEC's 404 `unknown_ladder`. Phase changes
// are one scheduled job over all ladders, announced on the bus as LadderPhaseChanged.
//
// The ladders do not know the features that narrow who may queue or whom a bot meets: membership and timed events
// fill the two hooks below (`admitWith`, `requestOpponentsWith`) when they are built (issue 32: core code does
// not bend for features).

import type { QueueRefusal } from "../connection/rules.ts";
import { errors } from "../errors.ts";
import type { EventBus } from "../kernel/bus.ts";
import type { LeaseGrant } from "../kernel/lease.ts";
import { DEFAULT_LADDER } from "../kernel/names.ts";
import type { ScheduledJob } from "../kernel/scheduler.ts";
import type { BotRow } from "../store/types.ts";
import { type Manifest, nextPhaseChange, phaseAt } from "./manifest.ts";
import { LadderRuntime, type OpponentRequests, type RuntimeDeps } from "./runtime.ts";

/**
 * A feature's rule on who may queue on a ladder the ladder itself admits: a refusal, or null to admit. `version`
 * is the label the bot queues with (absent when a feature asks whether the bot could queue at all).
 */
export type QueueRule = (bot: BotRow, ladderId: string, version?: string) => QueueRefusal | null;

/** Who counts the running matches a matchmaker's limits read: this server's (the default) or a cluster's. */
export interface RunningCounts {
  /** Matches running, or running on one ladder. */
  running(ladderId?: string): number;
  runningForOwner(owner: string): number;
  /** The capacity for matches, given one server's `max_concurrent_matches`. */
  capacity(perServer: number): number;
}

export class Ladders {
  private readonly byId = new Map<string, LadderRuntime>();
  private readonly rules: QueueRule[] = [];
  private requests: OpponentRequests | null = null;
  private pokeQueued = false;
  private passTimer: NodeJS.Timeout | null = null;
  private counts: RunningCounts;

  constructor(
    /** The manifest the ladders were made from (its events are the events feature's). */
    readonly manifest: Manifest,
    deps: Omit<RuntimeDeps, "opponentRequests">,
    now = Date.now(),
  ) {
    const opponentRequests: OpponentRequests = {
      requested: (botId, ladderId) => this.requests?.requested(botId, ladderId) ?? null,
      served: (botId) => this.requests?.served(botId),
    };
    this.counts = { running: deps.running, runningForOwner: deps.runningForOwner, capacity: (n) => n };
    const counted = {
      running: (ladderId?: string) => this.counts.running(ladderId),
      runningForOwner: (owner: string) => this.counts.runningForOwner(owner),
      serverCapacity: () => this.counts.capacity(deps.settings.limits().maxConcurrentMatches),
    };
    for (const def of manifest.ladders)
      this.byId.set(def.id, new LadderRuntime(def, { ...deps, ...counted, opponentRequests }, now));
  }

  /**
   * Sets who counts the running matches the matchmakers' limits read (cluster mode: the whole cluster's, so a
   * ladder's and an owner's limits hold across nodes; server/cluster/running-counts.ts).
   */
  countRunningWith(counts: RunningCounts): void {
    this.counts = counts;
  }

  /** Matches running, or running on one ladder: this server's, or the whole cluster's (countRunningWith). */
  running(ladderId?: string): number {
    return this.counts.running(ladderId);
  }

  /** The capacity for matches given one server's `max_concurrent_matches`: every node's in a cluster. */
  capacity(perServer: number): number {
    return this.counts.capacity(perServer);
  }

  /** One matchmaker pass on every ladder (the quarter-second timer, a queue change). */
  passAll(): void {
    for (const l of this.all()) l.matchmaker.pass();
  }

  /** A queue changed: one pass on every ladder soon, however many changes this turn of the event loop brings. */
  poke(): void {
    if (this.pokeQueued) return;
    this.pokeQueued = true;
    setImmediate(() => {
      this.pokeQueued = false;
      this.passAll();
    });
  }

  /** Every ladder's matchmaker looks at its queue every `everyMs`, besides each queue change. */
  startPassing(everyMs: number): void {
    this.passTimer ??= setInterval(() => this.passAll(), everyMs);
    this.passTimer.unref();
  }

  /** No matchmaker starts anything more (the server drains or stops). */
  pause(): void {
    if (this.passTimer) clearInterval(this.passTimer);
    this.passTimer = null;
    for (const l of this.all()) l.matchmaker.paused = true;
  }

  /** Adds a rule on queueing (membership, an event's window); rules are asked in the order they were added. */
  admitWith(rule: QueueRule): void {
    this.rules.push(rule);
  }

  /** Sets who grants each ladder's matchmaker its lease (cluster mode: one node pairs a ladder at a time). */
  leaseWith(grant: LeaseGrant): void {
    for (const l of this.all()) l.matchmaker.lease = grant.lease(`matchmaker.${l.id}`);
  }

  /** Sets who answers opponent requests (SPEC 3.9's events): the house bot a waiting bot asked to meet. */
  requestOpponentsWith(requests: OpponentRequests): void {
    this.requests = requests;
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
   * Whether a bot may queue on a ladder (SPEC 6.1, 3.7): known, enabled, not closed, and then every rule the
   * features added (an enrollment where the ladder needs one, an event's window). An upcoming ladder takes the
   * queue, which waits for opening.
   */
  mayQueue(
    bot: BotRow,
    ladderId: string | undefined,
    now = Date.now(),
    version?: string,
  ): { ladderId: string } | QueueRefusal {
    const id = ladderId ?? DEFAULT_LADDER;
    const l = this.byId.get(id);
    if (!l) return { code: "unknown_ladder", message: `unknown ladder ${JSON.stringify(id)}` };
    if (!l.def.enabled) return { code: "ladder_disabled", message: `the ladder ${id} is disabled` };
    if (phaseAt(l.def, now) === "closed")
      return { code: "ladder_closed", message: `the ladder ${id} closed at ${l.def.closes_at}` };
    for (const rule of this.rules) {
      const refusal = rule(bot, id, version);
      if (refusal) return refusal;
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
