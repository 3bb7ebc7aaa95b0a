// The matches running now, and the bookkeeping around each one's start and end: its setup (deadlines from the
// live limits of its ladder), the quota counts, the lobby states of its seats (SPEC 3.2: a bot is idle again
// after `end` and must queue again), the rematch hold, and the next matchmaker pass. The runner itself plays
// the match; results reach other domains through MatchFinished on the bus, not through here.
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type { MatchPool } from "../../pool/pool.ts";
import type { MatchSetup } from "../../pool/protocol.ts";
import { MESSAGES_PER_TICK } from "../connection/rules.ts";
import type { EventBus } from "../kernel/bus.ts";
import type { Settings } from "../kernel/settings.ts";
import type { Ladders } from "../ladders/registry.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import { REMATCH_HOLD_MS, type StartPlan } from "../matchmaker/matchmaker.ts";
import type { ReplayFiles } from "../replays.ts";
import type { DurableResults } from "../results/durable-results.ts";
import { type RunnerDeps, RunningMatch } from "../runner/match-runner.ts";
import { seatKinds } from "../runner/seat.ts";
import type { StallClock } from "../runner/stall-clock.ts";
import type { PairingRecord } from "../store/pairing-record.ts";
import type { MatchMode, MatchRecord } from "../store/types.ts";

/** A new match id: the time, then random. */
export const newMatchId = (): string => `m${Date.now().toString(36)}${randomBytes(4).toString("hex")}`;

/** SPEC 8.4: a person gets two minutes per tick. */
export const HUMAN_TICK_MS = 120_000;

export interface LiveMatchesDeps {
  pool: MatchPool;
  results: Pick<DurableResults, "persist">;
  stalls: Pick<StallClock, "stalledWithin" | "stop">;
  replays: ReplayFiles;
  log: Logger;
  bus: EventBus;
  lobby: Lobby;
  settings: Settings;
  publicUrl: string;
  workerTimeoutMs: number;
  /** Tests shorten the fixed two-minute turn of human games. */
  humanTickMs: number;
  /** The operator's tick figures (server/metrics), when metrics are on. */
  tickMeter?: RunnerDeps["tickMeter"];
}

export class LiveMatches {
  /** Running matches by id. */
  readonly byId = new Map<string, RunningMatch>();
  private readonly byBot = new Map<string, RunningMatch>();
  private readonly runner: RunnerDeps;
  private ladders: Ladders | null = null;
  private idle: (() => void) | null = null;

  constructor(private readonly d: LiveMatchesDeps) {
    this.runner = {
      pool: d.pool,
      ratingsOf: (ladderId) => this.ladder(ladderId).ratings,
      bus: d.bus,
      results: d.results,
      stalls: d.stalls,
      replays: d.replays,
      log: d.log,
      publicUrl: d.publicUrl,
      messagesPerTick: MESSAGES_PER_TICK,
      workerTimeoutMs: d.workerTimeoutMs,
      ...(d.tickMeter ? { tickMeter: d.tickMeter } : {}),
      onEnd: (m) => this.ended(m),
    };
  }

  /** The worker pool the matches are stepped in (the metrics read its load; the server's stop closes it). */
  get pool(): MatchPool {
    return this.d.pool;
  }

  /** The ladders are built with a way to start matches here, so they are handed over once built. */
  useLadders(ladders: Ladders): void {
    this.ladders = ladders;
  }

  get size(): number {
    return this.byId.size;
  }

  /** The match a player's bot plays in, if any. */
  ofBot(botId: string): RunningMatch | undefined {
    return this.byBot.get(botId);
  }

  /** Matches running on the whole server, or on one ladder. */
  running(ladderId?: string): number {
    if (ladderId === undefined) return this.byId.size;
    let n = 0;
    for (const m of this.byId.values()) if (m.setup.ladderId === ladderId) n++;
    return n;
  }

  runningForOwner(owner: string): number {
    let n = 0;
    for (const m of this.byId.values())
      if (m.seats.some((s) => !s.participant.house && s.participant.bot.owner === owner)) n++;
    return n;
  }

  /** Matches running here by ladder, and by owner of a player bot in them (a cluster node's heartbeat). */
  tally(): { ladders: Record<string, number>; owners: Record<string, number> } {
    const ladders: Record<string, number> = {};
    const owners: Record<string, number> = {};
    for (const m of this.byId.values()) {
      ladders[m.setup.ladderId] = (ladders[m.setup.ladderId] ?? 0) + 1;
      const mine = new Set(m.seats.flatMap((s) => (s.participant.house ? [] : [s.participant.bot.owner])));
      for (const o of mine) owners[o] = (owners[o] ?? 0) + 1;
    }
    return { ladders, owners };
  }

  start(
    plan: Pick<StartPlan, "seats" | "map" | "seed"> &
      Partial<Pick<StartPlan, "pairing">> & { matchId?: string },
    ladderId: string,
    mode: MatchMode,
  ): RunningMatch {
    const pair = plan.seats;
    const limits = this.d.settings.limits(ladderId);
    const setup: MatchSetup = {
      // A match placed by another node's matchmaker (cluster mode) comes with its id, named before it starts.
      matchId: plan.matchId ?? newMatchId(),
      seed: plan.seed,
      map: plan.map,
      mode,
      ladderId,
      // A person gets the fixed two-minute tick (SPEC 8.4) and no reply budget beyond it; ten timeouts in a
      // row still disqualify.
      deadlines: {
        startup_ms: mode === "human" ? Math.max(limits.startup_ms, 60_000) : limits.startup_ms,
        tick_ms: mode === "human" ? this.d.humanTickMs : limits.tick_ms,
        match_budget_ms: mode === "human" ? 24 * 3600_000 : limits.match_budget_ms,
        max_consecutive_failures: 10,
        reconnect_grace_ms: limits.reconnect_grace_ms,
      },
      fighters: pair.map((p) => ({
        name: p.bot.name,
        display_name: p.bot.display_name,
        version: p.version ?? "unversioned",
      })) as MatchSetup["fighters"],
      seats: seatKinds(pair[0], pair[1]),
    };
    if (mode === "ranked")
      this.ladder(ladderId).quotas.started(
        setup.matchId,
        pair.map((p) => ({ botId: p.bot.id, owner: p.bot.owner, house: p.bot.house })),
      );
    const now = Date.now();
    for (const p of pair) {
      p.lastStartAt = now;
      if (!p.house) {
        p.state = "playing";
        // The matchmaker's count of recent ranked starts: unrated games (scrimmages) leave it alone.
        if (mode === "ranked") p.starts.push(now);
      }
    }
    return this.register(new RunningMatch(this.runner, setup, pair), plan.pairing);
  }

  /**
   * A match taken over from a node that died (cluster failover): its setup as that node journaled it, with the
   * inputs to re-simulate (`setup.resume`); its start was counted where it began, so nothing is counted again.
   */
  adopt(setup: MatchSetup, pair: [Participant, Participant], pairing: PairingRecord | null): RunningMatch {
    for (const p of pair) if (!p.house) p.state = "playing";
    return this.register(new RunningMatch(this.runner, setup, pair), pairing ?? undefined);
  }

  /** Cluster mode: every match's inputs are journaled through this (server/cluster/match-journal.ts). */
  journalWith(journal: NonNullable<RunnerDeps["journal"]>): void {
    this.runner.journal = journal;
  }

  private register(m: RunningMatch, pairing: PairingRecord | undefined): RunningMatch {
    if (pairing) m.pairing = pairing;
    this.byId.set(m.id, m);
    for (const s of m.seats) {
      s.participant.matches.add(m.id);
      if (!s.participant.house) this.byBot.set(s.participant.bot.id, m);
    }
    return m;
  }

  /** Resolves once no match runs (at once when none does); used by the drain. */
  whenIdle(): Promise<void> {
    if (this.byId.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.idle = resolve;
    });
  }

  /** Abandons every running match (drain timeout, second stop signal); they leave no result. */
  async abandonAll(): Promise<void> {
    await Promise.all([...this.byId.values()].map((m) => m.abandon()));
  }

  /**
   * The server stops: the stall clock ends, running matches are abandoned (no row, no `end`: their sockets are
   * closed) and the pool's workers end. A match already ending finishes its journal write, so the abandonment
   * is given up to `waitMs` before the pool closes.
   */
  async shutdown(waitMs: number): Promise<void> {
    this.d.stalls.stop();
    await Promise.race([this.abandonAll(), new Promise((r) => setTimeout(r, waitMs).unref())]);
    await this.d.pool.close().catch(() => {});
  }

  /** A result reached the database (at once, or later from the journal): storage counts now include it. */
  committed(r: MatchRecord): void {
    if (r.mode === "ranked") this.ladders?.get(r.ladder_id)?.quotas.stored(r.id);
  }

  private ended(m: RunningMatch): void {
    this.byId.delete(m.id);
    const ladder = this.ladder(m.setup.ladderId);
    const now = Date.now();
    const [a, b] = m.seats.map((s) => s.participant) as [Participant, Participant];
    // The rematch hold is the ranked pairing's; an unrated game between the two does not delay their next.
    if (m.setup.mode === "ranked") {
      a.lastMet.set(b.bot.id, now);
      b.lastMet.set(a.bot.id, now);
    }
    for (const s of m.seats) {
      const p = s.participant;
      p.matches.delete(m.id);
      if (this.byBot.get(p.bot.id) === m) this.byBot.delete(p.bot.id);
      if (!p.house) {
        p.state = "idle"; // SPEC 3.2: after `end` the bot must queue again
        this.d.lobby.leaveIfGone(p.bot.id);
      }
    }
    if (this.byId.size === 0) this.idle?.();
    // The rematch hold ends later; look again then.
    setTimeout(() => ladder.matchmaker.pass(), REMATCH_HOLD_MS + 50).unref();
    ladder.matchmaker.pass();
  }

  private ladder(id: string) {
    if (!this.ladders) throw new Error("LiveMatches used before its ladders were set");
    return this.ladders.require(id);
  }
}
