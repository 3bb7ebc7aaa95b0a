// The HTTP server every feature mounts on: Fastify with the service's logging (no secret in a log line), limits
// (server/http-limits.ts), the input rule every route shares (server/kernel/input.ts) and the one error handler
// that answers every failure in the SPEC's error shape, or as a page in the site's layout to a browser.
import Fastify, { type FastifyInstance } from "fastify";
import type { Logger } from "pino";
import { trustRule } from "./client-address.ts";
import type { Config } from "./config.ts";
import { isDbUnavailable } from "./db/db.ts";
import { ApiError, CODES } from "./errors.ts";
import { capConnections, serverOptions } from "./http-limits.ts";
import { inputRule } from "./kernel/input.ts";
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

const SECRET_PARAMS = /([?&](?:token|token_hash|ticket|code|refresh_token|access_token|key)=)[^&#]*/gi;
/** A request URL with the values of secret-bearing query parameters replaced. */
export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, "$1[redacted]");
}

/** The HTTP server, its log and its connection cap, before any feature. */
export function createHttp(
  config: Config,
  logStream?: NodeJS.WritableStream,
): { http: FastifyInstance; log: Logger; connections: ReturnType<typeof capConnections> } {
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
      ...(logStream ? { stream: logStream } : {}),
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
  answerErrors(http, log);
  return { http, log, connections };
}

/** The one error handler, the not-found answer and the header every answer carries. */
function answerErrors(http: FastifyInstance, log: Logger): void {
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
}
