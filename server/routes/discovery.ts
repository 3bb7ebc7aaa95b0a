// Public discovery: GET /api (the index a bot author or agent starts from), GET /api/status, and the
// generated docs a bot needs to play (rules and message schemas).
import type { FastifyInstance } from "fastify";
import { jsonSchemas, rulesDocument } from "../../engine/docs-gen.ts";
import { MAP_NAMES } from "../../engine/rules.ts";
import { SIMULATOR_PACKAGE, VERSIONS } from "../../engine/versions.ts";
import { accountsInfo } from "../auth/discovery-info.ts";
import type { AppContext } from "../context.ts";
import { errors } from "../errors.ts";
import { DISCOVERY_EVERY, REMATCH_HOLD_MS } from "../matchmaker/matchmaker.ts";
import { QUALIFYING_GAMES } from "../ratings/book.ts";
import { IDLE_MESSAGES_PER_SECOND, MAX_MESSAGE_BYTES, MESSAGES_PER_TICK } from "../socket/hub.ts";

export function discoveryRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { config } = ctx;
  const base = config.publicUrl;
  const wsBase = base.replace(/^http/, "ws");

  app.get("/api", async () => ({
    bot_endpoint: `${wsBase}/bot`,
    accounts: accountsInfo(ctx),
    authentication_required: !config.anonymousDev,
    mcp: null,
    openapi: `${base}/openapi.json`,
    llms_txt: `${base}/llms.txt`,
    docs: `${base}/docs`,
    bot_code: `${base}/download/bots`,
    versions: { ...VERSIONS, schema: ctx.store.schema },
    onboarding: {
      account_url: `${base}/account`,
      signup_url: `${base}/account`,
      guide_url: `${base}/guide/bot-guide`,
      signup_endpoint: null,
      token_endpoint: null,
      handle_endpoint: `${base}/api/account/handle`,
      registration_endpoint: `${base}/api/bots`,
      claim_endpoint: `${base}/api/account/claim`,
    },
    operational_policy: {
      startup_ms: config.startupMs,
      tick_ms: config.tickMs,
      match_budget_ms: config.matchBudgetMs,
      max_consecutive_failures: 10,
      reconnect_grace_ms: config.reconnectGraceMs,
      max_message_bytes: MAX_MESSAGE_BYTES,
      messages_per_tick: MESSAGES_PER_TICK,
      idle_messages_per_second: IDLE_MESSAGES_PER_SECOND,
      matchIntervalMs: config.matchIntervalMs,
      maxConcurrentMatches: config.maxConcurrent,
      maxConcurrentPerOwner: config.ownerConcurrency,
      matchesPerHourPerBot: config.hourlyQuota,
      matchesPerDayPerOwner: config.dailyOwnerQuota,
      maxBotsPerOwner: config.maxBots,
      newVersionsPerDay: config.newVersionsPerDay,
      qualifyingGames: QUALIFYING_GAMES,
      rematch_hold_ms: REMATCH_HOLD_MS,
      discovery_share: `1/${DISCOVERY_EVERY}`,
      replaysPerBot: 200,
      drain_timeout_ms: config.drainTimeoutMs,
      ping_interval_ms: config.pingIntervalMs,
      anonymous_development: config.anonymousDev,
    },
    changelog: {
      page: `${base}/changelog`,
      markdown: `${base}/docs/changelog`,
      json: `${base}/api/changelog`,
    },
    simulator: {
      javascript: `${base}/download/arena-sim.mjs`,
      script: `${base}/download/arena-sim.js`,
      python: `${base}/download/${SIMULATOR_PACKAGE}-${VERSIONS.release}-py3-none-any.whl`,
      docs: `${base}/docs/simulator`,
    },
    maps: MAP_NAMES,
    endpoints: [
      "GET /api",
      "GET /api/status",
      "GET /api/leaderboard?ladder=",
      "GET /api/lobby?ladder=",
      "GET /api/bots/<name>?ladder=",
      "GET /api/bots/<name>/ratings?ladder=&days=",
      "GET /api/users/<handle>?ladder=",
      "GET /api/matches?ladder=&bot=&limit=&stats=",
      "GET /api/matches/<id>",
      "GET /api/matches/<id>/stats",
      "GET /replays/<id>.jsonl.gz",
      "POST /api/bots",
      "GET /api/me",
      "POST /api/me/versions",
      "POST /api/me/versions/<label>/retire",
      "POST /api/me/token",
      "GET /docs/rules.json",
      "GET /docs/schema/<name>.json",
      "WS /bot",
    ],
  }));

  app.get("/api/status", async (req) => {
    const ladder = (req.query as { ladder?: string }).ladder;
    if (ladder !== undefined && ladder !== "public") throw errors.unknownLadder(ladder);
    const running = [...ctx.matches.values()];
    return {
      online: ctx.lobby.online().map((p) => ({
        name: p.bot.name,
        display_name: p.bot.display_name,
        house: p.bot.house,
        version: p.version,
        state: p.state,
        ladder_id: p.ladderId,
      })),
      matches: running.map((m) => ({
        id: m.id,
        ladder_id: m.setup.ladderId,
        tick: m.tick,
        names: m.seats.map((s) => s.participant.bot.name),
        display_names: m.seats.map((s) => s.participant.bot.display_name),
      })),
      capacity: { running: running.length, max: config.maxConcurrent },
      draining: ctx.draining,
    };
  });

  const rules = rulesDocument();
  const schemas = jsonSchemas();
  app.get("/docs/rules.json", async () => rules);
  app.get("/docs/schema/:name", async (req) => {
    const name = (req.params as { name: string }).name.replace(/\.json$/, "");
    const schema = schemas[name] ?? schemas[`server-${name}`] ?? schemas[`bot-${name}`];
    if (!schema) throw errors.notFound(`schema ${JSON.stringify(name)}`);
    return schema;
  });
}
