// A cluster test's bot (test/server/cluster-*.test.ts): answers every observation with an idle turn after
// `replyMs`, so a match lasts long enough to kill or freeze its node in the middle, on whatever socket it has
// now; it keeps the ids of the matches it was greeted into and the `end`s it received.
import type WebSocket from "ws";
import type { Child } from "./child-server.ts";
import { BotClient } from "./server.ts";

export type Msg = Record<string, unknown> & { type: string };

export class SlowBot {
  client: BotClient;
  readonly ends: Msg[] = [];
  /** The match ids of its `hello`s, first seen first (a reconnect's `hello` repeats its match's id). */
  readonly matches: string[] = [];
  constructor(
    readonly name: string,
    readonly token: string,
    node: Child,
    readonly replyMs = 40,
  ) {
    this.client = this.open(node);
  }

  /** Its first match. */
  get matchId(): string | undefined {
    return this.matches[0];
  }

  private open(node: Child): BotClient {
    const c = new BotClient(node.wsUrl, this.token);
    c.ws.on("message", (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as Msg;
      if (m.type === "hello") {
        if (!this.matches.includes(m.match_id as string)) this.matches.push(m.match_id as string);
        this.send(c, { type: "ready" });
      } else if (m.type === "observation")
        setTimeout(() => this.send(c, { type: "turn", tick: m.tick }), this.replyMs);
      else if (m.type === "end") this.ends.push(m);
    });
    return c;
  }

  private send(c: BotClient, m: unknown): void {
    if (c.ws.readyState === c.ws.OPEN) c.send(m);
  }

  /** Drops its socket (without waiting for its node, which may be dead) and opens a new one on `node`. */
  async reconnect(node: Child): Promise<void> {
    this.client.ws.terminate();
    this.client = this.open(node);
    await this.client.open();
  }
}
