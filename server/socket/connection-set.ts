// The live sockets of one kind (bot sockets, human-play sockets) and what the server does to all of them:
// liveness Pings (SPEC 6: every ping interval; a socket that did not answer the last one is dropped), the
// drain notice of SPEC 3.10 (also to sockets accepted later) and the final close with 1012.

import type { BotConnection } from "../connection/bot-connection.ts";
import { CLOSES } from "../errors.ts";

export class ConnectionSet {
  private readonly conns = new Set<BotConnection>();
  private readonly pinger: NodeJS.Timeout;
  /** Set once the server is stopping: sockets accepted after that are closed at once. */
  closing = false;
  drainDeadline: string | null = null;

  constructor(pingIntervalMs: number) {
    this.pinger = setInterval(() => {
      for (const c of this.conns) if (!c.ping()) this.conns.delete(c);
    }, pingIntervalMs);
    this.pinger.unref();
  }

  get size(): number {
    return this.conns.size;
  }

  /** Adds a socket; one accepted while draining is told at once. */
  add(conn: BotConnection): void {
    this.conns.add(conn);
    if (this.drainDeadline) conn.send({ type: "server_draining", drain_deadline: this.drainDeadline });
  }

  delete(conn: BotConnection): void {
    this.conns.delete(conn);
  }

  drain(deadline: string): void {
    this.drainDeadline = deadline;
    for (const c of this.conns) c.send({ type: "server_draining", drain_deadline: deadline });
  }

  closeAll(): void {
    this.closing = true;
    for (const c of this.conns) c.close(...CLOSES.restarting);
    this.conns.clear();
    clearInterval(this.pinger);
  }
}
