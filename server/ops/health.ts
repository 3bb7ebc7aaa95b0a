// Rolling five-minute server health for GET /api/admin/health (SPEC 4.6), kept whether or not the Prometheus
// metrics are on: thirty ten-second slots of request counts and latencies by route, match ticks and deadline
// misses, and samples taken every slot (sockets, pool queue, event-loop delay, a database round trip). Memory
// is bounded: a slot keeps at most 256 latencies per route for its percentile.
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { FastifyInstance } from "fastify";
import type { TickMeter } from "../runner/hooks.ts";

export const SLOT_MS = 10_000;
export const WINDOW_SLOTS = 30;
const KEEP_PER_ROUTE = 256;

interface RouteSlot {
  count: number;
  errors: number;
  totalMs: number;
  maxMs: number;
  samples: number[];
}

interface Slot {
  at: number;
  routes: Map<string, RouteSlot>;
  ticks: number;
  tickMsTotal: number;
  tickMsMax: number;
  misses: number;
  disconnectedMisses: number;
  sample: Sample | null;
}

export interface Sample {
  botSockets: number;
  humanSockets: number;
  runningMatches: number;
  poolQueued: number;
  loopMeanMs: number;
  loopP99Ms: number;
  loopMaxMs: number;
  /** A `SELECT 1` round trip, or null when it failed. */
  dbMs: number | null;
}

export interface HealthSources {
  sample(): Promise<Omit<Sample, "loopMeanMs" | "loopP99Ms" | "loopMaxMs">>;
  profiling: boolean;
}

const round = (n: number) => Math.round(n * 100) / 100;
function p95(values: number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]!;
}

export class HealthMonitor {
  private readonly slots: Slot[] = [];
  private readonly loop = monitorEventLoopDelay({ resolution: 20 });
  private timer: NodeJS.Timeout | null = null;
  private sources: HealthSources | null = null;

  constructor(private readonly clock: () => number = Date.now) {
    this.loop.enable();
  }

  private slot(now = this.clock()): Slot {
    const at = now - (now % SLOT_MS);
    let s = this.slots.at(-1);
    if (!s || s.at !== at) {
      s = {
        at,
        routes: new Map(),
        ticks: 0,
        tickMsTotal: 0,
        tickMsMax: 0,
        misses: 0,
        disconnectedMisses: 0,
        sample: null,
      };
      this.slots.push(s);
      while (this.slots.length > WINDOW_SLOTS) this.slots.shift();
    }
    return s;
  }

  /** Counts every answered request by its route pattern (never the raw URL: no ids, no secrets). */
  watch(http: FastifyInstance): void {
    http.addHook("onResponse", async (req, reply) => {
      const route = `${req.method} ${req.routeOptions.url ?? "(no route)"}`;
      this.request(route, reply.elapsedTime, reply.statusCode);
    });
  }

  request(route: string, ms: number, status: number): void {
    const s = this.slot();
    let r = s.routes.get(route);
    if (!r) {
      r = { count: 0, errors: 0, totalMs: 0, maxMs: 0, samples: [] };
      s.routes.set(route, r);
    }
    r.count++;
    if (status >= 500) r.errors++;
    r.totalMs += ms;
    r.maxMs = Math.max(r.maxMs, ms);
    if (r.samples.length < KEEP_PER_ROUTE) r.samples.push(ms);
  }

  /** The runner's tick hook (alongside the metrics' one when those are on). */
  tickMeter(): TickMeter {
    return {
      tick: (roundTrip) => {
        const s = this.slot();
        s.ticks++;
        s.tickMsTotal += roundTrip * 1000;
        s.tickMsMax = Math.max(s.tickMsMax, roundTrip * 1000);
      },
      deadlineMiss: (disconnected) => {
        const s = this.slot();
        s.misses++;
        if (disconnected) s.disconnectedMisses++;
      },
    };
  }

  /** Samples sockets, pool, event loop and database once per slot. */
  start(sources: HealthSources): void {
    this.sources = sources;
    const take = async () => {
      try {
        const base = await sources.sample();
        const s = this.slot();
        s.sample = {
          ...base,
          loopMeanMs: round(this.loop.mean / 1e6),
          loopP99Ms: round(this.loop.percentile(99) / 1e6),
          loopMaxMs: round(this.loop.max / 1e6),
        };
        this.loop.reset();
      } catch {}
    };
    void take();
    this.timer = setInterval(() => void take(), SLOT_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.loop.disable();
  }

  report() {
    const now = this.clock();
    const since = now - WINDOW_SLOTS * SLOT_MS;
    const slots = this.slots.filter((s) => s.at >= since);
    const seconds = Math.max(1, Math.min(WINDOW_SLOTS * SLOT_MS, now - (slots[0]?.at ?? now)) / 1000);
    const routes = new Map<string, RouteSlot>();
    for (const s of slots)
      for (const [k, r] of s.routes) {
        const t = routes.get(k) ?? { count: 0, errors: 0, totalMs: 0, maxMs: 0, samples: [] };
        t.count += r.count;
        t.errors += r.errors;
        t.totalMs += r.totalMs;
        t.maxMs = Math.max(t.maxMs, r.maxMs);
        t.samples.push(...r.samples);
        routes.set(k, t);
      }
    const samples = slots.flatMap((s) => (s.sample ? [s.sample] : []));
    const latest = samples.at(-1) ?? null;
    const dbs = samples.map((s) => s.dbMs).filter((v): v is number => v !== null);
    const ticks = slots.reduce((n, s) => n + s.ticks, 0);
    const total = [...routes.values()].reduce((n, r) => n + r.count, 0);
    return {
      window_s: (WINDOW_SLOTS * SLOT_MS) / 1000,
      slot_s: SLOT_MS / 1000,
      generated: new Date(now).toISOString(),
      profiling: this.sources?.profiling ?? false,
      requests: {
        total,
        per_s: round(total / seconds),
        errors_5xx: [...routes.values()].reduce((n, r) => n + r.errors, 0),
        by_route: [...routes.entries()]
          .sort((a, b) => b[1].count - a[1].count)
          .slice(0, 50)
          .map(([route, r]) => ({
            route,
            count: r.count,
            per_s: round(r.count / seconds),
            mean_ms: round(r.totalMs / r.count),
            p95_ms: round(p95(r.samples)),
            max_ms: round(r.maxMs),
            errors_5xx: r.errors,
          })),
      },
      sockets: { bot: latest?.botSockets ?? 0, human: latest?.humanSockets ?? 0 },
      matches: {
        running: latest?.runningMatches ?? 0,
        ticks,
        ticks_per_s: round(ticks / seconds),
        mean_tick_ms: ticks ? round(slots.reduce((n, s) => n + s.tickMsTotal, 0) / ticks) : 0,
        max_tick_ms: round(Math.max(0, ...slots.map((s) => s.tickMsMax))),
        deadline_misses: slots.reduce((n, s) => n + s.misses, 0),
        disconnected_misses: slots.reduce((n, s) => n + s.disconnectedMisses, 0),
      },
      pool: {
        queued: latest?.poolQueued ?? 0,
        max_queued: Math.max(0, ...samples.map((s) => s.poolQueued)),
      },
      event_loop: {
        mean_ms: samples.length ? round(samples.reduce((n, s) => n + s.loopMeanMs, 0) / samples.length) : 0,
        p99_ms: round(Math.max(0, ...samples.map((s) => s.loopP99Ms))),
        max_ms: round(Math.max(0, ...samples.map((s) => s.loopMaxMs))),
      },
      database: {
        samples: samples.length,
        failures: samples.length - dbs.length,
        mean_ms: dbs.length ? round(dbs.reduce((a, b) => a + b, 0) / dbs.length) : null,
        max_ms: dbs.length ? round(Math.max(...dbs)) : null,
      },
      series: slots.map((s) => {
        const reqs = [...s.routes.values()];
        const count = reqs.reduce((n, r) => n + r.count, 0);
        return {
          at: new Date(s.at).toISOString(),
          requests: count,
          mean_ms: count ? round(reqs.reduce((n, r) => n + r.totalMs, 0) / count) : 0,
          ticks: s.ticks,
          deadline_misses: s.misses,
          sockets: s.sample ? s.sample.botSockets + s.sample.humanSockets : null,
          loop_p99_ms: s.sample?.loopP99Ms ?? null,
          db_ms: s.sample?.dbMs ?? null,
        };
      }),
    };
  }
}

/** One tick hook feeding two meters (the health view and, when on, the Prometheus metrics). */
export function bothMeters(a: TickMeter, b: TickMeter | null): TickMeter {
  if (!b) return a;
  return {
    tick: (roundTrip, server) => {
      a.tick(roundTrip, server);
      b.tick(roundTrip, server);
    },
    deadlineMiss: (disconnected) => {
      a.deadlineMiss(disconnected);
      b.deadlineMiss(disconnected);
    },
  };
}
