// The server-wide connection cap (--max-connections) that idle connections cannot fill. Node's own
// `server.maxConnections` drops every new connection once the cap is reached, whoever holds the places: 10,000
// keep-alive connections that each sent one request and then nothing locked every new client out (issue 31).
// Here each open connection is known as busy (a request in flight), idle (between requests, or none sent yet)
// or upgraded (a WebSocket); a new connection beyond the cap closes the longest-idle connections first, so a
// new client is always served while any place is held by an idle one. An upgraded socket (a bot, a human
// game) is never closed for this; only when every place is busy or upgraded is the newcomer refused.
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface ConnectionCapStats {
  /** Connections counted now (an evicted one stops counting at once, before its close event). */
  open: number;
  /** Idle connections closed to make room, since the start. */
  evicted: number;
  /** New connections refused because every place was busy or upgraded. */
  refused: number;
}

export class ConnectionCap {
  /** Idle connections in the order they became idle: the first is the longest idle. */
  private readonly idle = new Set<Socket>();
  /** Requests in flight per connection (more than one when a client pipelines). */
  private readonly busy = new Map<Socket, number>();
  private readonly counted = new Set<Socket>();
  private readonly upgraded = new WeakSet<Socket>();
  readonly stats: ConnectionCapStats = { open: 0, evicted: 0, refused: 0 };

  constructor(
    server: Server,
    private readonly cap: number,
    private readonly onRefused: (socket: Socket) => void,
  ) {
    server.on("connection", (socket: Socket) => this.connected(socket));
    server.on("request", (req: IncomingMessage, res: ServerResponse) => {
      const socket = req.socket;
      if (!this.counted.has(socket)) return;
      this.idle.delete(socket);
      this.busy.set(socket, (this.busy.get(socket) ?? 0) + 1);
      res.once("close", () => this.finished(socket));
    });
    // An upgraded socket leaves the HTTP server's hands; it is never evicted (refused upgrades are closed by
    // their refusal within a second).
    server.on("upgrade", (req: IncomingMessage) => {
      this.upgraded.add(req.socket);
      this.idle.delete(req.socket);
      this.busy.delete(req.socket);
    });
  }

  private connected(socket: Socket): void {
    // Room for the newcomer: the longest-idle connections go first.
    while (this.stats.open >= this.cap) {
      const oldest = this.idle.values().next();
      if (oldest.done) break;
      this.evict(oldest.value);
    }
    if (this.stats.open >= this.cap) {
      this.stats.refused++;
      this.onRefused(socket);
      return;
    }
    this.counted.add(socket);
    this.stats.open++;
    // No request yet: idle from now on (a connection that never sends one is the first to go).
    this.idle.add(socket);
    socket.once("close", () => this.forget(socket));
  }

  private finished(socket: Socket): void {
    const n = (this.busy.get(socket) ?? 1) - 1;
    if (n > 0) return void this.busy.set(socket, n);
    this.busy.delete(socket);
    // Still open and still HTTP: idle again, at the end of the line.
    if (!this.counted.has(socket) || socket.destroyed || this.upgraded.has(socket)) return;
    this.idle.delete(socket);
    this.idle.add(socket);
  }

  private evict(socket: Socket): void {
    this.forget(socket);
    this.stats.evicted++;
    // What closing an idle keep-alive connection at its timeout does too: no request is lost.
    socket.destroy();
  }

  private forget(socket: Socket): void {
    if (!this.counted.delete(socket)) return;
    this.idle.delete(socket);
    this.busy.delete(socket);
    this.stats.open--;
  }
}
