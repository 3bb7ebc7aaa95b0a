// A bot is never charged for the server's own stalls (issue 20): while the server's event loop stands still,
// a reply that arrived in time waits unread in the socket buffer and the deadline timer cannot run. Here the
// whole process (server and bot client share it) blocks for 1.5 s right after the bot sent its turn, on a
// 300 ms tick: the seat must not be idled for a timeout, and its reply-time budget must not pay for the stall.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

type Msg = { type: string; [k: string]: unknown };

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ tickMs: 300, startupMs: 2000 });
});
afterAll(async () => {
  await srv?.stop();
});

describe("the server's stalls", () => {
  it("are not charged to a bot whose reply was in time", async () => {
    const bot = new BotClient(srv.wsUrl, await srv.register("stall-victim"));
    await bot.open();
    const since = bot.received.length;
    bot.send({ type: "queue", version: "v1" });
    const hello = await bot.next("hello", undefined, 15_000, since);
    const budgets = new Map<number, number>();
    let stalled = false;
    const onMsg = (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as Msg;
      if (m.type === "hello") bot.send({ type: "ready" });
      if (m.type !== "observation") return;
      budgets.set(m.tick as number, m.budget_ms_left as number);
      bot.send({ type: "turn", tick: m.tick });
      if (m.tick === 3 && !stalled) {
        stalled = true;
        // The turn is on its way to the server (same process, loopback); now nothing runs for 1.5 s.
        const until = Date.now() + 1_500;
        while (Date.now() < until) {}
      }
    };
    bot.ws.on("message", onMsg);
    bot.send({ type: "ready" });
    const end = await bot.next("end", undefined, 60_000, since);
    bot.ws.off("message", onMsg);
    expect(stalled).toBe(true);
    const me = hello.bot_id as number;
    const f = (end.stats as { fighters: { server_idles: { timeout?: number } }[] }).fighters[me]!;
    expect(f.server_idles.timeout ?? 0).toBe(0);
    // The tick after the stall left the budget where a quick reply leaves it (well under the 1.5 s stall).
    expect(budgets.get(3)! - budgets.get(4)!).toBeLessThan(250);
    bot.ws.close();
  });
});
