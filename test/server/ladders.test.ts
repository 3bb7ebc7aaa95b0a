// Ladders as first-class runtime (issue 12): two ladders at once with independent ratings, leaderboards,
// match lists, lobbies and quotas; `?ladder=` on every route and the 404 for an unknown one; phases on a
// shortened window (an upcoming ladder holds its queue, opens on time and pairs it, closes on time and
// starts nothing more).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EndMessage, QueuedMessage } from "../../engine/protocol.ts";
import type { Manifest } from "../../server/ladders/manifest.ts";
import { versionKey } from "../../server/ratings/book.ts";
import { ladderDef } from "../helpers/ladders.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

const ladder = ladderDef;

describe("two ladders in one server", () => {
  let srv: TestServer;
  const manifest: Manifest = {
    version: 1,
    ladders: [
      ladder("public"),
      ladder("spring"),
      ladder("secret", { visible: false }),
      ladder("players", { house_bots: false }),
    ],
  };

  beforeAll(async () => {
    srv = await startServer({}, { manifest });
  });
  afterAll(async () => srv?.stop());

  async function playOn(bot: BotClient, ladderId: string | undefined, version = "v1") {
    const since = bot.received.length;
    const ended = bot.playUntilEnd();
    bot.send({ type: "queue", version, ...(ladderId ? { ladder_id: ladderId } : {}) });
    const queued = await bot.next("queued", undefined, 15_000, since);
    return { queued, end: await ended };
  }

  it("plays the same version on both, with independent ratings, lists, leaderboards and lobbies", async () => {
    const token = await srv.register("twin", "alice");
    const bot = new BotClient(srv.wsUrl, token);
    await bot.open();
    const spring = await playOn(bot, "spring");
    expect(spring.queued).toMatchObject({ type: "queued", version: "v1", ladder_id: "spring" });
    expect(spring.end).toMatchObject({ type: "end", ladder_id: "spring" });
    // Outgoing messages match the protocol's published schemas.
    expect(QueuedMessage.safeParse(spring.queued).success).toBe(true);
    expect(EndMessage.safeParse(spring.end).success).toBe(true);
    const pub = await playOn(bot, undefined);
    expect(pub.queued.ladder_id).toBeUndefined(); // omitted in, omitted out (SPEC 6.2)
    expect(pub.end).toMatchObject({ type: "end", ladder_id: "public" });
    const again = await playOn(bot, "spring");
    expect(again.end.ladder_id).toBe("spring");

    const springMatches = await srv.get<{ id: string; ladder_id: string }[]>(
      "/api/matches?ladder=spring&bot=twin",
    );
    const publicMatches = await srv.get<{ id: string; ladder_id: string }[]>(
      "/api/matches?ladder=public&bot=twin",
    );
    expect(springMatches.body.map((m) => m.id).sort()).toEqual(
      [spring.end.match_id, again.end.match_id].sort(),
    );
    expect(springMatches.body.every((m) => m.ladder_id === "spring")).toBe(true);
    expect(publicMatches.body.map((m) => m.id)).toEqual([pub.end.match_id]);

    // Independent rating books: two rated games on spring, one on public, for the same version.
    const botId = (await srv.app.ctx.botStore.botByName("twin"))!.id;
    const key = versionKey(botId, "v1");
    expect(srv.app.ctx.ladders.require("spring").ratings.get(key).games).toBe(2);
    expect(srv.app.ctx.ladders.require("public").ratings.get(key).games).toBe(1);
    expect(srv.app.ctx.ladders.require("secret").ratings.get(key).games).toBe(0);

    // The bot page is scoped: its records count that ladder's games only.
    const springBot = await srv.get<{
      ladder_id: string;
      versions: { wins: number; losses: number; draws: number }[];
    }>("/api/bots/twin?ladder=spring");
    const publicBot = await srv.get<typeof springBot.body>("/api/bots/twin");
    const total = (b: typeof springBot.body) =>
      b.versions.reduce((n, v) => n + v.wins + v.losses + v.draws, 0);
    expect(springBot.body.ladder_id).toBe("spring");
    expect(total(springBot.body)).toBe(2);
    expect(total(publicBot.body)).toBe(1);
    const user = await srv.get<{
      ladder_id: string;
      bots: { wins: number; losses: number; draws: number }[];
    }>("/api/users/alice?ladder=spring");
    expect(user.body.ladder_id).toBe("spring");
    expect(user.body.bots.reduce((n, b) => n + b.wins + b.losses + b.draws, 0)).toBe(2);

    // The lobby shows a player's bot on the ladder it queued on last (house bots serve every ladder).
    const springLobby = await srv.get<{ name: string }[]>("/api/lobby?ladder=spring");
    const secretLobby = await srv.get<{ name: string; house: boolean }[]>("/api/lobby?ladder=secret");
    expect(springLobby.body.map((e) => e.name)).toContain("twin");
    expect(secretLobby.body.map((e) => e.name)).not.toContain("twin");
    expect(secretLobby.body.every((e) => e.house)).toBe(true);
    bot.close();
  });

  it("scopes every route by ?ladder= and answers 404 unknown_ladder for an unknown one", async () => {
    for (const path of [
      "/api/leaderboard",
      "/api/lobby",
      "/api/status",
      "/api/matches",
      "/api/bots/twin",
      "/api/bots/twin/ratings",
      "/api/users/alice",
      "/api/ladders",
    ]) {
      const sep = path.includes("?") ? "&" : "?";
      const ok = await srv.get(`${path}${sep}ladder=spring`);
      expect(ok.status, path).toBe(200);
      const bad = await srv.get<{ error: string; code: string }>(`${path}${sep}ladder=nowhere`);
      expect(bad.status, path).toBe(404);
      expect(bad.body, path).toEqual({ error: 'unknown ladder "nowhere"', code: "unknown_ladder" });
    }
    const status = await srv.get<{ matches: { ladder_id: string }[] }>("/api/status?ladder=spring");
    expect(status.body.matches.every((m) => m.ladder_id === "spring")).toBe(true);
  });

  it("scopes the pages by ?ladder= as well: an unknown ladder is a 404 page", async () => {
    for (const path of ["/", "/ladder", "/create-bot", "/bot/twin", "/user/alice"]) {
      const ok = await fetch(`${srv.url}${path}?ladder=spring`);
      expect(ok.status, path).toBe(200);
      expect(await ok.text(), path).toContain('data-ladder="spring"');
      const bad = await fetch(`${srv.url}${path}?ladder=nowhere`);
      expect(bad.status, path).toBe(404);
      expect(bad.headers.get("x-robots-tag"), path).toBe("noindex");
    }
  });

  it("lists visible ladders, and a hidden one only when named", async () => {
    const listed =
      await srv.get<{ id: string; phase: string; access: string; leaderboard_url: string }[]>("/api/ladders");
    expect(listed.body.map((l) => l.id)).toEqual(["public", "spring", "players"]);
    expect(listed.body[1]).toMatchObject({
      id: "spring",
      name: "spring ladder",
      enabled: true,
      visible: true,
      access: "open",
      phase: "open",
      events: [],
    });
    expect(listed.body[1]!.leaderboard_url).toBe(
      `${srv.app.ctx.config.publicUrl}/api/leaderboard?ladder=spring`,
    );
    const named = await srv.get<{ id: string }[]>("/api/ladders?ladder=secret");
    expect(named.body.map((l) => l.id)).toEqual(["public", "spring", "secret", "players"]);
  });

  it("a ladder without house bots shows none and pairs its players only with each other", async () => {
    const names = (body: { name: string; house: boolean }[]) =>
      body.filter((e) => e.house).map((e) => e.name);
    expect(
      names((await srv.get<{ name: string; house: boolean }[]>("/api/lobby")).body).length,
    ).toBeGreaterThan(0);
    expect(
      names((await srv.get<{ name: string; house: boolean }[]>("/api/lobby?ladder=players")).body),
    ).toEqual([]);
    const status = await srv.get<{ online: { house: boolean }[] }>("/api/status?ladder=players");
    expect(status.body.online.filter((o) => o.house)).toEqual([]);

    const first = new BotClient(srv.wsUrl, await srv.register("solo-one", "owner-one"));
    await first.open();
    first.send({ type: "queue", version: "v1", ladder_id: "players" });
    await first.next("queued", undefined, 10_000, 0);
    // The server's matchmaker would have offered a house bot at once (houseWaitMs 0): here it offers none.
    const players = srv.app.ctx.ladders.require("players");
    const waiting = srv.app.ctx.lobby.get((await srv.app.ctx.botStore.botByName("solo-one"))!.id)!;
    for (let i = 0; i < 3; i++) players.matchmaker.pass();
    // A start would have moved it out of the queue within the pass (on public it would be playing now).
    expect(waiting.state).toBe("waiting");
    expect(players.estimatedWaitS(waiting)).toBe(0);

    const second = new BotClient(srv.wsUrl, await srv.register("solo-two", "owner-two"));
    await second.open();
    second.send({ type: "queue", version: "v1", ladder_id: "players" });
    const [ha, hb] = await Promise.all([
      first.next("hello", undefined, 15_000, 0),
      second.next("hello", undefined, 15_000, 0),
    ]);
    expect(ha.match_id).toBe(hb.match_id);
    expect((ha.fighters as { name: string }[]).map((f) => f.name).sort()).toEqual(["solo-one", "solo-two"]);
    expect(ha).toMatchObject({ ladder_id: "players" });
    first.close();
    second.close();
  });

  it("refuses a queue on an unknown ladder on the socket, and the bot stays connected", async () => {
    const token = await srv.register("stray", "bob");
    const bot = new BotClient(srv.wsUrl, token);
    await bot.open();
    const since = bot.received.length;
    bot.send({ type: "queue", version: "v1", ladder_id: "nowhere" });
    expect(await bot.next("error", undefined, 15_000, since)).toMatchObject({ code: "unknown_ladder" });
    const { end } = await playOn(bot, "spring");
    expect(end.ladder_id).toBe("spring");
    bot.close();
  });
});

describe("ladder phases on a shortened window", () => {
  let srv: TestServer;
  const opensIn = 2_500;
  const openFor = 7_000;
  let opensAt = 0;
  let closesAt = 0;

  beforeAll(async () => {
    const later = (ms: number) => new Date(Date.now() + ms).toISOString();
    const manifest: Manifest = {
      version: 1,
      ladders: [ladder("public"), ladder("cup", { opens_at: later(3_600_000), closes_at: later(7_200_000) })],
    };
    // House bots are offered only after a minute: the two players must meet each other.
    srv = await startServer({}, { manifest, houseWaitMs: 60_000 });
    // The window, shortened once the server is up (its start-up time varies with the machine's load).
    opensAt = Date.now() + opensIn;
    closesAt = opensAt + openFor;
    srv.app.ctx.ladders.setWindow("cup", new Date(opensAt).toISOString(), new Date(closesAt).toISOString());
    srv.app.ctx.scheduler.reschedule();
  });
  afterAll(async () => srv?.stop());

  it("holds the queue while upcoming, pairs it on opening, and starts nothing after closing", async () => {
    const a = new BotClient(srv.wsUrl, await srv.register("early-a", "ann"));
    const b = new BotClient(srv.wsUrl, await srv.register("early-b", "ben"));
    await Promise.all([a.open(), b.open()]);
    const upcoming = await srv.get<{ id: string; phase: string }[]>("/api/ladders");
    expect(upcoming.body.find((l) => l.id === "cup")!.phase).toBe("upcoming");

    const ended = [a.playUntilEnd(), b.playUntilEnd()];
    for (const bot of [a, b]) bot.send({ type: "queue", version: "v1", ladder_id: "cup" });
    const queued = await a.next("queued", undefined, 15_000, 0);
    await b.next("queued", undefined, 15_000, 0);
    // The estimate includes the wait for opening.
    expect(queued.estimated_wait_s as number).toBeGreaterThan(0.5);
    const hello = await a.next("hello", undefined, 15_000, 0);
    // Paired on opening, not before.
    expect(Date.now()).toBeGreaterThanOrEqual(opensAt);
    expect(hello.match_id).toEqual(expect.any(String));
    const ends = await Promise.all(ended);
    expect(ends.map((e) => e.ladder_id)).toEqual(["cup", "cup"]);
    if (Date.now() >= closesAt) throw new Error("the match outlasted the window; lengthen openFor");

    // A waiting bot is told when the ladder closes, and a later queue is refused.
    const sinceA = a.received.length;
    a.send({ type: "queue", version: "v1", ladder_id: "cup" });
    await a.next("queued", undefined, 15_000, sinceA);
    const closed = await a.next("error", undefined, openFor + 5_000, sinceA);
    expect(closed).toMatchObject({ code: "ladder_closed" });
    expect(Date.now()).toBeGreaterThanOrEqual(closesAt);
    const sinceB = b.received.length;
    b.send({ type: "queue", version: "v1", ladder_id: "cup" });
    expect(await b.next("error", undefined, 15_000, sinceB)).toMatchObject({ code: "ladder_closed" });

    const listed = await srv.get<{ id: string; phase: string }[]>("/api/ladders");
    expect(listed.body.find((l) => l.id === "cup")!.phase).toBe("closed");
    const matches = await srv.get<unknown[]>("/api/matches?ladder=cup");
    expect(matches.body).toHaveLength(1);
    a.close();
    b.close();
  });
});
