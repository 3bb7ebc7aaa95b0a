// Matches that survive trouble on the live server: a bot that drops and reconnects within the grace window
// resumes the same match; a second connection with the same token takes over (`replaced`); a killed or hung
// pool worker voids only its matches, tells the bots, and the server goes on playing.
import { type EventEmitter, once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readReplay } from "../../engine/replay.ts";
import { verifyReplay } from "../../engine/verify.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

type Msg = { type: string; [k: string]: unknown };
type Fighter = { server_idles: { timeout?: number; disconnected?: number }; disconnects: number };
type Stats = { fighters: Fighter[] };

async function connect(srv: TestServer, token: string): Promise<BotClient> {
  const bot = new BotClient(srv.wsUrl, token);
  await bot.open();
  return bot;
}

const idle = (o: Msg) => ({ type: "turn", tick: o.tick });

/** Plays from now on (ready is sent by the caller) until `end`. */
async function playToEnd(bot: BotClient): Promise<Msg> {
  const since = bot.received.length;
  const stop = bot.autoplay();
  try {
    return await bot.next("end", undefined, 60_000, since);
  } finally {
    stop();
  }
}

/** Polls until `cond` holds (state without an event of its own, such as a tick the server resolved). */
async function until(cond: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The messages received from index `since` on, by type, in order. */
const typesSince = (bot: BotClient, since = 0) => bot.received.slice(since).map((m) => m.type);

describe("on a server with short deadlines", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ tickMs: 200, startupMs: 500, reconnectGraceMs: 5_000 });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("a bot that reconnects within the grace window resumes the same match", async () => {
    const token = await srv.register("rec-resume");
    const a = await connect(srv, token);
    const hello = await a.queueForMatch();
    const id = hello.match_id as string;
    const me = hello.bot_id as number;
    // Play ticks 0-2, then drop the socket without answering tick 3.
    const stop = a.autoplay((o) => ((o.tick as number) < 3 ? idle(o) : undefined));
    a.send({ type: "ready" });
    await a.next("observation", (m) => m.tick === 3, 10_000, 0);
    stop();
    a.close();
    await a.closed();
    // While it is away the match goes on: wait until the server resolved two more ticks.
    const running = srv.app.ctx.matches.get(id)!;
    await until(() => running.tick >= 5, "two ticks passed while disconnected");

    const b = await connect(srv, token);
    const resumed = await b.next("hello", undefined, 10_000, 0);
    const obs = await b.next("observation", undefined, 10_000, 0);
    expect(typesSince(b).slice(0, 2)).toEqual(["hello", "observation"]);
    expect(resumed).toMatchObject({ match_id: id, bot_id: me });
    expect(resumed.tick as number).toBeGreaterThanOrEqual(5);
    expect(obs.tick).toBe(resumed.tick);
    b.send(idle(obs));
    const end = await playToEnd(b);
    expect(end).toMatchObject({ match_id: id });
    expect(["aborted", "voided", "forfeit", "disqualified"]).not.toContain(end.reason);

    const stats = await srv.get<Stats>(`/api/matches/${id}/stats`);
    expect(stats.status).toBe(200);
    const f = stats.body.fighters[me]!;
    const away = (resumed.tick as number) - 3;
    expect(f.server_idles.disconnected).toBeGreaterThanOrEqual(2);
    // The tick a reconnect lands on may still time out before its observation reaches the bot.
    expect((f.server_idles.disconnected ?? 0) + (f.server_idles.timeout ?? 0)).toBe(away);
    expect(f.disconnects).toBe(1);
    expect(stats.body.fighters[1 - me]!.disconnects).toBe(0);
    b.close();
  });

  it("the grace is a time: a bot away for more ticks than max_consecutive_failures still resumes", async () => {
    const token = await srv.register("rec-long-away");
    const a = await connect(srv, token);
    const hello = await a.queueForMatch();
    const id = hello.match_id as string;
    const me = hello.bot_id as number;
    const stop = a.autoplay((o) => ((o.tick as number) < 2 ? idle(o) : undefined));
    a.send({ type: "ready" });
    await a.next("observation", (m) => m.tick === 2, 10_000, 0);
    stop();
    a.close();
    await a.closed();
    // 200 ms ticks and a 5 s grace: twelve ticks away (2.4 s) is past the ten failures that used to disqualify.
    const running = srv.app.ctx.matches.get(id)!;
    await until(() => running.tick >= 14 || running.seats[me]!.graceOver, "twelve ticks passed while away");

    const b = await connect(srv, token);
    const resumed = await b.next("hello", undefined, 10_000, 0);
    expect(resumed).toMatchObject({ match_id: id, bot_id: me });
    const obs = await b.next("observation", undefined, 10_000, 0);
    b.send(idle(obs));
    const end = await playToEnd(b);
    expect(end.reason).not.toBe("disqualified");
    const stats = await srv.get<Stats>(`/api/matches/${id}/stats`);
    expect(stats.body.fighters[me]!.server_idles.disconnected).toBeGreaterThanOrEqual(11);
    b.close();
  });

  it("a bot that drops in the startup window gets the same hello again and can still send ready", async () => {
    const token = await srv.register("rec-startup");
    const a = await connect(srv, token);
    const hello = await a.queueForMatch();
    a.close();
    await a.closed();
    const b = await connect(srv, token);
    const again = await b.next("hello", undefined, 10_000, 0);
    expect(again).toEqual(hello);
    b.send({ type: "ready" });
    const end = await playToEnd(b);
    expect(end.match_id).toBe(hello.match_id);
    expect(["aborted", "voided", "forfeit", "disqualified"]).not.toContain(end.reason);
    b.close();
  });

  it("a second connection with the same token takes over a match; the first gets `replaced`", async () => {
    const token = await srv.register("rec-replace");
    const a = await connect(srv, token);
    const hello = await a.queueForMatch();
    const stop = a.autoplay((o) => ((o.tick as number) < 2 ? idle(o) : undefined));
    a.send({ type: "ready" });
    await a.next("observation", (m) => m.tick === 2, 10_000, 0);
    stop();

    const b = await connect(srv, token);
    const replaced = await a.next("replaced", undefined, 10_000, 0);
    expect(replaced).toEqual({ type: "replaced" });
    expect(await a.closed()).toBe(1000);
    expect(a.closeReason).toBe("replaced");
    const resumed = await b.next("hello", undefined, 10_000, 0);
    const obs = await b.next("observation", undefined, 10_000, 0);
    expect(typesSince(b).slice(0, 2)).toEqual(["hello", "observation"]);
    expect(resumed).toMatchObject({ match_id: hello.match_id, bot_id: hello.bot_id });
    expect(obs.tick).toBe(resumed.tick);
    b.send(idle(obs));
    const end = await playToEnd(b);
    expect(end.match_id).toBe(hello.match_id);
    expect(["aborted", "voided", "forfeit", "disqualified"]).not.toContain(end.reason);
    b.close();
  });

  it("a second connection while idle replaces the first and can queue", async () => {
    const token = await srv.register("rec-replace-idle");
    const a = await connect(srv, token);
    const b = await connect(srv, token);
    await a.next("replaced", undefined, 10_000, 0);
    expect(await a.closed()).toBe(1000);
    const hello = await b.queueForMatch();
    expect(typeof hello.match_id).toBe("string");
    b.send({ type: "ready" });
    await playToEnd(b);
    b.close();
  });

  it("a killed worker voids its matches, tells the bots, and the server plays on", async () => {
    const token = await srv.register("rec-crash");
    const bot = await connect(srv, token);
    const hello = await bot.queueForMatch();
    const id = hello.match_id as string;
    const stop = bot.autoplay((o) => ((o.tick as number) < 2 ? idle(o) : undefined));
    bot.send({ type: "ready" });
    await bot.next("observation", (m) => m.tick === 2, 10_000, 0);
    stop();
    // A second match on the same (only) worker, in its startup window, goes down with it.
    const other = await connect(srv, await srv.register("rec-crash-2"));
    const otherHello = await other.queueForMatch();
    expect(srv.app.ctx.matches.size).toBe(2);
    const since = bot.received.length;
    // The tick the match is at when its worker dies: 2, or later when the unanswered tick 2 timed out
    // (200 ms) while the second bot was being queued.
    const atKill = Math.max(
      ...bot.received.filter((m) => m.type === "observation").map((m) => m.tick as number),
    );
    expect(atKill).toBeGreaterThanOrEqual(2);
    srv.app.ctx.live.pool.killThread(0);
    const end = await bot.next("end", undefined, 10_000, since);
    const otherEnd = await other.next("end", undefined, 10_000, 0);
    expect(other.received.find((m) => m.type === "error")).toMatchObject({ code: "match_aborted" });
    expect(otherEnd).toMatchObject({ match_id: otherHello.match_id, reason: "aborted", result: "void" });
    other.close();
    expect(typesSince(bot, since)).toEqual(["error", "end"]);
    expect(bot.received[since]).toMatchObject({ type: "error", code: "match_aborted" });
    expect(end).toMatchObject({ match_id: id, reason: "aborted", result: "void", winner: null, stats: null });
    expect(end.final_tick).toBe(atKill);

    const stored = await srv.get<{ voided: boolean; reason: string; winner: null }>(`/api/matches/${id}`);
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ voided: true, reason: "aborted", winner: null });
    expect((await srv.get(`/api/matches/${id}/stats`)).status).toBe(404);
    expect((await srv.app.ctx.matchStore.match(id))!.note).toMatch(/^aborted: worker exited/);
    expect(srv.app.ctx.matches.size).toBe(0);

    // The pool replaced the worker: the same bot plays a whole new match.
    const again = await bot.queueForMatch();
    expect(again.match_id).not.toBe(id);
    bot.send({ type: "ready" });
    const end2 = await playToEnd(bot);
    expect(["aborted", "voided"]).not.toContain(end2.reason);
    expect(srv.app.ctx.live.pool.threads).toBe(1);
    bot.close();
  });
});

describe("on a server with long ticks and a short reconnect grace", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ tickMs: 1_000, startupMs: 500, reconnectGraceMs: 1_500 });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("a bot that does not come back is disqualified when the grace has passed, not after ten ticks", async () => {
    const token = await srv.register("rec-gone");
    const a = await connect(srv, token);
    const hello = await a.queueForMatch();
    const id = hello.match_id as string;
    const me = hello.bot_id as number;
    const stop = a.autoplay((o) => ((o.tick as number) < 1 ? idle(o) : undefined));
    a.send({ type: "ready" });
    await a.next("observation", (m) => m.tick === 1, 10_000, 0);
    stop();
    const running = srv.app.ctx.matches.get(id)!;
    a.close();
    await a.closed();
    await running.ended;

    const match = await srv.get<{ reason: string; final_tick: number }>(`/api/matches/${id}`);
    expect(match.body.reason).toBe("disqualified");
    // Gone during tick 1; 1.5 s of 1 s ticks is tick 2, far from the 10 ticks a failure count would take.
    expect(match.body.final_tick).toBeLessThanOrEqual(3);
    const replay = await fetch(`${srv.url}/replays/${id}.jsonl.gz`);
    const bytes = new Uint8Array(await replay.arrayBuffer());
    expect(readReplay(bytes).lines.filter((l) => l.type === "disqualify")).toEqual([
      { type: "disqualify", tick: match.body.final_tick, fighters: [me] },
    ]);
    expect(verifyReplay(bytes)).toMatchObject({ ok: true, reason: "disqualified", winner: 1 - me });
  });
});

describe("the hung-worker watchdog", () => {
  // The watchdog is shorter than a tick: it must only run while the front process waits on the worker. It
  // also covers a new match's wait for its worker (queueing, and booting a replacement worker).
  let srv: TestServer;
  beforeAll(async () => {
    // 2.5 s, not less: a replacement worker booting on a loaded machine (tsx compiling its modules) must not
    // be taken for a hung one.
    srv = await startServer({ tickMs: 4_000, startupMs: 500 }, { workerTimeoutMs: 2_500 });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("does not fire while a reconnected bot takes its time to answer", async () => {
    const token = await srv.register("dog-resume");
    const a = await connect(srv, token);
    const hello = await a.queueForMatch();
    a.send({ type: "ready" });
    const first = await a.next("observation", undefined, 10_000, 0);
    a.close();
    await a.closed();
    const b = await connect(srv, token);
    const resumed = await b.next("hello", undefined, 10_000, 0);
    expect(resumed.match_id).toBe(hello.match_id);
    const obs = await b.next("observation", undefined, 10_000, 0);
    expect(obs.tick as number).toBeGreaterThanOrEqual(first.tick as number);
    // No answer: the tick deadline (4 s), not the 2.5 s watchdog, decides this tick.
    const next = await b.next("observation", (m) => m.tick === (obs.tick as number) + 1, 10_000, 0);
    expect(b.received.filter((m) => m.type === "error" || m.type === "end")).toEqual([]);
    b.send(idle(next));
    const end = await playToEnd(b);
    expect(["aborted", "voided"]).not.toContain(end.reason);
    b.close();
  });

  it("one worker runs several matches at once", async () => {
    // Three bots hold their matches open (no answers for a 4 s tick) while all three are under way.
    const bots = await Promise.all(
      ["many-1", "many-2", "many-3"].map(async (n) => connect(srv, await srv.register(n))),
    );
    const hellos: Msg[] = [];
    for (const b of bots) {
      hellos.push(await b.queueForMatch());
      b.send({ type: "ready" });
    }
    await Promise.all(bots.map((b) => b.next("observation", (m) => m.tick === 0, 10_000, 0)));
    expect(srv.app.ctx.live.pool.threads).toBe(1);
    expect(new Set(hellos.map((h) => h.match_id)).size).toBe(3);
    expect([...srv.app.ctx.matches.keys()].sort()).toEqual(hellos.map((h) => h.match_id as string).sort());
    const ends = await Promise.all(
      bots.map((b) => {
        const obs = b.received.find((m) => m.type === "observation")!;
        b.send(idle(obs));
        return playToEnd(b);
      }),
    );
    for (const e of ends) expect(["aborted", "voided"]).not.toContain(e.reason);
    for (const b of bots) b.close();
  });

  it("terminates a worker that stops answering: the match is void and the server plays on", async () => {
    const token = await srv.register("dog-hang");
    const bot = await connect(srv, token);
    const hello = await bot.queueForMatch();
    const id = hello.match_id as string;
    bot.send({ type: "ready" });
    const obs = await bot.next("observation", undefined, 10_000, 0);
    // Simulate a hung worker: from now on the front's messages never reach it, so it never answers.
    const running = srv.app.ctx.matches.get(id) as unknown as { channel: { send(m: unknown): void } };
    running.channel.send = () => {};
    const piscina = (srv.app.ctx.live.pool as unknown as { piscina: EventEmitter }).piscina;
    const replaced = once(piscina, "workerCreate");
    const since = bot.received.length;
    bot.send(idle(obs));
    const end = await bot.next("end", undefined, 10_000, since);
    expect(typesSince(bot, since)).toEqual(["error", "end"]);
    expect(bot.received[since]).toMatchObject({ type: "error", code: "match_aborted" });
    expect(end).toMatchObject({ match_id: id, reason: "aborted", result: "void" });
    const stored = await srv.get<{ voided: boolean; reason: string }>(`/api/matches/${id}`);
    expect(stored.body).toMatchObject({ voided: true, reason: "aborted" });
    // The stored note (for operators) names the cause.
    expect((await srv.app.ctx.matchStore.match(id))!.note).toBe("aborted: worker stopped answering");

    // Piscina replaces the terminated worker; the next match waits for it to be ready (not a hang).
    await replaced;
    const again = await bot.queueForMatch();
    expect(again.match_id).not.toBe(id);
    bot.send({ type: "ready" });
    const end2 = await playToEnd(bot);
    expect(["aborted", "voided"]).not.toContain(end2.reason);
    bot.close();
  });
});
