// What a slow or greedy client can hold of the server: the time to send a request (--headers-timeout,
// --request-timeout), open connections at once (--max-connections for the whole server,
// --max-connections-per-address for one client), and the answers to requests Node refuses before Fastify sees
// them (a late request, oversized headers, a malformed request line), in the SPEC's error shape.
import type { Socket } from "node:net";
import type { FastifyServerOptions } from "fastify";
import type { Config } from "./config.ts";
import { CODES, type Code } from "./errors.ts";

/**
 * Fastify and Node server options. Node checks the timeouts on a timer (30 s by default, which let a
 * half-sent request live about 88 s with Node's 60 s headers timeout); here the check runs often enough that a
 * late request is cut off within a quarter of its timeout.
 */
export function serverOptions(config: Config): Pick<
  FastifyServerOptions,
  "requestTimeout" | "clientErrorHandler"
> & {
  http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number };
} {
  return {
    requestTimeout: config.requestTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.round(config.headersTimeoutMs / 4))),
    },
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

/** Answers on a raw socket (no request was read, or none completely) and closes it. */
function refuse(socket: Socket, code: Code, message?: string): void {
  const status = CODES[code].status ?? 400;
  const body = JSON.stringify({ error: message ?? CODES[code].message, code });
  // Nothing more is read: the request (if any) is not served.
  socket.pause();
  if (socket.writable)
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? "Error"}\r\nContent-Type: application/json\r\n` +
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
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
};

/**
 * Caps open connections: Node drops those beyond --max-connections; beyond --max-connections-per-address one
 * client's further connections are answered 429 and closed, so one address (a slow-loris run) cannot take
 * every place while others still get in.
 */
export function capConnections(server: import("node:http").Server, config: Config): void {
  server.maxConnections = config.maxConnections;
  const perAddress = config.maxConnectionsPerAddress;
  if (perAddress === 0) return;
  const open = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    const n = open.get(address) ?? 0;
    // A refused connection takes no place: it is on its way out (and gone within a second).
    if (n >= perAddress)
      return refuse(
        socket,
        "too_many_connections",
        `at most ${perAddress} open connections per client address`,
      );
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
  });
}
