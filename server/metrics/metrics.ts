// The operator's figures (issue 14 part 4), kept by prom-client and rendered in the Prometheus text format.
// One registry per App, never prom-client's global default: tests run several servers in one process, and the
// global registry would mix their figures and refuse the second server's names. Built only when the operator
// turns metrics on (--metrics-token or --metrics-listen), so a server without them pays nothing: no default
// collectors (their event-loop monitor and GC observer cannot be stopped once started), no timing calls.
//
// What is counted where: figures that already exist as state (pool, queues, sockets, running matches) are read
// at scrape time by `collect` callbacks; only the things that happen (ticks, deadline misses, matchmaker
// passes, database statements) are observed as they happen, through children bound to their labels once.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import { VERSIONS } from "../../engine/versions.ts";
import type { WorkerFigures } from "../../pool/pool.ts";
import type { QueryTimer } from "../db/timed.ts";
import type { TickMeter } from "../runner/hooks.ts";

/** What the collectors read at scrape time; wired once the app's parts exist (see Metrics.watch). */
export interface MetricSources {
  pool: {
    readonly threads: number;
    readonly queued: number;
    readonly restarts: number;
    workers(): WorkerFigures[];
  };
  ladderIds(): readonly string[];
  /** Bots waiting in a ladder's queue (house bots, always waiting, not counted). */
  queueLength(ladderId: string): number;
  running(ladderId: string): number;
  sockets(): { bot: number; human: number };
  /** Open TCP connections of the main listener (HTTP and upgraded WebSockets). */
  connections(): Promise<number>;
  draining(): boolean;
}

// Buckets in seconds. A tick's server share is a pool hop and an engine step (about 0.1-1 ms unloaded), its
// round trip adds the bots' replies (up to the 1 s default deadline; human games up to 2 minutes).
const TICK_SERVER_BUCKETS = [
  0.0001, 0.00015, 0.0002, 0.0003, 0.0005, 0.0007, 0.001, 0.0015, 0.002, 0.003, 0.005, 0.007, 0.01, 0.015,
  0.02, 0.03, 0.05, 0.1, 0.25, 0.5, 1,
];
const TICK_ROUND_TRIP_BUCKETS = [
  0.0002, 0.0005, 0.001, 0.0015, 0.002, 0.003, 0.005, 0.007, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5, 1,
  2.5, 5, 10, 30, 120,
];
const PASS_BUCKETS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1,
];
const DB_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

const MODES = ["ranked", "human"] as const;

export class Metrics {
  readonly registry = new Registry();
  private sources: MetricSources | null = null;
  /** Each worker's event-loop times at the previous scrape, by threadId (the utilisation's window start). */
  private lastWorkerTimes = new Map<number, { activeMs: number; idleMs: number }>();
  private readonly tickMeters: Record<(typeof MODES)[number], TickMeter>;
  private readonly passTimers = new Map<string, (seconds: number) => void>();
  private readonly passSeconds: Histogram<"ladder">;
  private readonly dbSeconds: Histogram<"driver" | "kind">;
  private readonly spectatorPolls: Counter;

  constructor() {
    const registers = [this.registry];
    // Process, heap, GC and event-loop delay figures under their usual names (process_*, nodejs_*), so stock
    // Node.js dashboards and alerts work unchanged; this registry is the App's own, so no prefix is needed.
    collectDefaultMetrics({ register: this.registry });

    new Gauge({
      name: "arena_build_info",
      help: "The running versions (always 1): release, engine, protocol and rules",
      labelNames: ["release", "engine", "protocol", "rules"],
      registers,
    }).set(
      {
        release: VERSIONS.release,
        engine: VERSIONS.engine,
        protocol: VERSIONS.protocol,
        rules: VERSIONS.rules,
      },
      1,
    );
    const src = () => this.sources;

    // ---- the match pool
    new Gauge({
      name: "arena_pool_threads",
      help: "Match worker threads alive (--workers, from the first match on)",
      registers,
      collect() {
        const s = src();
        if (s) this.set(s.pool.threads);
      },
    });
    new Gauge({
      name: "arena_pool_queued_tasks",
      help: "Matches waiting for a worker thread (every thread full, or a replacement worker starting)",
      registers,
      collect() {
        const s = src();
        if (s) this.set(s.pool.queued);
      },
    });
    new Counter({
      name: "arena_pool_worker_restarts_total",
      help: "Worker threads started to replace one that crashed or was terminated as hung",
      registers,
      collect() {
        const s = src();
        if (!s) return;
        this.reset();
        this.inc(s.pool.restarts);
      },
    });
    // Each collector reads the workers itself (a few numbers per thread): no collector depends on another's
    // having run first. Series of a replaced thread disappear with it (reset), a new thread brings its own.
    // A thread's event-loop times as Node reports them can step back a little around its start, so each is
    // held at the highest value seen: the counter never runs backwards, the utilisation never leaves 0-1.
    const highs = new Map<number, { activeMs: number; idleMs: number }>();
    const workers = (): WorkerFigures[] => {
      const now = src()?.pool.workers() ?? [];
      const live = new Set(now.map((w) => w.threadId));
      for (const id of highs.keys()) if (!live.has(id)) highs.delete(id);
      return now.map((w) => {
        const h = highs.get(w.threadId);
        const activeMs = Math.max(w.activeMs, h?.activeMs ?? 0);
        const idleMs = Math.max(w.idleMs, h?.idleMs ?? 0);
        highs.set(w.threadId, { activeMs, idleMs });
        return { ...w, activeMs, idleMs };
      });
    };
    new Gauge({
      name: "arena_pool_worker_matches",
      help: "Matches running on each worker thread (label: the thread's id)",
      labelNames: ["worker"],
      registers,
      collect() {
        this.reset();
        for (const w of workers()) this.set({ worker: String(w.threadId) }, w.matches);
      },
    });
    new Counter({
      name: "arena_pool_worker_busy_seconds_total",
      help: "Seconds each worker thread's event loop was busy since the thread started (rate() = utilisation)",
      labelNames: ["worker"],
      registers,
      collect() {
        this.reset();
        for (const w of workers()) this.inc({ worker: String(w.threadId) }, w.activeMs / 1000);
      },
    });
    const last = () => this.lastWorkerTimes;
    const setLast = (m: Map<number, { activeMs: number; idleMs: number }>) => {
      this.lastWorkerTimes = m;
    };
    new Gauge({
      name: "arena_pool_utilization",
      help: "Share of the worker threads' time spent busy (0-1), averaged over the threads, since the previous scrape",
      registers,
      collect() {
        let active = 0;
        let total = 0;
        const prev = last();
        const next = new Map<number, { activeMs: number; idleMs: number }>();
        for (const w of workers()) {
          const p = prev.get(w.threadId) ?? { activeMs: 0, idleMs: 0 };
          active += w.activeMs - p.activeMs;
          total += w.activeMs - p.activeMs + (w.idleMs - p.idleMs);
          next.set(w.threadId, { activeMs: w.activeMs, idleMs: w.idleMs });
        }
        setLast(next);
        this.set(total > 0 ? active / total : 0);
      },
    });

    // ---- matches and ticks
    new Gauge({
      name: "arena_matches_running",
      help: "Matches running now, by ladder (ranked and human games)",
      labelNames: ["ladder"],
      registers,
      collect() {
        const s = src();
        if (!s) return;
        for (const id of s.ladderIds()) this.set({ ladder: id }, s.running(id));
      },
    });
    const roundTrip = new Histogram({
      name: "arena_tick_round_trip_seconds",
      help: "One tick as the server sees it: from a match's observations to the next ones (bots' replies + server)",
      labelNames: ["mode"],
      buckets: TICK_ROUND_TRIP_BUCKETS,
      registers,
    });
    const server = new Histogram({
      name: "arena_tick_server_seconds",
      help: "The server's share of a tick: from the turns posted to the match's worker to its observations back (pool hop, engine step, serialisation)",
      labelNames: ["mode"],
      buckets: TICK_SERVER_BUCKETS,
      registers,
    });
    const misses = new Counter({
      name: "arena_tick_deadline_misses_total",
      help: "Seats idled at their tick deadline: timeout (connected, no answer in time) or disconnected",
      labelNames: ["reason"],
      registers,
    });
    const timeout = misses.labels("timeout");
    const disconnected = misses.labels("disconnected");
    // Both children exist from the start, so a dashboard sees 0 rather than no series.
    timeout.inc(0);
    disconnected.inc(0);
    const meter = (mode: (typeof MODES)[number]): TickMeter => {
      // Zeroed series from the start: rate() and histogram_quantile() work before the first match.
      roundTrip.zero({ mode });
      server.zero({ mode });
      const rt = roundTrip.labels(mode);
      const sv = server.labels(mode);
      return {
        tick(r, s) {
          rt.observe(r);
          sv.observe(s);
        },
        deadlineMiss(gone) {
          (gone ? disconnected : timeout).inc();
        },
      };
    };
    this.tickMeters = { ranked: meter("ranked"), human: meter("human") };

    // ---- sockets
    new Gauge({
      name: "arena_sockets",
      help: "Open WebSockets by kind: bot (/bot, authenticated) and human (/human play)",
      labelNames: ["kind"],
      registers,
      collect() {
        const s = src();
        if (!s) return;
        const n = s.sockets();
        this.set({ kind: "bot" }, n.bot);
        this.set({ kind: "human" }, n.human);
      },
    });
    new Gauge({
      name: "arena_connections_open",
      help: "Open TCP connections of the main listener: HTTP requests, keep-alive and WebSockets",
      registers,
      async collect() {
        const s = src();
        if (s) this.set(await s.connections());
      },
    });
    this.spectatorPolls = new Counter({
      name: "arena_spectator_polls_total",
      help: "Requests of the match viewer's live feed (GET /api/matches/<id>/live): spectators poll, they hold no socket",
      registers,
    });
    new Gauge({
      name: "arena_draining",
      help: "1 while the server drains (a stop signal was received; no new matches start), else 0",
      registers,
      collect() {
        const s = src();
        this.set(s?.draining() ? 1 : 0);
      },
    });

    // ---- ladders
    new Gauge({
      name: "arena_queue_length",
      help: "Bots waiting in each ladder's queue (house bots not counted)",
      labelNames: ["ladder"],
      registers,
      collect() {
        const s = src();
        if (!s) return;
        for (const id of s.ladderIds()) this.set({ ladder: id }, s.queueLength(id));
      },
    });
    this.passSeconds = new Histogram({
      name: "arena_matchmaker_pass_seconds",
      help: "Time of one matchmaker pass over a ladder's queue (limits, pairing, starts)",
      labelNames: ["ladder"],
      buckets: PASS_BUCKETS,
      registers,
    });

    // ---- database
    this.dbSeconds = new Histogram({
      name: "arena_db_query_seconds",
      help: "Database time: each statement (waiting for a connection included) and each whole transaction",
      labelNames: ["driver", "kind"],
      buckets: DB_BUCKETS,
      registers,
    });
  }

  /** Wires the scrape-time collectors to the running app. */
  watch(sources: MetricSources): void {
    this.sources = sources;
  }

  /** The tick meter for matches of a mode; shared by all of them (its children are bound once). */
  tickMeter(mode: string): TickMeter | null {
    return mode === "human" ? this.tickMeters.human : this.tickMeters.ranked;
  }

  /** A ladder's pass timer, bound to its label once. */
  passTimer(ladderId: string): (seconds: number) => void {
    let t = this.passTimers.get(ladderId);
    if (!t) {
      this.passSeconds.zero({ ladder: ladderId });
      const child = this.passSeconds.labels(ladderId);
      t = (s) => child.observe(s);
      this.passTimers.set(ladderId, t);
    }
    return t;
  }

  /** The database timer for a driver. */
  queryTimer(driver: string): QueryTimer {
    this.dbSeconds.zero({ driver, kind: "statement" });
    this.dbSeconds.zero({ driver, kind: "transaction" });
    const statement = this.dbSeconds.labels(driver, "statement");
    const transaction = this.dbSeconds.labels(driver, "transaction");
    return { statement: (s) => statement.observe(s), transaction: (s) => transaction.observe(s) };
  }

  spectatorPoll(): void {
    this.spectatorPolls.inc();
  }

  /** The exposition: content type and text. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
