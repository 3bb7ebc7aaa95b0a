// Builds the whole server from a Config: storage, the match pool, the lobby and matchmaker, the bot socket
// hub and the HTTP routes. main.ts only parses config, listens and wires signals; tests call buildApp and
// listen on port 0.
import { randomBytes } from "node:crypto";
import type { AddressInfo, Socket } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { HOUSE_BOTS } from "../engine/bots/index.ts";
import { MAP_NAMES } from "../engine/rules.ts";
import { MatchPool } from "../pool/pool.ts";
import { identityProvider } from "./auth/identity-provider.ts";
import { setUpAccounts } from "./auth/setup.ts";
import { BotDirectory } from "./bots/directory.ts";
import { clientAddress, trustRule } from "./client-address.ts";
import type { Config } from "./config.ts";
import type { ConnectionCap } from "./connection-cap.ts";
import type { AppContext } from "./context.ts";
import { isDbUnavailable } from "./db/db.ts";
import { timeQueries } from "./db/timed.ts";
import { ApiError, CODES } from "./errors.ts";
import { imageBodies } from "./events/image.ts";
import { Events, Flags } from "./events/service.ts";
import { FEATURES } from "./features.ts";
import { capConnections, endUpgrade, serverOptions } from "./http-limits.ts";
import { HumanPlay } from "./human/human-play.ts";
import { EventBus } from "./kernel/bus.ts";
import { composeFeatures, type Kernel, mountPages, type Services } from "./kernel/feature.ts";
import { inputRule } from "./kernel/input.ts";
import { type Authenticate, mountOperations } from "./kernel/operation.ts";
import { Scheduler } from "./kernel/scheduler.ts";
import { defaultLimits, Settings } from "./kernel/settings.ts";
import { Lobby } from "./ladder/lobby.ts";
import { DEFAULT_MANIFEST_FILE, loadManifest, type Manifest, phaseAt } from "./ladders/manifest.ts";
import { Membership } from "./ladders/membership.ts";
import { LadderReads } from "./ladders/reads.ts";
import { Ladders } from "./ladders/registry.ts";
import { MailService } from "./mail/mail.ts";
import { unsubscribePage } from "./mail/page.ts";
import { acceptUnsubscribeForms } from "./mail/routes.ts";
import { Metrics } from "./metrics/metrics.ts";
import { type MetricsListener, serveMetrics } from "./metrics/routes.ts";
import { allOperations } from "./operations.ts";
import { bothMeters, HealthMonitor } from "./ops/health.ts";
import { HUMAN_TICK_MS, LiveMatches } from "./play/live-matches.ts";
import { ReplayFiles } from "./replays.ts";
import { DurableResults, type DurableResultsDeps } from "./results/durable-results.ts";
import { ResultJournal } from "./results/journal.ts";
import { StallClock } from "./runner/stall-clock.ts";
import { AddressLimits, tooManyConnects } from "./socket/address-limits.ts";
import { BotHub } from "./socket/hub.ts";
import { serverBusy, UpgradeBudget } from "./socket/upgrade-budget.ts";
import { openStore } from "./store/sql-store.ts";
import type { MatchRecord, Store } from "./store/types.ts";
import { sendErrorPage, sendUnavailablePage } from "./web/layout.ts";

/** Seconds a client is asked to wait before retrying while the database is unreachable. */
const DB_RETRY_AFTER_S = 5;

/** A GET of a page (not the JSON API, replay files, schemas or sockets): errors are answered as pages. */
function isPageRequest(req: { method: string; url: string }): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const path = req.url.split("?")[0]!;
  return !/^\/(?:api|replays|docs\/schema|openapi\.json|downloads|\.well-known)(?:\/|$)/.test(path);
}
/** A page route asked for by a browser (it accepts HTML): errors answer as a page in the site's layout. */
function wantsPage(req: { method: string; url: string; headers: { accept?: string } }): boolean {
  return isPageRequest(req) && /\btext\/html\b/.test(req.headers.accept ?? "");
}

export interface AppDeps {
  store?: Store;
  /** Seconds a player waits for another player before a house bot is offered (default 2). */
  houseWaitMs?: number;
  workerTimeoutMs?: number;
  /** Tests shorten the fixed two-minute turn of human games to see its timeouts. */
  humanTickMs?: number;
  /** The ladders to run, instead of the manifest file (tests). */
  manifest?: Manifest;
  /** Where the structured log goes (tests read it to prove no secret is logged); stdout by default. */
  logStream?: NodeJS.WritableStream;
  /** Timing of the result journal (tests shorten the backoff). */
  results?: Pick<DurableResultsDeps, "commitTimeoutMs" | "retryMinMs" | "retryMaxMs">;
}

const SECRET_PARAMS = /([?&](?:token|token_hash|ticket|code|refresh_token|access_token|key)=)[^&#]*/gi;
/** A request URL with the values of secret-bearing query parameters replaced. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, "$1[redacted]");
}

export interface App {
  http: FastifyInstance;
  ctx: AppContext;
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
  const trust = trustRule(config.trustProxy);
  const http = Fastify({
    logger: {
      level: config.logLevel,
      redact: [
        "req.headers.authorization",
        'req.headers["x-owner-key"]',
        "token",
        "*.token",
        "*.password",
        "*.email",
      ],
      // Request lines are logged without the secrets some links carry in their query (emailed sign-in
      // links, play tickets, PKCE codes).
      serializers: {
        req: (req: { method: string; url: string; ip?: string }) => ({
          method: req.method,
          url: redactUrl(req.url),
          remoteAddress: req.ip,
        }),
      },
      ...(deps.logStream ? { stream: deps.logStream } : {}),
    },
    bodyLimit: 64 * 1024,
    forceCloseConnections: true,
    // `req.ip` (rate-limit keys, sessions, logs) is the client behind a trusted proxy (server/client-address.ts).
    trustProxy: trust ?? false,
    // Slow senders, greedy clients and requests Node refuses (server/http-limits.ts).
    ...serverOptions(config),
  });
  const connections = capConnections(http.server, config, trust);
  const log = http.log as unknown as Logger;
  // Before every route: what no route accepts is refused here, once (server/kernel/input.ts).
  inputRule(http);
  imageBodies(http);
  // Built before the store, so every statement is timed from the first request on.
  const metrics = config.metricsToken || config.metricsListen ? new Metrics() : null;
  const store =
    deps.store ??
    (await openStore(
      {
        dataDir: config.dataDir,
        ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
      },
      metrics ? (db) => timeQueries(db, metrics.queryTimer(db.driver)) : undefined,
    ));
  const pool = new MatchPool({ workers: config.workers });
  const lobby = new Lobby();
  const replays = new ReplayFiles(config.dataDir);
  // Results journaled during a database outage (or before a crash) go to the database first, so the sweep
  // below and the rating books see them; the live matches' `committed` hook is set once they exist.
  let onCommitted: (r: MatchRecord) => void = () => {};
  const results = new DurableResults({
    store,
    journal: new ResultJournal(config.dataDir),
    log,
    onCommitted: (r) => onCommitted(r),
    ...deps.results,
  });
  await results.recover();
  const referenced = await store.replayFiles();
  for (const r of results.pending()) if (r.replay_file) referenced.add(r.replay_file);
  const orphans = await replays.sweepOrphans(referenced);
  if (orphans > 0) log.warn({ orphans }, "removed replay files of matches that were never stored");
  const bus = new EventBus(log);
  const scheduler = new Scheduler(log);
  const settings = new Settings(defaultLimits(config));
  const manifest = deps.manifest ?? loadManifest(config.laddersFile ?? DEFAULT_MANIFEST_FILE);
  const stalls = new StallClock();
  const health = new HealthMonitor();
  const live = new LiveMatches({
    pool,
    results,
    stalls,
    replays,
    log,
    bus,
    lobby,
    settings,
    publicUrl: config.publicUrl,
    workerTimeoutMs: deps.workerTimeoutMs ?? 15_000,
    humanTickMs: deps.humanTickMs ?? HUMAN_TICK_MS,
    // The admin health view always counts ticks; the Prometheus metrics too when they are on.
    tickMeter: (mode: string) => bothMeters(health.tickMeter(), metrics?.tickMeter(mode) ?? null),
  });
  onCommitted = (r) => live.committed(r);
  const matches = live.byId;
  const ctx = {
    config,
    store,
    pool,
    lobby,
    replays,
    log,
    matches,
    bus,
    settings,
    draining: false,
    health,
    operations: allOperations(),
  } as AppContext;
  // The hub, lobby and matches are built below: the accounts read them when a check runs.
  const setUp = await setUpAccounts(
    { config, store, log },
    {
      disconnect: (botId, code) => ctx.hub.disconnect(botId, code),
      liveBot: (botId) => lobby.get(botId),
      inMatch: (botId) => {
        for (const m of matches.values())
          if (m.seats.some((s) => s.participant.bot.id === botId)) return true;
        return false;
      },
    },
    http,
  );
  ctx.accounts = setUp.accounts;
  ctx.identity = setUp.identity;

  let events: Events | undefined;
  const ladders = new Ladders(manifest, {
    store,
    lobby,
    settings,
    log,
    seatBalance: await store.seatBalance(),
    running: (ladderId) => live.running(ladderId),
    runningForOwner: (owner) => live.runningForOwner(owner),
    start: (plan, ladderId) => live.start(plan, ladderId, "ranked"),
    audit: (kind, subject, detail) =>
      void store.audit(kind, subject, detail).catch((err) => log.error({ err }, "audit write failed")),
    houseWaitMs: deps.houseWaitMs ?? 2_000,
    opponentRequests: {
      requested: (botId, ladderId) => events?.requested(botId, ladderId) ?? null,
      served: (botId) => events?.served(botId),
    },
    ...(metrics ? { passTimer: (id: string) => metrics.passTimer(id) } : {}),
  });
  await settings.load(
    store,
    ladders.all().map((l) => l.id),
  );
  // Windows moved by staff outrank the manifest's (the phase is what they make it now, not an announced change).
  for (const [id, w] of await store.ladders.schedules()) {
    const l = ladders.get(id);
    if (!l) continue;
    ladders.setWindow(id, w.opens_at, w.closes_at);
    l.phase = phaseAt(l.def, Date.now());
  }
  for (const l of ladders.all()) await l.load(store, results.pending());
  ctx.ladders = ladders;
  live.useLadders(ladders);
  const membership = new Membership(store, ladders, bus);
  await membership.load();
  ctx.membership = membership;
  // Timed events (server/events/): earning from committed results, phases on the scheduler.
  events = new Events({
    store,
    ladders,
    membership,
    lobby,
    bus,
    scheduler,
    log,
    flags: Flags.load({ file: config.eventFlagsFile, json: config.eventFlags }),
    houseBots: config.houseBots,
    publicUrl: config.publicUrl,
  });
  await events.load(manifest);
  ctx.events = events;
  bus.on("MatchFinished", (e) => events?.onMatch(e));
  bus.on("LadderWindowMoved", (e) => events?.windowMoved(e));
  // Revocation closes the way to queue at once: a waiting bot of the account leaves that ladder's queue.
  bus.on("MembershipChanged", (e) => {
    if (e.to !== "revoked") return;
    for (const p of lobby.waiting(e.ladderId))
      if (!p.house && p.bot.account_id === e.accountId) {
        p.state = "idle";
        p.conn?.error("enrollment_required", `your membership of the ladder ${e.ladderId} was revoked`);
      }
  });
  const passAll = () => {
    for (const l of ladders.all()) l.matchmaker.pass();
  };
  bus.on("LadderPhaseChanged", (e) => {
    log.info(e, "ladder phase changed");
    if (e.to === "open") ladders.require(e.ladderId).matchmaker.pass();
    // A closed ladder starts nothing more: its queue is told so and emptied (SPEC 3.1).
    if (e.to === "closed")
      for (const p of lobby.waiting(e.ladderId)) {
        if (p.house) continue;
        p.state = "idle";
        p.conn?.error("ladder_closed", `the ladder ${e.ladderId} has closed; no ranked match starts on it`);
      }
  });
  // A banned account's bots are disconnected and refused while the ban lasts (SPEC 3.6).
  bus.on("AccountBanned", async (e) => {
    for (const b of await store.accounts.accountBots(e.accountId))
      ctx.accounts.disconnect(b.id, "account_banned");
  });
  // Leaderboards follow committed results.
  bus.on("MatchFinished", (e) => ladders.get(e.match.ladder_id)?.leaderboard.recordMatch(e.match));
  ctx.bots = new BotDirectory(store);
  ctx.live = live;
  ctx.reads = new LadderReads({
    store,
    ladders,
    lobby,
    bots: ctx.bots,
    live,
    settings,
    publicUrl: config.publicUrl,
    draining: () => ctx.draining,
    journaled: () => results.pending(),
  });
  scheduler.add(ladders.phaseJob(bus));
  scheduler.add(events.phaseJob());
  ctx.scheduler = scheduler;
  // Email: the outbox sender and the mail producers run on the scheduler (server/mail/).
  ctx.mail = new MailService({
    config,
    store,
    settings,
    scheduler,
    log,
    mailer: ctx.identity?.mailer ?? null,
    admins: async () =>
      (await store.accounts.admins()).filter((a) => ctx.accounts.adminNow(a)).map((a) => a.id),
    ladders: () => ladders,
  });
  await ctx.mail.start();
  bus.on("MatchFinished", (e) => ctx.mail.producers.onMatchFinished(e));
  // Reminders of the events' own windows go out as event_reminders mail.
  scheduler.add(events.reminderJob((r) => ctx.mail.producers.remindEvent(r)));
  // The achievement mail (SPEC 6.3), once per account, event and achievement (its dedupe key); never the flag.
  bus.on("AchievementEarned", async (e) => {
    await ctx.mail.producers.achievementEarned({
      accountId: e.accountId,
      eventId: e.eventId,
      event: e.eventName,
      achievementId: e.achievementId,
      achievement: e.achievementName,
    });
  });
  let pokeQueued = false;
  const addressLimits = new AddressLimits({
    connectsPerMinute: config.socketConnectsPerMinute,
    authFailuresPerMinute: config.socketAuthFailuresPerMinute,
  });
  const upgradeBudget = new UpgradeBudget(config.upgradesPerSecond);
  const hub = new BotHub({
    authFailed: (addr) => addressLimits.failed(addr),
    authenticated: () => upgradeBudget.give(),
    config,
    store,
    lobby,
    log,
    limits: () => settings.limits(),
    botByToken: (token) => ctx.bots.byToken(token),
    matchOf: (botId) => live.ofBot(botId),
    estimatedWaitS: (p) => ladders.require(p.ladderId).estimatedWaitS(p),
    admit: (bot) => ctx.accounts.admit(bot),
    mayQueue: async (bot, ladderId) => {
      const r = await ladders.mayQueue(bot, ladderId, (l, a) => membership.state(l, a));
      return "code" in r ? r : (events?.mayQueue(bot, r.ladderId) ?? r);
    },
    poke: () => {
      if (pokeQueued) return;
      pokeQueued = true;
      setImmediate(() => {
        pokeQueued = false;
        passAll();
      });
    },
  });
  ctx.hub = hub;
  // Human games start at once: the Public ladder's house bots are always queued (SPEC 1.2 rule 8).
  const humanPlay = new HumanPlay({
    config,
    log,
    store,
    lobby,
    matches,
    maxConcurrentMatches: () => settings.limits().maxConcurrentMatches,
    start: (human, house) =>
      live.start(
        {
          seats: [human, house],
          seed: randomBytes(4).readUInt32LE(0) >>> 1,
          map: MAP_NAMES[randomBytes(1)[0]! % MAP_NAMES.length]!,
        },
        ladders.main.id,
        "human",
      ),
  });
  ctx.humanPlay = humanPlay;

  if (config.houseBots) {
    for (const strategy of Object.values(HOUSE_BOTS)) {
      const bot =
        (await store.botByName(strategy.name)) ??
        (
          await store.createBot({
            name: strategy.name,
            owner: "house",
            house: true,
            display_name: strategy.display_name,
          })
        ).bot;
      await store.ensureVersion(bot.id, strategy.version);
      lobby.join(bot, null, strategy);
    }
  }

  const passTimer = setInterval(passAll, 250);
  passTimer.unref();

  // No response is to be read as anything but its declared type (JSON answers included, not only pages).
  http.addHook("onSend", async (_req, reply, payload) => {
    reply.header("x-content-type-options", "nosniff");
    return payload;
  });
  http.setErrorHandler((err, req, reply) => {
    // The database is unreachable for now: a retryable 503, as a page for page routes (so crawlers keep
    // the page), and in the error shape elsewhere.
    if (isDbUnavailable(err)) {
      log.warn({ err: (err as Error).message, url: redactUrl(req.url) }, "database unavailable");
      if (isPageRequest(req)) return sendUnavailablePage(reply, DB_RETRY_AFTER_S);
      return reply
        .code(503)
        .header("retry-after", String(DB_RETRY_AFTER_S))
        .send({ error: CODES.unavailable.message, code: "unavailable" });
    }
    if (err instanceof ApiError) return reply.code(err.status).send(err.body());
    const e = err as { statusCode?: number; code?: string; message: string };
    if (e.statusCode === 413 || e.code === "FST_ERR_CTP_BODY_TOO_LARGE")
      return reply.code(413).send({ error: "request body too large", code: "too_large" });
    if (e.statusCode === 415)
      return reply
        .code(415)
        .send({ error: `${e.message}; send application/json`, code: "unsupported_media_type" });
    if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500)
      return reply.code(e.statusCode).send({ error: e.message, code: "bad_request" });
    log.error({ err }, "unhandled error");
    if (wantsPage(req))
      return sendErrorPage(reply, 500, "Something went wrong", "This page failed to render. Try again.");
    return reply.code(500).send({ error: "internal error", code: "internal" });
  });
  // A browser asking for an address that does not exist gets a page in the site's layout; everything else
  // (scripts, API clients, /api/...) gets the JSON error.
  http.setNotFoundHandler((req, reply) =>
    wantsPage(req)
      ? sendErrorPage(reply, 404, "Page not found", `There is nothing at ${req.url.split("?")[0]}.`)
      : reply.code(404).send({ error: `no route ${req.method} ${req.url.split("?")[0]}`, code: "not_found" }),
  );

  let metricsListener: MetricsListener | null = null;
  let metricsAddress: AddressInfo | null = null;
  if (metrics) {
    metrics.watch({
      pool,
      ladderIds: () => ladders.all().map((l) => l.id),
      queueLength: (id) => lobby.waiting(id).filter((p) => !p.house).length,
      running: (id) => live.running(id),
      sockets: () => ({ bot: hub.connections, human: humanPlay.connections }),
      connections: () =>
        new Promise((resolve) => http.server.getConnections((err, n) => resolve(err ? 0 : n))),
      draining: () => ctx.draining,
    });
    metricsListener = serveMetrics(http, metrics, config);
  }

  // Each operation's auth rule, checked once before its input is read.
  const authenticate: Authenticate = async (rule, req, reply) => {
    switch (rule) {
      case "none":
        return null;
      case "admin":
        return ctx.accounts.admin(req, reply);
      case "registrant":
        return ctx.accounts.registrant(req);
      case "agent_key":
        return ctx.accounts.agentBearer(req);
      case "bot_token":
        return ctx.accounts.botBearer(req);
      default:
        return ctx.accounts.session(req, reply, { handle: rule === "session_handle" });
    }
  };
  acceptUnsubscribeForms(http);
  health.watch(http);
  health.start({
    profiling: metrics !== null,
    sample: async () => {
      const t0 = performance.now();
      const ok = await store.mail.db.query("SELECT 1").then(
        () => true,
        () => false,
      );
      return {
        botSockets: hub.connections,
        humanSockets: humanPlay.connections,
        runningMatches: matches.size,
        poolQueued: pool.queued,
        dbMs: ok ? Math.round((performance.now() - t0) * 100) / 100 : null,
      };
    },
  });
  // The features (server/features.ts), handed the kernel and the domains not moved yet (issue 32).
  const kernel: Kernel = {
    config,
    log,
    db: store.db,
    work: (fn) => store.work(fn),
    bus,
    settings,
    scheduler,
    operations: ctx.operations,
    boundOperations: () => ctx.boundOperations,
  };
  const provided: Partial<Services> = {
    mail: ctx.mail,
    store,
    replays,
    health,
    lifecycle: { draining: () => ctx.draining },
    ladders,
    membership,
    reads: ctx.reads,
    lobby,
    live,
    matches,
    hub,
    accounts: ctx.accounts,
    identity: ctx.identity,
    humanPlay,
    botDirectory: ctx.bots,
    events,
  };
  const composed = await composeFeatures(http, kernel, FEATURES, provided, authenticate);
  ctx.services = composed.services as Services;
  ctx.mcp = ctx.services.mcp;
  ctx.boundOperations = composed.operations;
  if (setUp.provider) identityProvider(http, setUp.provider);
  await mountPages(http, FEATURES, composed);
  unsubscribePage(http);

  // The WebSocket doors. Every refusal here is one small write before any work: the client's address
  // budgets (the real client's address, behind a trusted proxy), then the server's budget of unauthenticated
  // upgrades; only then the handshake and the token or ticket check.
  http.server.on("upgrade", (req, socket: Socket, head) => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/human" && path !== "/bot")
      return endUpgrade(
        socket,
        'HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n{"error":"no WebSocket at this path","code":"not_found"}',
      );
    const addr = clientAddress(req, trust);
    if (!connections.holdUpgrade(socket, addr)) return;
    const wait = addressLimits.admit(addr);
    if (wait !== null) return endUpgrade(socket, tooManyConnects(wait));
    const busy = upgradeBudget.take();
    if (busy !== null) return endUpgrade(socket, serverBusy(busy));
    if (path === "/human") return humanPlay.handleUpgrade(req, socket, head);
    hub.handleUpgrade(req, socket, head, addr);
  });

  let closed = false;
  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    clearInterval(passTimer);
    scheduler.stop();
    ctx.mail.stop();
    health.stop();
    for (const l of ladders.all()) l.matchmaker.paused = true;
    hub.closeAll();
    humanPlay.closeAll();
    // Abandoned matches leave nothing (no row, no `end`: their sockets are closed); a match already ending
    // finishes its journal write, so wait a little before the store closes below.
    // A result still waiting for the database stays in the journal for the next start.
    results.stop();
    stalls.stop();
    await Promise.race([live.abandonAll(), new Promise((r) => setTimeout(r, 5_000).unref())]);
    await http.close();
    await metricsListener?.close();
    await pool.close().catch(() => {});
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
      if (metricsListener && config.metricsListen)
        metricsAddress = await metricsListener.listen(config.metricsListen.host, config.metricsListen.port);
      const addr = http.server.address();
      return typeof addr === "object" && addr ? addr.port : config.port;
    },
    async drain() {
      if (ctx.draining) return;
      ctx.draining = true;
      for (const l of ladders.all()) l.matchmaker.paused = true;
      const deadline = new Date(Date.now() + config.drainTimeoutMs);
      hub.drain(deadline.toISOString());
      humanPlay.drain(deadline.toISOString());
      log.info({ matches: matches.size, deadline }, "draining");
      await Promise.race([
        live.whenIdle(),
        new Promise<void>((resolve) => setTimeout(resolve, config.drainTimeoutMs).unref()),
      ]);
      await close();
    },
    close,
    async stopNow(graceMs = 2_000) {
      hub.closeAll();
      humanPlay.closeAll();
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
