// GET /metrics for the operator, closed unless turned on: with --metrics-token on the main port behind that
// bearer token; with --metrics-listen on a listener of its own (an address only the operator's network
// reaches), which also asks for the token when one is set. Without either flag there is no route (404).
// Refusals are the catalog's 401s in the SPEC's error shape, with a WWW-Authenticate challenge.
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import { type ApiError, errors } from "../errors.ts";
import type { Metrics } from "./metrics.ts";

const CHALLENGE = 'Bearer realm="metrics"';

const digest = (s: string) => createHash("sha256").update(s).digest();

/** The refusal for an Authorization header, or null when it carries the token (compared in constant time). */
export function metricsRefusal(token: string | undefined, header: string | undefined): ApiError | null {
  if (token === undefined) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  if (!m) return errors.metricsTokenMissing();
  // Digests of equal length, so neither the comparison's time nor an early length check tells anything.
  return timingSafeEqual(digest(m[1]!), digest(token)) ? null : errors.metricsTokenWrong();
}

/** The route on the main port; mounted only when a token is set (a token-less /metrics there would be open). */
export function metricsRoutes(http: FastifyInstance, metrics: Metrics, token: string): void {
  http.get(
    "/metrics",
    {
      // The auth rule is declared once, on the route, before anything is read or collected.
      onRequest: async (req, reply) => {
        const refusal = metricsRefusal(token, req.headers.authorization);
        if (!refusal) return;
        reply.header("www-authenticate", CHALLENGE);
        throw refusal;
      },
    },
    async (_req, reply) => {
      const out = await metrics.render();
      // A scrape is always fresh; a proxy or browser must not keep it.
      return reply.header("cache-control", "no-store").type(out.contentType).send(out.body);
    },
  );
}

/** The separate listener of --metrics-listen: /metrics only, the same answers as the main port's route. */
export class MetricsListener {
  private readonly server: Server;

  constructor(
    private readonly metrics: Metrics,
    private readonly token: string | undefined,
  ) {
    this.server = createServer((req, res) => {
      const json = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
        res.writeHead(status, {
          "content-type": "application/json; charset=utf-8",
          "x-content-type-options": "nosniff",
          ...headers,
        });
        res.end(JSON.stringify(body));
      };
      const path = (req.url ?? "/").split("?")[0]!;
      if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD"))
        return json(404, { error: `no route ${req.method} ${path}`, code: "not_found" });
      const refusal = metricsRefusal(this.token, req.headers.authorization);
      if (refusal) return json(refusal.status, refusal.body(), { "www-authenticate": CHALLENGE });
      this.metrics.render().then(
        (out) => {
          res.writeHead(200, {
            "content-type": out.contentType,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
          });
          res.end(req.method === "HEAD" ? undefined : out.body);
        },
        () => json(500, { error: "internal error", code: "internal" }),
      );
    });
    // A scraper sends a small request at once; a slow or idle client is not kept.
    this.server.headersTimeout = 5_000;
    this.server.requestTimeout = 10_000;
    this.server.keepAliveTimeout = 5_000;
  }

  /** Listens; resolves with the bound address (port 0 picks a free port). */
  listen(host: string, port: number): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, host, () => {
        this.server.off("error", reject);
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  async close(): Promise<void> {
    if (!this.server.listening) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Counts the match viewer's live-feed polls: spectators follow a running match over HTTP, not a socket. */
export function countSpectatorPolls(http: FastifyInstance, metrics: Metrics): void {
  http.addHook("onRequest", async (req) => {
    if (req.routeOptions.url === "/api/matches/:id/live") metrics.spectatorPoll();
  });
}

/**
 * Mounts what the flags ask for: a separate listener takes /metrics off the main port (returned, for the app to
 * listen and close); the token alone puts it on the main port, behind the token.
 */
export function serveMetrics(
  http: FastifyInstance,
  metrics: Metrics,
  config: Pick<Config, "metricsToken" | "metricsListen">,
): MetricsListener | null {
  countSpectatorPolls(http, metrics);
  if (config.metricsListen) return new MetricsListener(metrics, config.metricsToken);
  if (config.metricsToken) metricsRoutes(http, metrics, config.metricsToken);
  return null;
}
