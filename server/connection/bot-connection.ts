// One authenticated bot socket: sending, closing with a code, liveness (server Pings) and the two message
// rate limits of SPEC section 8 (idle messages per second; messages per tick while playing).
import type { WebSocket } from "ws";
import type { ServerMessageT } from "../../engine/protocol.ts";
import type { SocketErrorCode } from "../errors.ts";
import { closeFor, SOCKET_ERRORS } from "../errors.ts";
import type { BotRow, VersionRow } from "../store/types.ts";

let nextId = 1;

export class BotConnection {
  readonly id = nextId++;
  /** When the socket connected (ms since the epoch): which of two sockets of one bot is the newer (cluster). */
  readonly since = Date.now();
  readonly bot: BotRow;
  private readonly ws: WebSocket;
  alive = true;
  closed = false;
  /**
   * The version this socket last queued with, as read from the store at its count of writes to bots and
   * versions `generation` (Store.botWrites): see BotHub.queue.
   */
  lastVersion: { row: VersionRow; generation: number } | null = null;
  private windowStart = 0;
  private windowCount = 0;
  private lastRateError = 0;

  constructor(ws: WebSocket, bot: BotRow) {
    this.ws = ws;
    this.bot = bot;
    ws.on("pong", () => {
      this.alive = true;
    });
    ws.on("close", () => {
      this.closed = true;
    });
  }

  /**
   * Sends a message of the protocol (typed by its schema in engine/protocol.ts); `msg` may already be
   * serialised (observations come from the worker as text).
   */
  send(msg: string | ServerMessageT): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(typeof msg === "string" ? msg : JSON.stringify(msg));
  }

  /** Sends text already encoded as UTF-8 (observations come from the pool worker as bytes): no re-encoding. */
  sendUtf8(bytes: Uint8Array): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(bytes, { binary: false });
  }

  error(code: SocketErrorCode, message?: string): void {
    this.send({ type: "error", code, message: message ?? SOCKET_ERRORS[code] });
  }

  /** Sends a connection error and closes: the client must not reconnect for these (SPEC 7.2). */
  refuse(code: SocketErrorCode): void {
    this.error(code);
    this.close(...closeFor(code));
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.ws.close(code, reason);
    } catch {
      this.ws.terminate();
    }
    // A peer that never completes the closing handshake must not hold the socket open.
    setTimeout(() => this.ws.terminate(), 5_000).unref();
  }

  terminate(): void {
    this.closed = true;
    this.ws.terminate();
  }

  /** Liveness check on each ping interval: a socket that did not answer the last Ping is terminated. */
  ping(): boolean {
    if (!this.alive) {
      this.terminate();
      return false;
    }
    this.alive = false;
    try {
      this.ws.ping();
    } catch {
      this.terminate();
      return false;
    }
    return true;
  }

  /**
   * Counts a message against a per-second budget. Returns "ok", "limited" (drop it, an error was sent at
   * most once a second) or "flood" (twice the budget: the caller closes the socket).
   */
  rate(perSecond: number, now: number): "ok" | "limited" | "flood" {
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowCount = 0;
    }
    this.windowCount++;
    if (this.windowCount <= perSecond) return "ok";
    if (this.windowCount > perSecond * 2) return "flood";
    if (now - this.lastRateError >= 1000) {
      this.lastRateError = now;
      this.error("rate_limited", `at most ${perSecond} messages per second outside a match`);
    }
    return "limited";
  }
}
