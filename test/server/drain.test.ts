// The service drain of SPEC 3.10 on the live server: `server_draining` to every authenticated socket (also
// ones that connect during the drain), `draining: true` in /api/status, no new matches, then close 1012
// `server restarting` once the running match ends, or when the drain timeout abandons it.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { MatchStore } from "../../server/results/match-store.ts";
import { openStore } from "../../server/store/sql-store.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

type Msg = { type: string; [k: string]: unknown };

async function connect(srv: TestServer, name: string): Promise<BotClient> {
  const bot = new BotClient(srv.wsUrl, await srv.register(name));
  await bot.open();
  return bot;
}

/** Starts a match against a house bot and answers observations until tick `holdAt`, which it leaves open. */
async function matchHeldAt(bot: BotClient, holdAt: number): Promise<{ hello: Msg; held: Msg }> {
  bot.send({ type: "queue", version: "v1" });
  const hello = await bot.next("hello");
  const onMsg = (data: WebSocket.RawData) => {
    const m = JSON.parse(String(data)) as Msg;
    if (m.type === "observation" && (m.tick as number) < holdAt) bot.send({ type: "turn", tick: m.tick });
  };
  bot.ws.on("message", onMsg);
  bot.send({ type: "ready" });
  const held = await bot.next("observation", (m) => m.tick === holdAt, 10_000, 0);
  bot.ws.off("message", onMsg);
  return { hello, held };
}

describe("drain while a match runs", () => {
  let srv: TestServer;
  beforeAll(async () => {
    // Ticks of 1 s leave room for the checks while the held match waits on its bot.
    srv = await startServer({ tickMs: 1_000, startupMs: 500 });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("notifies every bot, starts nothing new, and closes 1012 when the match ends", async () => {
    const player = await connect(srv, "drain-player");
    const idle = await connect(srv, "drain-idle");
    const { hello, held } = await matchHeldAt(player, 2);
    expect(srv.app.ctx.matches.size).toBe(1);

    const t0 = Date.now();
    const drained = srv.app.drain();
    const [n1, n2] = await Promise.all([
      player.next("server_draining", undefined, 10_000, 0),
      idle.next("server_draining", undefined, 10_000, 0),
    ]);
    const t1 = Date.now();
    for (const n of [n1, n2]) {
      expect(Object.keys(n).sort()).toEqual(["drain_deadline", "type"]);
      expect(n.drain_deadline).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      // The default --drain-timeout is 600 s, counted from the drain call (between t0 and t1).
      expect(Date.parse(n.drain_deadline as string)).toBeGreaterThanOrEqual(t0 + 600_000);
      expect(Date.parse(n.drain_deadline as string)).toBeLessThanOrEqual(t1 + 600_000);
    }
    expect(n2.drain_deadline).toBe(n1.drain_deadline);

    const status = await srv.get<{ draining: boolean; matches: { id: string }[] }>("/api/status");
    expect(status.status).toBe(200);
    expect(status.body.draining).toBe(true);
    expect(status.body.matches.map((m) => m.id)).toEqual([hello.match_id]);

    // A bot that connects during the drain is told at once.
    const late = await connect(srv, "drain-late");
    const n3 = await late.next("server_draining", undefined, 10_000, 0);
    expect(n3.drain_deadline).toBe(n1.drain_deadline);
    expect(late.received[0]!.type).toBe("server_draining");

    // A queued bot stays unmatched, though house bots are waiting.
    idle.send({ type: "queue", version: "v1" });
    await idle.next("queued", undefined, 10_000, 0);
    srv.app.ctx.ladders.main.matchmaker.pass();
    expect(srv.app.ctx.matches.size).toBe(1);
    const idleId = (await srv.app.ctx.botStore.botByName("drain-idle"))!.id;
    expect(srv.app.ctx.lobby.get(idleId)?.state).toBe("waiting");
    expect(idle.received.filter((m) => m.type === "hello")).toEqual([]);

    // The running match goes on to its end; then every socket closes with 1012.
    const onMsg = (data: WebSocket.RawData) => {
      const m = JSON.parse(String(data)) as Msg;
      if (m.type === "observation") player.send({ type: "turn", tick: m.tick });
    };
    player.ws.on("message", onMsg);
    player.send({ type: "turn", tick: held.tick });
    const end = await player.next("end", undefined, 60_000, 0);
    expect(end.match_id).toBe(hello.match_id);
    expect(["aborted", "voided"]).not.toContain(end.reason);
    for (const bot of [player, idle, late]) {
      expect(await bot.closed()).toBe(1012);
      expect(bot.closeReason).toBe("server restarting");
    }
    // The end message came before the close.
    expect(player.received.at(-1)!.type).toBe("end");
    await drained;
    expect(idle.received.filter((m) => m.type === "hello")).toEqual([]);
  });
});

describe("a short match budget, then a drain timeout", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ tickMs: 1_000, startupMs: 500, matchBudgetMs: 1_200, drainTimeoutMs: 300 });
  });

  it("deadlines shrink to what is left of the match budget", async () => {
    // A bot that never answers spends its whole deadline each tick: 1000 ms, then the 200 ms left, then 0.
    const bot = await connect(srv, "budget-bot");
    bot.send({ type: "queue", version: "v1" });
    const hello = await bot.next("hello");
    expect(hello.deadlines).toMatchObject({ tick_ms: 1_000, match_budget_ms: 1_200 });
    bot.send({ type: "ready" });
    const end = await bot.next("end", undefined, 15_000, 0);
    const me = hello.bot_id as number;
    const seen = bot.received
      .filter((m) => m.type === "observation")
      .map((o) => [o.tick, o.tick_ms, o.budget_ms_left]);
    expect(seen.slice(0, 4)).toEqual([
      [0, 1_000, 1_200],
      [1, 200, 200],
      [2, 0, 0],
      [3, 0, 0],
    ]);
    expect(end).toMatchObject({ reason: "disqualified", result: "loss", final_tick: 10 });
    const f = (
      end.stats as { fighters: { server_idles: { timeout: number }; timing: Record<string, number> }[] }
    ).fighters[me]!;
    expect(f.server_idles.timeout).toBe(10);
    expect(f.timing).toMatchObject({ budget_ms: 1_200, budget_ms_left: 0, tick_ms: 1_000 });
    bot.close();
  });

  afterAll(async () => {
    await srv?.stop();
  });

  it("abandons an unfinished match and closes 1012 when the drain timeout passes", async () => {
    const player = await connect(srv, "drain-stuck");
    const { hello } = await matchHeldAt(player, 1);
    const t0 = Date.now();
    const drained = srv.app.drain();
    const notice = await player.next("server_draining", undefined, 10_000, 0);
    // --drain-timeout 300 ms, counted from the drain call (between t0 and now).
    expect(Date.parse(notice.drain_deadline as string)).toBeGreaterThanOrEqual(t0 + 300);
    expect(Date.parse(notice.drain_deadline as string)).toBeLessThanOrEqual(Date.now() + 300);
    expect(await player.closed()).toBe(1012);
    expect(player.closeReason).toBe("server restarting");
    await drained;
    // Abandoned: no end message (SPEC 3.3).
    expect(player.received.filter((m) => m.type === "end")).toEqual([]);
    const store = await openStore({
      dataDir: srv.dataDir,
      ...(srv.databaseUrl ? { databaseUrl: srv.databaseUrl } : {}),
    });
    try {
      // Abandoned matches leave no stored result at all (SPEC 3.3): no void row whose replay and stats links
      // would answer 404, no stats, no replay file, no journal entry.
      const id = hello.match_id as string;
      expect(await new MatchStore(store).match(id)).toBeNull();
      expect(await new MatchStore(store).matchStats(id)).toBeNull();
      expect(existsSync(join(srv.dataDir, "replays", `${id}.jsonl.gz`))).toBe(false);
      expect(readdirSync(join(srv.dataDir, "journal"))).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
