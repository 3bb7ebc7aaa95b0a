// Builds the whole server from a Config: the HTTP server, the store, the kernel (bus, scheduler, live settings)
// and then every feature of server/features.ts in order, each from its own folder. main.ts only parses config,
// listens and wires signals; tests call buildApp and listen on port 0. Nothing here knows a domain rule: what a
// feature does when the server starts, drains or stops is in its feature definition (server/kernel/feature.ts).
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { authenticateWith } from "./accounts/callers.ts";
import type { Config } from "./config.ts";
import type { ConnectionCap } from "./connection-cap.ts";
import { timeQueries } from "./db/timed.ts";
import { FEATURES } from "./features.ts";
import { createHttp } from "./http-server.ts";
import { EventBus } from "./kernel/bus.ts";
import {
  type Composed,
  composeFeatures,
  drainFeatures,
  featureLimits,
  type Kernel,
  mountPages,
  type Overrides,
  type Services,
  startFeatures,
  stopFeatures,
} from "./kernel/feature.ts";
import type { Authenticate } from "./kernel/operation.ts";
import { ResponseParts } from "./kernel/parts.ts";
import { Scheduler } from "./kernel/scheduler.ts";
import { defaultLimits, Settings } from "./kernel/settings.ts";
import { Metrics } from "./metrics/metrics.ts";
import { allOperations } from "./operations.ts";
import { openStore } from "./store/sql-store.ts";
import type { Store } from "./store/types.ts";

export { redactUrl } from "./http-server.ts";

/** What a test or tool may set instead of the defaults: each feature's own options, and these. */
export interface AppDeps extends Overrides {
  store?: Store;
  /** Where the structured log goes (tests read it to prove no secret is logged); stdout by default. */
  logStream?: NodeJS.WritableStream;
}

/** The running server's services by name, for tests and tools that look inside (`app.ctx.ladders`). */
export type AppView = Services & { config: Config; bus: EventBus; scheduler: Scheduler; settings: Settings };

export interface App {
  http: FastifyInstance;
  ctx: AppView;
  /** Listens; resolves with the bound port. */
  listen(): Promise<number>;
  /** Begins the drain of SPEC 3.10 and resolves once sockets are closed (matches done or timeout). */
  drain(): Promise<void>;
  /** Stops everything (tests; the end of a drain). */
  close(): Promise<void>;
  /**
   * The second stop signal: every socket is closed at once with 1012 `server restarting` (running matches are
   * abandoned, SPEC 3.3) and the close frames get up to `graceMs` to leave before the process exits.
   */
  stopNow(graceMs?: number): Promise<void>;
  /** The operator's metrics, when turned on (--metrics-token or --metrics-listen); null otherwise. */
  metrics: Metrics | null;
  /** Where the separate metrics listener (--metrics-listen) is bound, once listen() has run; else null. */
  metricsAddress(): AddressInfo | null;
  /** The server-wide connection cap with its counts (open, evicted idle, refused). */
  connectionCap: ConnectionCap;
}

export async function buildApp(config: Config, deps: AppDeps = {}): Promise<App> {
  const { store: given, logStream, ...overrides } = deps;
  const { http, log, connections } = createHttp(config, logStream);
  // Built before the store, so every statement is timed from the first request on.
  const metrics = config.metricsToken || config.metricsListen ? new Metrics() : null;
  const store =
    given ??
    (await openStore(
      { dataDir: config.dataDir, ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}) },
      metrics ? (db) => timeQueries(db, metrics.queryTimer(db.driver)) : undefined,
    ));
  let draining = false;
  let composed: Composed | null = null;
  const kernel: Kernel = {
    config,
    log,
    http,
    overrides,
    db: store.db,
    work: (fn) => store.work(fn),
    bus: new EventBus(log),
    settings: new Settings(defaultLimits(config), featureLimits(FEATURES)),
    scheduler: new Scheduler(log),
    parts: new ResponseParts(),
    operations: allOperations(),
    boundOperations: () => composed?.operations ?? [],
  };
  const provided: Partial<Services> = {
    store,
    meters: metrics,
    connections,
    lifecycle: { draining: () => draining },
  };
  // Each operation's auth rule, checked by the accounts once they are built (no request comes in before).
  const authenticate: Authenticate = (rule, req, reply) =>
    authenticateWith(composed!.services.accounts!)(rule, req, reply);
  const built = await composeFeatures(http, kernel, FEATURES, provided, authenticate);
  composed = built;
  await mountPages(http, FEATURES, built);
  await startFeatures(FEATURES, kernel, built);
  const services = built.services as Services;
  const ctx: AppView = {
    ...services,
    config,
    bus: kernel.bus,
    scheduler: kernel.scheduler,
    settings: kernel.settings,
  };

  let metricsAddress: AddressInfo | null = null;
  let closed = false;
  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    kernel.scheduler.stop();
    await stopFeatures(FEATURES, kernel, built);
    await http.close();
    await store.close();
  }

  return {
    http,
    ctx,
    metrics,
    metricsAddress: () => metricsAddress,
    connectionCap: connections.cap,
    async listen() {
      await http.listen({ port: config.port, host: config.host, backlog: config.listenBacklog });
      metricsAddress = (await services.metricsServer?.listen()) ?? null;
      const addr = http.server.address();
      return typeof addr === "object" && addr ? addr.port : config.port;
    },
    async drain() {
      if (draining) return;
      draining = true;
      const deadline = new Date(Date.now() + config.drainTimeoutMs);
      log.info({ matches: services.matches.size, deadline }, "draining");
      await Promise.race([
        drainFeatures(FEATURES, built, deadline.toISOString()),
        new Promise<void>((resolve) => setTimeout(resolve, config.drainTimeoutMs).unref()),
      ]);
      await close();
    },
    close,
    async stopNow(graceMs = 2_000) {
      services.hub.closeAll();
      services.humanPlay.closeAll();
      http.server.closeIdleConnections();
      // Done when every connection is gone (each peer answered the close frame, or its socket was ended).
      const until = Date.now() + graceMs;
      while (Date.now() < until) {
        const open = await new Promise<number>((resolve) =>
          http.server.getConnections((_e, n) => resolve(n)),
        );
        if (open === 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}
