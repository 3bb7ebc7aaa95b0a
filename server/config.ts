// Command-line flags and environment variables, parsed and validated once at start-up. A bad value stops
// the start with a message naming the flag. Only server/main.ts calls parseConfig; everything else receives
// the frozen Config.
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import { z } from "zod";
import { trustRule } from "./client-address.ts";

/**
 * Match worker threads by default: one per core but one, at least one. The front's thread (sockets, runner,
 * matchmaker) needs a core of its own, and every extra worker is one more thread for the front to wake per
 * event-loop turn: on 2 cores one worker carried as many ticks as two or four at less CPU per tick
 * (docs/operations.md, "Choosing --workers and capacity").
 */
export const defaultWorkers = (): number => Math.max(1, cpus().length - 1);

const FLAGS = {
  port: { type: "string", help: "HTTP and WebSocket port", def: "8080" },
  host: { type: "string", help: "address to listen on", def: "0.0.0.0" },
  "data-dir": { type: "string", help: "directory for the embedded database and replays", def: "./data" },
  "database-url": { type: "string", help: "PostgreSQL URL (or DATABASE_URL); embedded PGlite when absent" },
  cluster: {
    type: "string",
    help: "join a cluster of nodes through NATS with JetStream at this address, e.g. nats://127.0.0.1:4222 (needs PostgreSQL)",
  },
  "failover-journal": {
    type: "boolean",
    help: "cluster: journal each match's inputs per tick so another node resumes it if this one dies (default on; --no-failover-journal: such matches end by the crash rule)",
  },
  "public-url": { type: "string", help: "public base address for links (default http://localhost:<port>)" },
  workers: {
    type: "string",
    help: "match worker threads (default: cores - 1, at least 1)",
    def: String(defaultWorkers()),
  },
  "anonymous-dev": { type: "boolean", help: "allow anonymous registration (local development only)" },
  accounts: {
    type: "string",
    help: "identity provider: builtin (served at /auth/v1), external, or none (needs --anonymous-dev)",
    def: "builtin",
  },
  "auth-url": { type: "string", help: "external identity provider's auth base address (GoTrue-shaped)" },
  "auth-publishable-key": {
    type: "string",
    help: "external provider's publishable key (or AUTH_PUBLISHABLE_KEY)",
  },
  "auth-jwks-url": { type: "string", help: "external provider's JWKS address for access-token signatures" },
  "auth-jwt-secret": { type: "string", help: "external provider's HS256 shared secret (or AUTH_JWT_SECRET)" },
  "auth-issuer": { type: "string", help: "expected access-token issuer (default <auth-url>)" },
  "auth-audience": { type: "string", help: "expected access-token audience", def: "authenticated" },
  "admin-emails": {
    type: "string",
    help: "comma-separated confirmed emails that are admins (or ADMIN_EMAILS)",
  },
  "smtp-url": { type: "string", help: "SMTP server for account emails, e.g. smtp://host:587 (or SMTP_URL)" },
  "mail-from": {
    type: "string",
    help: "sender address of account emails",
    def: "Arena Ladder <no-reply@localhost>",
  },
  "smtp-timeout": {
    type: "string",
    help: "seconds the SMTP server may take to connect and greet, and to answer each step of a send",
    def: "30",
  },
  "auth-rate-limit": {
    type: "string",
    help: "sign-in, sign-up and recovery requests per minute per client address (one budget for all)",
    def: "30",
  },
  "registration-rate-limit": {
    type: "string",
    help: "bot registrations and key creations per hour per account",
    def: "60",
  },
  "match-interval": { type: "string", help: "minimum seconds between one bot's match starts", def: "0.3" },
  "max-concurrent": { type: "string", help: "matches running at once, whole server", def: "320" },
  "owner-concurrency": { type: "string", help: "matches running at once per owner", def: "40" },
  "hourly-quota": { type: "string", help: "matches per hour per bot (house bots exempt)", def: "10000" },
  "daily-owner-quota": {
    type: "string",
    help: "matches per day per owner (house bots exempt)",
    def: "50000",
  },
  "max-bots": { type: "string", help: "bots per owner, retired ones not counted", def: "50" },
  "new-versions-per-day": {
    type: "string",
    help: "new version labels per bot per day (house bots exempt)",
    def: "1000",
  },
  "drain-timeout": { type: "string", help: "seconds to wait for active matches on shutdown", def: "600" },
  "tick-ms": { type: "string", help: "per-turn deadline in ms", def: "1000" },
  "startup-ms": { type: "string", help: "window to send ready in ms", def: "10000" },
  "match-budget-ms": { type: "string", help: "total reply-time budget per match in ms", def: "300000" },
  "reconnect-grace-ms": {
    type: "string",
    help: "match resume window after a disconnect in ms",
    def: "10000",
  },
  "ping-interval": { type: "string", help: "seconds between server WebSocket pings", def: "25" },
  "socket-connects-per-minute": {
    type: "string",
    help: "bot and human WebSocket connects per minute per client address (more are answered 429)",
    def: "600",
  },
  "socket-auth-failures-per-minute": {
    type: "string",
    help: "failed bot-token checks per minute per client address before its connects are answered 429",
    def: "120",
  },
  "upgrades-per-second": {
    type: "string",
    help: "unauthenticated WebSocket upgrades per second, all addresses together (more are answered 503 before any token check; 0: no budget)",
    def: "200",
  },
  "trust-proxy": {
    type: "string",
    help: "reverse proxies whose X-Forwarded-For is believed: comma-separated addresses, CIDR ranges or loopback, linklocal, uniquelocal (default: none)",
  },
  "listen-backlog": {
    type: "string",
    help: "connections the kernel may hold waiting to be accepted",
    def: "511",
  },
  "headers-timeout": {
    type: "string",
    help: "seconds a client has to send a request's headers; a slower one is answered 408 and cut off",
    def: "10",
  },
  "request-timeout": {
    type: "string",
    help: "seconds a client has to send a whole request, body included (at least --headers-timeout)",
    def: "30",
  },
  "keep-alive-timeout": {
    type: "string",
    help: "seconds an idle keep-alive HTTP connection stays open",
    def: "5",
  },
  "max-connections": {
    type: "string",
    help: "open connections (HTTP and WebSocket) at once, whole server; beyond it the longest-idle HTTP connections are closed, else new ones refused",
    def: "10000",
  },
  "max-connections-per-address": {
    type: "string",
    help: "open connections at once from one client address (429 beyond it; 0: no cap; a --trust-proxy's own connections are not capped)",
    def: "256",
  },
  "metrics-token": {
    type: "string",
    help: "serve GET /metrics (Prometheus) on the main port to this bearer token, 16+ characters (or METRICS_TOKEN)",
  },
  "metrics-listen": {
    type: "string",
    help: "serve GET /metrics on a separate listener, host:port (e.g. 127.0.0.1:9464); also asks for the token if set",
  },
  ladders: { type: "string", help: "ladder manifest file (default: server/ladders/ladders.json)" },
  "event-flags": {
    type: "string",
    help: "JSON file of event flags {event: {achievement: flag}} (or EVENT_FLAGS_FILE; EVENT_FLAGS holds the JSON itself)",
  },
  "house-bots": { type: "boolean", help: "host the house bots (default on; --no-house-bots to disable)" },
  mcp: {
    type: "boolean",
    help: "serve the tool endpoint /mcp for AI agents and its OAuth server (default on with accounts; --no-mcp to disable)",
  },
  "log-level": { type: "string", help: "fatal, error, warn, info, debug, trace or silent", def: "info" },
  "log-format": {
    type: "string",
    help: "auto (readable lines on a terminal, request lines only at debug; JSON lines otherwise), pretty or json",
    def: "auto",
  },
  help: { type: "boolean", help: "show this help" },
} as const;

const num = (flag: string, min: number, max: number, int = true) =>
  z.coerce
    .number({ error: `--${flag} must be a number` })
    .refine((v) => Number.isFinite(v) && v >= min && v <= max && (!int || Number.isInteger(v)), {
      message: `--${flag} must be ${int ? "an integer" : "a number"} from ${min} to ${max}`,
    });

/** `host:port` or `[v6 address]:port`. */
const HOST_PORT = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:[\]]+)):(\d{1,5})$/;

const Schema = z.object({
  port: num("port", 0, 65535),
  host: z.string().min(1),
  dataDir: z.string().min(1),
  databaseUrl: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "--database-url must start with postgres:// or postgresql://")
    .optional(),
  cluster: z
    .string()
    .regex(/^nats:\/\/[^\s/]+$/, "--cluster must be a NATS address, nats://host:port")
    .optional(),
  publicUrl: z.url({ error: "--public-url must be an http(s) URL" }).optional(),
  workers: num("workers", 1, 256),
  anonymousDev: z.boolean(),
  accounts: z.enum(["builtin", "external", "none"], {
    error: "--accounts must be builtin, external or none",
  }),
  authUrl: z.url({ error: "--auth-url must be an http(s) URL" }).optional(),
  authPublishableKey: z.string().min(1).optional(),
  authJwksUrl: z.url({ error: "--auth-jwks-url must be an http(s) URL" }).optional(),
  authJwtSecret: z.string().min(32, "--auth-jwt-secret must be at least 32 characters").optional(),
  authIssuer: z.string().min(1).optional(),
  authAudience: z.string().min(1),
  adminEmails: z
    .string()
    .transform((s) =>
      s
        .split(",")
        .map((e) => e.trim().toLowerCase())
        .filter(Boolean),
    )
    .pipe(z.array(z.email({ error: "--admin-emails must be a comma-separated list of email addresses" }))),
  smtpUrl: z
    .string()
    .regex(/^smtps?:\/\//, "--smtp-url must start with smtp:// or smtps://")
    .optional(),
  mailFrom: z.string().min(3),
  // A hung mail server must cost seconds, not nodemailer's 10-minute socket default (issue 31, part 8).
  smtpTimeoutMs: num("smtp-timeout", 0.5, 600, false).transform((s) => Math.round(s * 1000)),
  authRateLimit: num("auth-rate-limit", 1, 1_000_000),
  registrationRateLimit: num("registration-rate-limit", 1, 1_000_000),
  matchIntervalMs: num("match-interval", 0, 3600, false).transform((s) => Math.round(s * 1000)),
  maxConcurrent: num("max-concurrent", 1, 100_000),
  ownerConcurrency: num("owner-concurrency", 1, 100_000),
  hourlyQuota: num("hourly-quota", 1, 10_000_000),
  dailyOwnerQuota: num("daily-owner-quota", 1, 100_000_000),
  maxBots: num("max-bots", 1, 100_000),
  newVersionsPerDay: num("new-versions-per-day", 1, 1_000_000),
  drainTimeoutMs: num("drain-timeout", 0, 86_400, false).transform((s) => Math.round(s * 1000)),
  tickMs: num("tick-ms", 10, 600_000),
  startupMs: num("startup-ms", 10, 600_000),
  matchBudgetMs: num("match-budget-ms", 10, 86_400_000),
  reconnectGraceMs: num("reconnect-grace-ms", 0, 600_000),
  pingIntervalMs: num("ping-interval", 0.05, 3600, false).transform((s) => Math.round(s * 1000)),
  socketConnectsPerMinute: num("socket-connects-per-minute", 1, 10_000_000),
  socketAuthFailuresPerMinute: num("socket-auth-failures-per-minute", 1, 10_000_000),
  upgradesPerSecond: num("upgrades-per-second", 0, 10_000_000),
  // The proxies' addresses as proxy-addr reads them (the rule Fastify's trustProxy uses): a malformed entry
  // stops the start here, naming the flag.
  trustProxy: z.string().transform((s, ctx) => {
    const list = s
      .split(",")
      .map((e) => e.trim())
      .filter(Boolean);
    try {
      trustRule(list);
    } catch (err) {
      ctx.addIssue({
        code: "custom",
        message: `--trust-proxy must be comma-separated IP addresses, CIDR ranges or loopback, linklocal, uniquelocal (${(err as Error).message})`,
      });
      return z.NEVER;
    }
    return list;
  }),
  listenBacklog: num("listen-backlog", 1, 65_535),
  headersTimeoutMs: num("headers-timeout", 0.1, 3600, false).transform((s) => Math.round(s * 1000)),
  requestTimeoutMs: num("request-timeout", 0.1, 3600, false).transform((s) => Math.round(s * 1000)),
  keepAliveTimeoutMs: num("keep-alive-timeout", 0.1, 600, false).transform((s) => Math.round(s * 1000)),
  maxConnections: num("max-connections", 1, 1_000_000),
  maxConnectionsPerAddress: num("max-connections-per-address", 0, 1_000_000),
  // A token short enough to guess, or one with spaces or control characters (it travels in a header), is
  // refused at start rather than accepted and weak.
  metricsToken: z
    .string()
    .regex(/^[\x21-\x7e]{16,512}$/, "--metrics-token must be 16-512 printable characters without spaces")
    .optional(),
  metricsListen: z
    .string()
    .transform((s, ctx) => {
      const m = HOST_PORT.exec(s);
      const port = m ? Number(m[3]) : Number.NaN;
      if (!m || port > 65535) {
        ctx.addIssue({
          code: "custom",
          message: "--metrics-listen must be host:port, e.g. 127.0.0.1:9464 or [::1]:9464",
        });
        return z.NEVER;
      }
      return { host: (m[1] ?? m[2])!, port };
    })
    .optional(),
  laddersFile: z.string().min(1).optional(),
  /** Where the operator keeps the event flags (never in the repository), or the JSON itself. */
  eventFlagsFile: z.string().min(1).optional(),
  eventFlags: z.string().min(1).optional(),
  houseBots: z.boolean(),
  /** Cluster mode: each match's inputs are journaled per tick for failover (issue 36, part 5). */
  failoverJournal: z.boolean(),
  mcp: z.boolean(),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
    error: "--log-level must be fatal, error, warn, info, debug, trace or silent",
  }),
  logFormat: z.enum(["auto", "pretty", "json"], { error: "--log-format must be auto, pretty or json" }),
});

export type Config = Readonly<z.infer<typeof Schema>> & { readonly publicUrl: string };

export class ConfigError extends Error {}

export function helpText(): string {
  const lines = ["Usage: npm start -- [flags]", "", "Flags:"];
  for (const [name, f] of Object.entries(FLAGS)) {
    // A flag whose help already states its default (e.g. "cores - 1") does not state it a second time.
    const def = "def" in f && !/\(default\b/.test(f.help) ? ` (default ${f.def})` : "";
    lines.push(`  --${name.padEnd(20)} ${f.help}${def}`);
  }
  lines.push(
    "",
    "Environment: DATABASE_URL, AUTH_PUBLISHABLE_KEY, AUTH_JWT_SECRET, ADMIN_EMAILS, SMTP_URL and METRICS_TOKEN (same as the flags).",
  );
  return lines.join("\n");
}

/** Parses argv (without node and script) and the environment into a validated, frozen Config. */
export function parseConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): Config | "help" {
  const options = Object.fromEntries(Object.entries(FLAGS).map(([k, f]) => [k, { type: f.type }])) as Record<
    string,
    { type: "string" | "boolean" }
  >;
  options["no-house-bots"] = { type: "boolean" };
  options["no-mcp"] = { type: "boolean" };
  options["no-failover-journal"] = { type: "boolean" };
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    throw new ConfigError(`${(err as Error).message}\n\n${helpText()}`);
  }
  if (values.help) return "help";
  const get = (k: keyof typeof FLAGS) =>
    values[k] ?? ("def" in FLAGS[k] ? (FLAGS[k] as { def: string }).def : undefined);
  const parsed = Schema.safeParse({
    port: get("port"),
    host: get("host"),
    dataDir: get("data-dir"),
    databaseUrl: values["database-url"] ?? (env.DATABASE_URL || undefined),
    cluster: values.cluster,
    publicUrl: values["public-url"],
    workers: get("workers"),
    anonymousDev: values["anonymous-dev"] === true,
    accounts: get("accounts"),
    authUrl: values["auth-url"],
    authPublishableKey: values["auth-publishable-key"] ?? (env.AUTH_PUBLISHABLE_KEY || undefined),
    authJwksUrl: values["auth-jwks-url"],
    authJwtSecret: values["auth-jwt-secret"] ?? (env.AUTH_JWT_SECRET || undefined),
    authIssuer: values["auth-issuer"],
    authAudience: get("auth-audience"),
    adminEmails: values["admin-emails"] ?? env.ADMIN_EMAILS ?? "",
    smtpUrl: values["smtp-url"] ?? (env.SMTP_URL || undefined),
    mailFrom: get("mail-from"),
    smtpTimeoutMs: get("smtp-timeout"),
    authRateLimit: get("auth-rate-limit"),
    registrationRateLimit: get("registration-rate-limit"),
    matchIntervalMs: get("match-interval"),
    maxConcurrent: get("max-concurrent"),
    ownerConcurrency: get("owner-concurrency"),
    hourlyQuota: get("hourly-quota"),
    dailyOwnerQuota: get("daily-owner-quota"),
    maxBots: get("max-bots"),
    newVersionsPerDay: get("new-versions-per-day"),
    drainTimeoutMs: get("drain-timeout"),
    tickMs: get("tick-ms"),
    startupMs: get("startup-ms"),
    matchBudgetMs: get("match-budget-ms"),
    reconnectGraceMs: get("reconnect-grace-ms"),
    pingIntervalMs: get("ping-interval"),
    socketConnectsPerMinute: get("socket-connects-per-minute"),
    socketAuthFailuresPerMinute: get("socket-auth-failures-per-minute"),
    upgradesPerSecond: get("upgrades-per-second"),
    trustProxy: values["trust-proxy"] ?? "",
    listenBacklog: get("listen-backlog"),
    headersTimeoutMs: get("headers-timeout"),
    requestTimeoutMs: get("request-timeout"),
    keepAliveTimeoutMs: get("keep-alive-timeout"),
    maxConnections: get("max-connections"),
    maxConnectionsPerAddress: get("max-connections-per-address"),
    metricsToken: values["metrics-token"] ?? (env.METRICS_TOKEN || undefined),
    metricsListen: values["metrics-listen"],
    laddersFile: values.ladders,
    eventFlagsFile: values["event-flags"] ?? (env.EVENT_FLAGS_FILE || undefined),
    eventFlags: env.EVENT_FLAGS || undefined,
    houseBots: values["no-house-bots"] !== true,
    failoverJournal: values["no-failover-journal"] !== true,
    mcp: values["no-mcp"] !== true,
    logLevel: get("log-level"),
    logFormat: get("log-format"),
  });
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => i.message).join("\n"));
  const c = parsed.data;
  if (c.accounts === "none" && !c.anonymousDev) {
    throw new ConfigError(
      "no accounts are configured: use --accounts builtin (the default: a built-in identity provider), " +
        "--accounts external with --auth-url, --auth-publishable-key and --auth-jwks-url or --auth-jwt-secret, " +
        "or start with --anonymous-dev for a local development ladder (anyone may register bots).",
    );
  }
  // The nodes of a cluster share one database; the embedded PGlite is one process's own.
  if (c.cluster && !c.databaseUrl)
    throw new ConfigError(
      "--cluster needs PostgreSQL (--database-url or DATABASE_URL): the embedded PGlite database is single-node",
    );
  // Node refuses a headers timeout longer than the request timeout (the headers are part of the request).
  if (c.headersTimeoutMs > c.requestTimeoutMs)
    throw new ConfigError("--headers-timeout must not be longer than --request-timeout");
  if (c.metricsListen && c.metricsListen.port !== 0 && c.metricsListen.port === c.port)
    throw new ConfigError("--metrics-listen must use another port than --port");
  if (c.accounts === "external") {
    if (!c.authUrl || !c.authPublishableKey || !(c.authJwksUrl || c.authJwtSecret)) {
      throw new ConfigError(
        "--accounts external needs --auth-url, --auth-publishable-key and one of --auth-jwks-url or --auth-jwt-secret",
      );
    }
  }
  return Object.freeze({ ...c, publicUrl: (c.publicUrl ?? `http://localhost:${c.port}`).replace(/\/$/, "") });
}

/** A Config for tests and embedding: defaults, then overrides. */
export function testConfig(over: Partial<Config> = {}): Config {
  const base = parseConfig(["--anonymous-dev", "--port", "0", "--log-level", "silent"], {}) as Config;
  return Object.freeze({ ...base, ...over });
}
