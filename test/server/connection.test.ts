// The bot socket's connection-level behaviour on the live server (SPEC 6, 7.2, 8): opening-handshake
// errors, queue and leave errors, schema errors, the message size and rate limits, and WebSocket Pings.
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

type Msg = { type: string; [k: string]: unknown };
type Fighter = {
  server_idles: { timeout?: number };
  refused_turns_by_reason: Record<string, number>;
};

async function connect(srv: TestServer, token: string | null): Promise<BotClient> {
  const bot = new BotClient(srv.wsUrl, token);
  await bot.open();
  return bot;
}

/** Sends `m` and resolves with the next message of `type` after it. */
async function ask(bot: BotClient, m: unknown, type = "error"): Promise<Msg> {
  const since = bot.received.length;
  bot.send(m);
  return bot.next(type, undefined, 10_000, since);
}

describe("the bot socket (no house bots: a lone queued bot stays waiting)", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ tickMs: 200, startupMs: 500, houseBots: false });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("refuses a handshake without Authorization: missing_authorization, then close 1008", async () => {
    const bot = await connect(srv, null);
    const err = await bot.next("error", undefined, 10_000, 0);
    expect(err).toMatchObject({ type: "error", code: "missing_authorization" });
    expect(typeof err.message).toBe("string");
    expect(await bot.closed()).toBe(1008);
    expect(bot.received).toHaveLength(1);
  });

  it("refuses an unknown token: invalid_token, then close 1008", async () => {
    const bot = await connect(srv, "not-a-token");
    expect(await bot.next("error", undefined, 10_000, 0)).toMatchObject({ code: "invalid_token" });
    expect(await bot.closed()).toBe(1008);
  });

  it("answers queue and leave mistakes with their error codes and stays open", async () => {
    const bot = await connect(srv, await srv.register("conn-errors"));
    expect(await ask(bot, { type: "queue", version: "x".repeat(33) })).toMatchObject({
      code: "invalid_version",
    });
    expect(await ask(bot, { type: "queue", version: "" })).toMatchObject({ code: "invalid_version" });
    expect(await ask(bot, { type: "queue" })).toMatchObject({ code: "invalid_version" });
    expect(await ask(bot, { type: "queue", version: "v1", ladder_id: "nope" })).toMatchObject({
      code: "unknown_ladder",
    });
    // Labels the database cannot store as sent (U+0000, lone surrogates) are refused, not a server error.
    for (const version of ["v\u0000", "\u0000", "\ud800", "a\udc00b"])
      expect(await ask(bot, { type: "queue", version }), JSON.stringify(version)).toMatchObject({
        code: "invalid_version",
      });
    expect(await ask(bot, { type: "leave" })).toMatchObject({ code: "not_queued" });
    // There is no application heartbeat: {type: ping} is a schema error, like any unknown type.
    expect(await ask(bot, { type: "ping" })).toMatchObject({ code: "schema" });
    expect(await ask(bot, "not json")).toMatchObject({ code: "schema" });
    expect(await ask(bot, { no: "type" })).toMatchObject({ code: "schema" });
    expect(await ask(bot, { type: "ready" })).toMatchObject({ code: "schema" });
    expect(await ask(bot, { type: "turn", tick: 0 })).toMatchObject({ code: "schema" });
    const since = bot.received.length;
    bot.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    expect(await bot.next("error", undefined, 10_000, since)).toMatchObject({ code: "schema" });

    const queued = await ask(bot, { type: "queue", version: "v1", ladder_id: "public" }, "queued");
    expect(queued).toMatchObject({ type: "queued", version: "v1", ladder_id: "public" });
    expect(typeof queued.estimated_wait_s).toBe("number");
    const status = await srv.get<{ online: { name: string; state: string }[] }>("/api/status");
    expect(status.body.online).toContainEqual(
      expect.objectContaining({ name: "conn-errors", state: "waiting" }),
    );
    // Queue without ladder_id: `queued` omits it (protocol 0.6).
    const again = await ask(bot, { type: "queue", version: "v2" }, "queued");
    expect(again).toMatchObject({ version: "v2" });
    expect(again).not.toHaveProperty("ladder_id");
    // leave has no reply; a second leave shows the first took effect.
    bot.send({ type: "leave" });
    expect(await ask(bot, { type: "leave" })).toMatchObject({ code: "not_queued" });
    expect(bot.closeCode).toBeNull();
    // Every error carries a code and a message.
    for (const e of bot.received.filter((m) => m.type === "error")) {
      expect(typeof e.code).toBe("string");
      expect(typeof e.message).toBe("string");
    }
    bot.close();
  });

  it("accepts a message of exactly max_message_bytes and closes 1009 on a larger one", async () => {
    const bot = await connect(srv, await srv.register("conn-big"));
    const fit = JSON.stringify({ type: "leave", pad: "" });
    const exact = JSON.stringify({ type: "leave", pad: "x".repeat(4096 - fit.length) });
    expect(Buffer.byteLength(exact)).toBe(4096);
    expect(await ask(bot, exact)).toMatchObject({ code: "not_queued" });
    bot.send(JSON.stringify({ type: "leave", pad: "x".repeat(5000) }));
    expect(await bot.closed()).toBe(1009);
  });

  it("a flood while idle gets rate_limited, then the socket is closed 1008", async () => {
    const bot = await connect(srv, await srv.register("conn-flood"));
    for (let i = 0; i < 200; i++) bot.send({ type: "leave" });
    expect(await bot.closed()).toBe(1008);
    expect(bot.closeReason).toBe("rate_limited");
    const errors = bot.received.filter((m) => m.type === "error");
    // 50 per second are answered, then one rate_limited notice; the rest are dropped until the close.
    expect(errors.filter((e) => e.code === "not_queued")).toHaveLength(50);
    expect(errors.filter((e) => e.code === "rate_limited")).toHaveLength(1);
    expect(errors.at(-1)!.code).toBe("rate_limited");
  });

  it("during a match: queue/leave errors, messages per tick, and unknown types refused as turns", async () => {
    const a = await connect(srv, await srv.register("conn-p1", "owner-one"));
    const b = await connect(srv, await srv.register("conn-p2", "owner-two"));
    a.send({ type: "queue", version: "v1" });
    b.send({ type: "queue", version: "v1" });
    const [ha, hb] = await Promise.all([a.next("hello"), b.next("hello")]);
    expect(ha.match_id).toBe(hb.match_id);
    const me = ha.bot_id as number;
    // b answers everything at once; a is driven step by step below.
    const onB = (data: WebSocket.RawData) => {
      const m = JSON.parse(String(data)) as Msg;
      if (m.type === "observation") b.send({ type: "turn", tick: m.tick });
    };
    b.ws.on("message", onB);
    a.send({ type: "ready" });
    b.send({ type: "ready" });
    const o0 = await a.next("observation", undefined, 10_000, 0);
    expect(o0.tick).toBe(0);
    expect(await ask(a, { type: "queue", version: "v9" })).toMatchObject({ code: "already_queued" });
    expect(await ask(a, { type: "leave" })).toMatchObject({ code: "not_queued" });
    a.send({ type: "turn", tick: 0 });
    await a.next("observation", (m) => m.tick === 1, 10_000, 0);

    // Tick 1: seven stale turns, then the real one, all in one burst: one rate_limited error, and the
    // messages past the fifth (the real turn among them) are ignored, so the tick times out.
    let since = a.received.length;
    for (let i = 0; i < 7; i++) a.send({ type: "turn", tick: 0 });
    a.send({ type: "turn", tick: 1 });
    const o2 = await a.next("observation", (m) => m.tick === 2, 10_000, since);
    const limited = a.received.slice(since).filter((m) => m.type === "error");
    expect(limited).toHaveLength(1);
    expect(limited[0]).toMatchObject({ code: "rate_limited" });

    // Tick 2: an unknown message type is a refused turn, reported in the next observation's events.
    since = a.received.length;
    a.send({ type: "ping" });
    const o3 = await a.next("observation", (m) => m.tick === 3, 10_000, since);
    expect(o3.events).toContainEqual(
      expect.objectContaining({ type: "rejected", by: me, part: "turn", reason: "schema" }),
    );
    expect(a.received.slice(since).filter((m) => m.type === "error")).toEqual([]);
    const bObs3 = await b.next("observation", (m) => m.tick === 3, 10_000, 0);
    expect((bObs3.events as { type: string }[]).filter((e) => e.type === "rejected")).toEqual([]);
    expect(o2.tick).toBe(2);

    // a stops answering (b answered tick 3 before it stopped too): a reaches 10 consecutive failures first
    // (tick 1 timed out, tick 2 refused, ticks 3-10 timed out) and is disqualified.
    b.ws.off("message", onB);
    const [ea, eb] = await Promise.all([
      a.next("end", undefined, 15_000, 0),
      b.next("end", undefined, 15_000, 0),
    ]);
    expect(ea).toMatchObject({ reason: "disqualified", result: "loss", winner: 1 - me });
    expect(eb).toMatchObject({ reason: "disqualified", result: "win" });
    const f = (ea.stats as { fighters: Fighter[] }).fighters[me]!;
    expect(f.server_idles.timeout).toBe(9);
    expect(f.refused_turns_by_reason).toEqual({ schema: 1 });
    a.close();
    b.close();
  });

  it("the startup window is rate limited too: a flood before `ready` is cut off with 1008", async () => {
    const a = await connect(srv, await srv.register("conn-sflood", "owner-three"));
    const b = await connect(srv, await srv.register("conn-sfair", "owner-four"));
    a.send({ type: "queue", version: "v1" });
    b.send({ type: "queue", version: "v1" });
    await Promise.all([a.next("hello"), b.next("hello")]);
    b.send({ type: "ready" });
    for (let i = 0; i < 200; i++) a.send({ type: "turn", tick: 0 });
    expect(await a.closed()).toBe(1008);
    expect(a.closeReason).toBe("rate_limited");
    expect(a.received.filter((m) => m.type === "error").map((m) => m.code)).toEqual(["rate_limited"]);
    // The flooder never sent ready: it forfeits; the other bot wins at tick 0.
    expect(await b.next("end", undefined, 10_000, 0)).toMatchObject({ reason: "forfeit", result: "win" });
    b.close();
  });

  it("a socket that closes while its token is looked up is not left online", async () => {
    const token = await srv.register("conn-gone");
    const id = (await srv.app.ctx.botStore.botByName("conn-gone"))!.id;
    // The socket's token check reads the bot directory.
    const bots = srv.app.ctx.botDirectory;
    const original = bots.byToken;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let lookup: Promise<unknown> | null = null;
    bots.byToken = (t) => {
      const p = (async () => {
        const bot = await original.call(bots, t);
        await gate;
        return bot;
      })();
      lookup = p;
      return p;
    };
    try {
      const ws = new WebSocket(srv.wsUrl, { headers: { authorization: `Bearer ${token}` } });
      await once(ws, "open");
      ws.close();
      await once(ws, "close");
      release();
      await lookup;
      await new Promise((r) => setImmediate(r));
    } finally {
      bots.byToken = original;
    }
    expect(lookup).not.toBeNull();
    expect(srv.app.ctx.lobby.get(id)).toBeUndefined();
    const me = await fetch(`${srv.url}/api/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await me.json()) as { online: boolean }).online).toBe(false);
  });

  it("two player bots that both never send `ready` get a voided match", async () => {
    const a = await connect(srv, await srv.register("conn-void-a", "owner-five"));
    const b = await connect(srv, await srv.register("conn-void-b", "owner-six"));
    a.send({ type: "queue", version: "v1" });
    b.send({ type: "queue", version: "v1" });
    const [ha, hb] = await Promise.all([a.next("hello"), b.next("hello")]);
    expect(ha.match_id).toBe(hb.match_id);
    expect([ha.bot_id, hb.bot_id].sort()).toEqual([0, 1]);
    const [ea, eb] = await Promise.all([a.next("end"), b.next("end")]);
    for (const e of [ea, eb])
      expect(e).toMatchObject({ reason: "voided", result: "void", winner: null, final_tick: 0 });
    const id = ha.match_id as string;
    const list = await srv.get<{ id: string; voided: boolean; reason: string; winner: null }[]>(
      "/api/matches?bot=conn-void-a",
    );
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ id, voided: true, reason: "voided", winner: null, final_tick: 0 });
    const withStats = await srv.get<{ stats: unknown }[]>("/api/matches?bot=conn-void-b&stats=1");
    expect(withStats.body[0]!.stats).toBeNull();
    const stats = await srv.get<{ error: string; code: string }>(`/api/matches/${id}/stats`);
    expect(stats.status).toBe(404);
    expect(typeof stats.body.error).toBe("string");
    expect(typeof stats.body.code).toBe("string");
    a.close();
    b.close();
  });

  it("two bots of the same owner are never paired", async () => {
    const a = await connect(srv, await srv.register("conn-same-a", "owner-same"));
    const b = await connect(srv, await srv.register("conn-same-b", "owner-same"));
    a.send({ type: "queue", version: "v1" });
    b.send({ type: "queue", version: "v1" });
    await Promise.all([a.next("queued"), b.next("queued")]);
    srv.app.ctx.ladders.main.matchmaker.pass();
    const ids = await Promise.all(
      ["conn-same-a", "conn-same-b"].map(async (n) => (await srv.app.ctx.botStore.botByName(n))!.id),
    );
    for (const id of ids) expect(srv.app.ctx.lobby.get(id)!.state).toBe("waiting");
    expect([...a.received, ...b.received].filter((m) => m.type === "hello")).toEqual([]);
    a.close();
    b.close();
  });

  it("answers client Pings", async () => {
    const bot = await connect(srv, await srv.register("conn-ping"));
    const pong = once(bot.ws, "pong");
    bot.ws.ping(Buffer.from("hi"));
    const [data] = (await pong) as [Buffer];
    expect(data.toString()).toBe("hi");
    bot.close();
  });
});

describe("server Pings", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ houseBots: false, pingIntervalMs: 200 });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("a client that answers stays connected; one that does not is terminated", async () => {
    const [t1, t2] = [await srv.register("ping-ok"), await srv.register("ping-silent")];
    const healthy = await connect(srv, t1);
    const silent = new WebSocket(srv.wsUrl, { headers: { authorization: `Bearer ${t2}` }, autoPong: false });
    let silentPings = 0;
    silent.on("ping", () => silentPings++);
    const silentClosed = once(silent, "close");
    await once(silent, "open");
    let pings = 0;
    healthy.ws.on("ping", () => pings++);
    const [code] = (await silentClosed) as [number];
    // Terminated without a closing handshake after it missed a Ping.
    expect(code).toBe(1006);
    expect(silentPings).toBeGreaterThanOrEqual(1);
    // The healthy client got Pings too and is still open after a few more.
    while (pings < silentPings + 2) await once(healthy.ws, "ping");
    expect(healthy.ws.readyState).toBe(WebSocket.OPEN);
    healthy.close();
  });
});
