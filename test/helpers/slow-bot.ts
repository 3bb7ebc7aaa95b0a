// A cluster test's bot (test/server/cluster-*.test.ts): answers every observation with an idle turn after
// `replyMs`, so a match lasts long enough to kill or freeze its node in the middle, on whatever socket it has
// now; it keeps the ids of the matches it was greeted into and the `end`s it received.
import type WebSocket from "ws";
import type { Child } from "./child-server.ts";
import { BotClient } from "./server.ts";
import { until } from "./test-cluster.ts";

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

/** Registers `count` slow bots on `node` (named `<prefix>-<i>`) and opens their sockets there. */
export async function botsOn(node: Child, prefix: string, count: number, replyMs = 40): Promise<SlowBot[]> {
  const bots: SlowBot[] = [];
  for (let i = 0; i < count; i++) {
    const name = `${prefix}-${i}`;
    const res = await fetch(`${node.url}/api/bots`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, owner: `${name}-owner` }),
    });
    if (res.status !== 201) throw new Error(`registering ${name}: ${res.status} ${await res.text()}`);
    const bot = new SlowBot(name, ((await res.json()) as { token: string }).token, node, replyMs);
    await bot.client.open();
    bots.push(bot);
  }
  return bots;
}

/**
 * Queues the bots (all on one node, so their matches run there), waits for every match to be twenty ticks in,
 * and gives the matches' ids.
 */
export async function playing(bots: SlowBot[]): Promise<string[]> {
  for (const b of bots) b.client.send({ type: "queue", version: "v1" });
  await until(async () => (bots.every((b) => b.matchId) ? true : null), "every bot in a match", 60_000);
  await until(
    async () =>
      bots.every((b) => b.client.received.filter((m) => m.type === "observation").length >= 20) ? true : null,
    "twenty ticks of every match",
    30_000,
  );
  if (bots.some((b) => b.ends.length > 0)) throw new Error("a match ended before its twentieth tick");
  return [...new Set(bots.map((b) => b.matchId!))];
}

/** A bot's rated games over its versions, as a node answers. */
export async function ratedGames(node: Child, name: string): Promise<number> {
  const v = (await (await fetch(`${node.url}/api/bots/${name}`)).json()) as {
    versions: { rated_games: number }[];
  };
  return v.versions.reduce((n, x) => n + x.rated_games, 0);
}
