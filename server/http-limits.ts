// What a slow or greedy client can hold of the server: the time to send a request (--headers-timeout,
// --request-timeout) or to keep an idle connection (--keep-alive-timeout), open connections at once
// (--max-connections for the whole server, idle ones closed first; --max-connections-per-address for one
// client), and the answers to requests Node refuses before Fastify sees them (a late request, oversized
// headers, a malformed request line) or its router refuses before any route (a path segment over 100
// characters, a malformed escape), in the SPEC's error shape.
import type { Socket } from "node:net";
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from "fastify";
import { fromTrustedProxy, type Trust } from "./client-address.ts";
import type { Config } from "./config.ts";
import { ConnectionCap } from "./connection-cap.ts";
import { CODES, type Code } from "./errors.ts";

/**
 * Fastify and Node server options. Node checks the timeouts on a timer (30 s by default, which let a
 * half-sent request live about 88 s with Node's 60 s headers timeout); here the check runs often enough that a
 * late request is cut off within a quarter of its timeout.
 */
export function serverOptions(config: Config): Pick<
  FastifyServerOptions,
  "requestTimeout" | "clientErrorHandler" | "keepAliveTimeout" | "frameworkErrors"
> & {
  http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number };
} {
  return {
    requestTimeout: config.requestTimeoutMs,
    // Fastify's own default keeps an idle keep-alive connection 72 s; a place on the server is not held that
    // long by a client that is not asking for anything (--keep-alive-timeout).
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.round(config.headersTimeoutMs / 4))),
    },
    frameworkErrors: routerRefusal,
    clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket) {
      if (err.code === "ECONNRESET" || socket.destroyed) return;
      const code: Code =
        err.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? "request_timeout"
          : err.code === "HPE_HEADER_OVERFLOW"
            ? "headers_too_large"
            : "bad_request";
      refuse(socket, code, code === "bad_request" ? "malformed HTTP request" : undefined);
    },
  };
}

/**
 * What the router refuses before any route: a path segment longer than a parameter may be (414) or a malformed
 * percent-escape (400). Fastify's own answers carry its internal code and echo the whole address back (5,000
 * characters of it, with whatever the address held); these carry the catalog's code and no address.
 */
function routerRefusal(err: Error & { code?: string }, _req: FastifyRequest, reply: FastifyReply): void {
  const code: Code = err.code === "FST_ERR_MAX_PARAM_LENGTH" ? "uri_too_long" : "bad_request";
  const message = code === "bad_request" ? "the address is not valid (a malformed %-escape?)" : undefined;
  void reply
    .code(CODES[code].status ?? 400)
    .type("application/json")
    .send({ error: message ?? CODES[code].message, code });
}

/** Answers on a raw socket (no request was read, or none completely) and closes it. */
export function refuse(socket: Socket, code: Code, message?: string, retryAfterS?: number): void {
  const status = CODES[code].status ?? 400;
  const body = JSON.stringify({ error: message ?? CODES[code].message, code });
  // Nothing more is read: the request (if any) is not served.
  socket.pause();
  if (socket.writable)
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Error"}\r\nContent-Type: application/json\r\n` +
        (retryAfterS !== undefined ? `Retry-After: ${retryAfterS}\r\n` : "") +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  // Gone as soon as the answer is written: under a flood of refused connections, sockets left half-open for
  // their peers to close pile up by the thousand. A peer that does not read its answer must not keep the
  // socket either.
  socket.once("finish", () => socket.destroy());
  setTimeout(() => socket.destroy(), 1_000).unref();
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  414: "URI Too Long",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  503: "Service Unavailable",
};

/**
 * Caps open connections: beyond --max-connections the longest-idle connections are closed to make room
 * (server/connection-cap.ts); beyond --max-connections-per-address one client's further connections are
 * answered 429 and closed, so one address (a slow-loris run) cannot take every place while others still get
 * in. A trusted proxy's connections (--trust-proxy) carry many clients, so the per-address cap does not count
 * them at accept; a WebSocket through the proxy is one client's, and counts against that client's address
 * when it is upgraded (`holdUpgrade`).
 */
export function capConnections(
  server: import("node:http").Server,
  config: Config,
  trust: Trust | null = null,
): { cap: ConnectionCap; holdUpgrade(socket: Socket, address: string): boolean } {
  const cap = new ConnectionCap(server, config.maxConnections, (socket) =>
    refuse(socket, "server_busy", "every connection place is in use; retry shortly", 1),
  );
  const perAddress = config.maxConnectionsPerAddress;
  const open = new Map<string, number>();
  /** Counts the socket against the address until it closes; false (counting nothing) when at the cap. */
  const hold = (socket: Socket, address: string): boolean => {
    const n = open.get(address) ?? 0;
    if (n >= perAddress) return false;
    open.set(address, n + 1);
    // The place is free once the server has finished writing (a refused or timed-out connection is on its
    // way out then), or at the close, whichever comes first.
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      const left = (open.get(address) ?? 1) - 1;
      if (left === 0) open.delete(address);
      else open.set(address, left);
    };
    socket.once("finish", release);
    socket.once("close", release);
    return true;
  };
  const limit = `at most ${perAddress} open connections per client address`;
  if (perAddress > 0)
    server.on("connection", (socket: Socket) => {
      if (fromTrustedProxy(socket.remoteAddress, trust)) return;
      // A refused connection takes no place: it is on its way out (and gone within a second).
      if (!hold(socket, socket.remoteAddress ?? "")) refuse(socket, "too_many_connections", limit);
    });
  return {
    cap,
    holdUpgrade(socket, address) {
      if (perAddress === 0 || !fromTrustedProxy(socket.remoteAddress, trust)) return true;
      if (hold(socket, address)) return true;
      refuse(socket, "too_many_connections", limit);
      return false;
    },
  };
}

/**
 * Writes a refusal (a complete HTTP answer) on an upgrade's socket and closes it: at once when written, and
 * within a second when the peer does not read, so refused upgrades cannot pile up half-open.
 */
export function endUpgrade(socket: Socket, answer: string): void {
  socket.pause();
  socket.end(answer);
  socket.once("finish", () => socket.destroy());
  setTimeout(() => socket.destroy(), 1_000).unref();
}
