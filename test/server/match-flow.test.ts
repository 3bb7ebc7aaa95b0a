// Whole matches against house bots on the live server: a full match to `end` with its stored record, list
// queries, stats and a replay that re-simulates; a bot that never sends `ready` (forfeit at tick 0); a bot that
// stops answering and one that answers with garbage (disqualified after 10 failures).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EndMessage, HelloMessage, ObservationMessage } from "../../engine/protocol.ts";
import { verifyReplay } from "../../engine/verify.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

type Msg = { type: string; [k: string]: unknown };
type Fighter = {
  id: number;
  name: string;
  server_idles: { timeout?: number; disconnected?: number };
  refused_turns: number;
  refused_turns_by_reason: Record<string, number>;
  disqualified: boolean;
  disconnects: number;
};
type Stats = { stats_version: number; match_id?: string; ticks: number; reason: string; fighters: Fighter[] };

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ tickMs: 200, startupMs: 500 });
});
afterAll(async () => {
  await srv?.stop();
});

async function connect(name: string): Promise<BotClient> {
  const bot = new BotClient(srv.wsUrl, await srv.register(name));
  await bot.open();
  return bot;
}

const firstMove = (o: Msg) => ({
  type: "turn",
  tick: o.tick,
  move: (o.moves as { dir: string }[])[0]?.dir,
});

describe("a full match against a house bot", () => {
  it("plays to `end` with the SPEC 6.2 fields, and the match is listed, stored and replayable", async () => {
    const bot = await connect("flow-full");
    const hello = await bot.queueForMatch();
    expect(HelloMessage.safeParse(hello).error).toBeUndefined();
    expect(hello.protocol_version).toBe("0.6");
    expect(hello.deadlines).toMatchObject({ tick_ms: 200, startup_ms: 500, max_consecutive_failures: 10 });
    const id = hello.match_id as string;
    const me = hello.bot_id as number;
    const since = bot.received.length;
    const stop = bot.autoplay((o) => {
      expect(ObservationMessage.safeParse(o).error).toBeUndefined();
      return firstMove(o);
    });
    bot.send({ type: "ready" });
    const end = await bot.next("end", undefined, 60_000, since);
    stop();
    expect(EndMessage.safeParse(end).error).toBeUndefined();
    expect(end).toMatchObject({ match_id: id, ladder_id: "public" });
    // A ranked result is rated: the change is a whole number, negative after a loss, positive after a win.
    expect(Number.isInteger(end.rating_change)).toBe(true);
    expect(end.watch_url).toMatch(new RegExp(`/view/${id}$`));
    expect(["last_standing", "timeout_hp", "timeout_damage", "timeout_draw", "double_knockout"]).toContain(
      end.reason,
    );
    const expectedResult = end.winner === null ? "draw" : end.winner === me ? "win" : "loss";
    expect(end.result).toBe(expectedResult);
    const endStats = end.stats as Stats;
    expect(endStats.stats_version).toBe(2);
    expect(endStats.match_id).toBe(id);
    expect(endStats.ticks).toBe(end.final_tick);
    expect(endStats.fighters[me]!.name).toBe("flow-full");
    // Every observation was answered at once: no idles.
    expect(endStats.fighters[me]!.server_idles.timeout ?? 0).toBe(0);

    const list = await srv.get<Record<string, unknown>[]>("/api/matches?bot=flow-full");
    expect(list.status).toBe(200);
    expect(list.body.map((m) => m.id)).toEqual([id]);
    const m = list.body[0]!;
    const rated = (m.bots as { name: string; rating_before: number; rating_after: number }[]).find(
      (b) => b.name === "flow-full",
    )!;
    expect(rated.rating_after - rated.rating_before).toBe(end.rating_change);
    if (end.result === "win") expect(end.rating_change as number).toBeGreaterThan(0);
    if (end.result === "loss") expect(end.rating_change as number).toBeLessThan(0);
    if (end.result === "draw") {
      // A draw moves a version toward its opponent: up against a higher-rated one, down against a lower
      // (or not at all once rounded).
      const opponent = (m.bots as { name: string; rating_before: number }[]).find(
        (b) => b.name !== "flow-full",
      )!;
      const toward = Math.sign(opponent.rating_before - rated.rating_before);
      expect(Math.sign(end.rating_change as number) * toward).toBeGreaterThanOrEqual(0);
      if (toward === 0) expect(end.rating_change).toBe(0);
    }
    for (const k of ["id", "ladder_id", "mode", "seed", "map", "started", "ended", "duration_ms"])
      expect(m, k).toHaveProperty(k);
    for (const k of [
      "final_tick",
      "reason",
      "winner",
      "voided",
      "bots",
      "replay_url",
      "stats_url",
      "watch_url",
    ])
      expect(m, k).toHaveProperty(k);
    expect(m).not.toHaveProperty("stats");
    expect(m).toMatchObject({
      ladder_id: "public",
      mode: "ranked",
      final_tick: end.final_tick,
      reason: end.reason,
      voided: false,
    });
    expect(m.duration_ms as number).toBeGreaterThan(0);
    const bots = m.bots as { id: string; name: string; house: boolean; fighter: number }[];
    expect(bots.map((b) => b.fighter).sort()).toEqual([0, 1]);
    const mine = bots.find((b) => b.name === "flow-full")!;
    expect(mine).toMatchObject({ fighter: me, house: false, version: "v1" });
    expect(bots.find((b) => b !== mine)!.house).toBe(true);
    const winnerBot = end.winner === null ? null : bots.find((b) => b.fighter === end.winner)!.id;
    expect(m.winner).toBe(winnerBot);

    const one = await srv.get<Record<string, unknown>>(`/api/matches/${id}`);
    expect(one.status).toBe(200);
    // The one match is the list's entry plus why it was paired (issue 33): a player against a house bot that
    // waited nothing is a competitive pairing.
    const { pairing, ...listed } = one.body;
    expect(listed).toEqual(m);
    expect(pairing).toMatchObject({ reason: "competitive", map: { reason: "least_played", games: 0 } });
    const stats = await srv.get<Stats>(`/api/matches/${id}/stats`);
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual(endStats);
    const withStats = await srv.get<{ id: string; stats: Stats | null }[]>(
      "/api/matches?bot=flow-full&stats=1",
    );
    expect(withStats.body[0]!.stats).toMatchObject({ stats_version: 2, ticks: end.final_tick });
    const byLadder = await srv.get<{ id: string }[]>("/api/matches?ladder=public&limit=500&stats=true");
    expect(byLadder.status).toBe(200);
    expect(byLadder.body.map((x) => x.id)).toContain(id);

    const replay = await fetch(`${srv.url}/replays/${id}.jsonl.gz`);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("content-type")).toBe("application/gzip");
    const verified = verifyReplay(new Uint8Array(await replay.arrayBuffer()));
    expect(verified).toEqual({
      ok: true,
      matchId: id,
      ticks: end.final_tick,
      winner: end.winner,
      reason: end.reason,
    });
    bot.close();
  });

  it("validates the match list query and answers unknown matches with 404", async () => {
    for (const q of ["limit=0", "limit=501", "limit=x", "limit=1.5", "stats=maybe", "bot=a%20b"]) {
      const r = await srv.get<{ error: string; code: string }>(`/api/matches?${q}`);
      expect(r.status, q).toBe(400);
      expect(typeof r.body.error, q).toBe("string");
      expect(r.body.code, q).toBe("bad_request");
    }
    const nope = await srv.get<{ error: string; code: string }>("/api/matches?ladder=nope");
    expect(nope.status).toBe(404);
    expect(nope.body.code).toBe("unknown_ladder");
    expect((await srv.get("/api/matches?limit=1")).status).toBe(200);
    expect((await srv.get("/api/matches?limit=500")).status).toBe(200);
    expect((await srv.get("/api/matches?bot=nobody-here")).body).toEqual([]);
    for (const path of [
      "/api/matches/m-unknown",
      "/api/matches/m-unknown/stats",
      "/replays/m-unknown.jsonl.gz",
    ]) {
      const r = await srv.get<{ error: string; code: string }>(path);
      expect(r.status, path).toBe(404);
      expect(typeof r.body.error, path).toBe("string");
      expect(typeof r.body.code, path).toBe("string");
    }
  });
});

describe("house bots", () => {
  it("hold their names: registering one in any case is refused as invalid_bot", async () => {
    for (const name of ["champion", "Ts-Starter", "KITER", "brawler"]) {
      const res = await fetch(`${srv.url}/api/bots`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name }),
      });
      expect(res.status, name).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe("invalid_bot");
    }
  });
});

describe("the startup window", () => {
  it("a bot that never sends `ready` forfeits at tick 0 and the house bot wins", async () => {
    const bot = await connect("flow-noready");
    const hello = await bot.queueForMatch();
    const me = hello.bot_id as number;
    const since = bot.received.length;
    const end = await bot.next("end", undefined, 10_000, since);
    expect(bot.received.slice(since).filter((m) => m.type === "observation")).toEqual([]);
    expect(end).toMatchObject({ reason: "forfeit", result: "loss", final_tick: 0, winner: 1 - me });
    const stored = await srv.get<{ reason: string; voided: boolean; final_tick: number; winner: string }>(
      `/api/matches/${hello.match_id}`,
    );
    expect(stored.body).toMatchObject({ reason: "forfeit", voided: false, final_tick: 0 });
    const list = await srv.get<{ bots: { id: string; house: boolean }[] }[]>("/api/matches?bot=flow-noready");
    const house = list.body[0]!.bots.find((b) => b.house)!;
    expect(stored.body.winner).toBe(house.id);
    // A forfeit is a rated result with stats (not voided).
    expect((await srv.get(`/api/matches/${hello.match_id}/stats`)).status).toBe(200);
    bot.close();
  });
});

describe("failures and disqualification", () => {
  it("a bot that stops answering idles as `timeout` and is disqualified after 10 failures", async () => {
    const bot = await connect("flow-silent");
    const hello = await bot.queueForMatch();
    const me = hello.bot_id as number;
    const since = bot.received.length;
    bot.send({ type: "ready" });
    const end = await bot.next("end", undefined, 15_000, since);
    expect(end).toMatchObject({ reason: "disqualified", result: "loss", winner: 1 - me, final_tick: 10 });
    const f = (end.stats as Stats).fighters[me]!;
    expect(f.server_idles.timeout).toBe(10);
    expect(f.server_idles.disconnected ?? 0).toBe(0);
    expect(f.disqualified).toBe(true);
    expect((end.stats as Stats).fighters[1 - me]!.disqualified).toBe(false);
    const stored = await srv.get<Stats>(`/api/matches/${hello.match_id}/stats`);
    expect(stored.body.fighters[me]!.server_idles.timeout).toBe(10);
    bot.close();
  });

  it("garbage turns are refused as `schema` (rejected events) and disqualify after 10", async () => {
    const bot = await connect("flow-garbage");
    const hello = await bot.queueForMatch();
    const me = hello.bot_id as number;
    const since = bot.received.length;
    const garbage: unknown[] = [
      "not json at all",
      { type: "ping" },
      { type: "turn", tick: "zero" },
      { type: "what" },
      [1, 2, 3],
    ];
    let n = 0;
    const stop = bot.autoplay(() => garbage[n++ % garbage.length]);
    bot.send({ type: "ready" });
    const end = await bot.next("end", undefined, 15_000, since);
    stop();
    expect(end).toMatchObject({ reason: "disqualified", result: "loss", final_tick: 10 });
    const f = (end.stats as Stats).fighters[me]!;
    expect(f.refused_turns).toBe(10);
    expect(f.refused_turns_by_reason).toEqual({ schema: 10 });
    expect(f.server_idles.timeout ?? 0).toBe(0);
    expect(f.disqualified).toBe(true);
    // Each refusal is reported to the bot in the next observation's events.
    const observations = bot.received.slice(since).filter((m) => m.type === "observation");
    expect(observations).toHaveLength(10);
    for (const o of observations.slice(1)) {
      expect(o.events).toContainEqual(
        expect.objectContaining({ type: "rejected", by: me, part: "turn", reason: "schema" }),
      );
    }
    bot.close();
  });
});
