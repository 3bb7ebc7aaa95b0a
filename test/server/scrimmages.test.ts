// Scrimmages and batch tests on the real server (issue 34, parts 1 and 2) with real WebSocket bots: a
// scrimmage against a house bot and against the owner's other bot (each an ordinary hello ... end of mode
// `scrimmage` with rating_change null), refusals for an opponent that has not opted in or is offline, an
// opt-in and a decline, nothing of a scrimmage in ratings, forecasts, the leaderboard or what the rating books
// load at start-up, the owner's limits from the live settings, and a batch of 20 games against two house bots
// whose summary is checked against the games themselves.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { versionKey } from "../../server/ratings/book.ts";
import { Z95 } from "../../server/scrimmages/summary.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let root: SignedIn;
let ann: SignedIn;
let bob: SignedIn;
const bots = new Map<string, BotClient>();
const ids = new Map<string, string>();

const api = (who: SignedIn, method: string, path: string, body?: unknown) =>
  call(srv.url, method, path, { token: who.access, ...(body !== undefined ? { body } : {}) });

async function register(who: SignedIn, name: string, connect = true): Promise<void> {
  const r = await api(who, "POST", "/api/account/bots", { name });
  expect(r.status).toBe(201);
  const bot = (await srv.get<{ name: string }>(`/api/bots/${name}`)).body;
  expect(bot.name).toBe(name);
  ids.set(name, (await srv.app.ctx.botStore.botByName(name))!.id);
  if (!connect) return;
  const c = new BotClient(srv.wsUrl, r.body.token as string);
  await c.open();
  bots.set(name, c);
}

async function settings(global: Record<string, number>): Promise<void> {
  const s = await api(root, "GET", "/api/admin/settings");
  const r = await api(root, "PUT", "/api/admin/settings", {
    revision: s.body.revision,
    overrides: { global, ladders: {} },
  });
  expect(r.status).toBe(200);
}

/** Waits until `fn` answers something truthy. */
async function until<T>(fn: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  srv = await startAccountServer({ adminEmails: ["root@scrim.test"] });
  root = await signUp(srv, "root@scrim.test", "root");
  ann = await signUp(srv, "ann@scrim.test", "ann");
  bob = await signUp(srv, "bob@scrim.test", "bob");
  await register(ann, "ann-a");
  await register(ann, "ann-b");
  await register(bob, "bob-x");
  await register(bob, "bob-off", false);
}, 120_000);

afterAll(async () => {
  for (const c of bots.values()) c.close();
  await srv?.stop();
});

type Row = { name: string; rating: number; wins: number; losses: number; draws: number };
const leaderboard = async () => (await srv.get<Row[]>("/api/leaderboard")).body;

describe("scrimmages", () => {
  it("against a house bot: starts when the bot queues, mode scrimmage, rated nowhere", async () => {
    const before = await leaderboard();
    const asked = await api(ann, "POST", "/api/account/bots/ann-a/scrimmages", { opponent: "kiter" });
    expect(asked.status).toBe(201);
    // ann-a has not queued: the request waits for it.
    expect(asked.body).toMatchObject({ state: "pending", bot: "ann-a", opponent: "kiter", result: null });
    const a = bots.get("ann-a")!;
    // Queued with a house bot waiting and no house wait: the matchmaker would pair it at once, but the
    // scrimmage holds it.
    const hello = await a.queueForMatch("v1");
    expect(hello.mode).toBe("scrimmage");
    expect((hello.fighters as { name: string }[]).map((f) => f.name).sort()).toEqual(["ann-a", "kiter"]);
    a.send({ type: "ready" });
    const end = await a.playUntilEnd();
    expect(end.match_id).toBe(hello.match_id);
    expect(end.rating_change).toBeNull();
    const id = hello.match_id as string;

    const m = await srv.get<{ mode: string; bots: { rating_before?: number }[] }>(`/api/matches/${id}`);
    expect(m.body.mode).toBe("scrimmage");
    expect(m.body.bots.every((b) => b.rating_before === undefined)).toBe(true);
    // The listing has its result, from ann-a's side, with the replay.
    const list = await until(async () => {
      const l = await api(ann, "GET", "/api/account/bots/ann-a/scrimmages");
      const s = (l.body.scrimmages as { id: string; state: string }[]).find((x) => x.id === asked.body.id);
      return s?.state === "done" ? l : null;
    });
    const done = (list.body.scrimmages as Record<string, unknown>[]).find((x) => x.id === asked.body.id)!;
    expect(done).toMatchObject({ match_id: id, version: "v1" });
    expect(["win", "loss", "draw"]).toContain(done.result);
    expect((await fetch(done.replay_url as string)).status).toBe(200);

    // Nothing of it in the ratings, the forecasts, the leaderboard, or what a start-up loads.
    expect(await leaderboard()).toEqual(before);
    const ladder = srv.app.ctx.ladders.require("public");
    const annKey = versionKey(ids.get("ann-a")!, "v1");
    expect(ladder.ratings.gamesOf(annKey)).toBe(0);
    expect(ladder.ratings.facts(annKey, versionKey(ids.get("kiter") ?? "", "1")).games).toBe(0);
    const house = (await srv.app.ctx.botStore.botByName("kiter"))!;
    const kiterVersion = (hello.fighters as { name: string; version: string }[]).find(
      (f) => f.name === "kiter",
    )!.version;
    expect(ladder.ratings.facts(annKey, versionKey(house.id, kiterVersion)).games).toBe(0);
    expect((await srv.app.ctx.ratingStore.ratedResults("public")).some((r) => r.match_id === id)).toBe(false);
    expect(
      (await srv.app.ctx.ratingStore.ladderRecords("public")).some((r) => r.bot_id === ids.get("ann-a")),
    ).toBe(false);
    const bot = await srv.get<{ versions: { wins: number; losses: number; draws: number }[] }>(
      "/api/bots/ann-a",
    );
    for (const v of bot.body.versions) expect(v.wins + v.losses + v.draws).toBe(0);
    // Nor in the seat balance a start-up rebuilds, nor in the ranked quotas.
    expect((await srv.app.ctx.matchStore.seatBalance()).get(ids.get("ann-a")!)).toBeUndefined();
    const since = new Date(Date.now() - 3_600_000).toISOString();
    expect((await srv.app.ctx.matchStore.startsSince(since)).byBot.get(ids.get("ann-a")!)).toBeUndefined();
  }, 120_000);

  it("against the owner's other bot: both queue, one match", async () => {
    const asked = await api(ann, "POST", "/api/account/bots/ann-a/scrimmages", {
      opponent: "ann-b",
      map: "pillars-21",
    });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const [a, b] = [bots.get("ann-a")!, bots.get("ann-b")!];
    const ha = a.queueForMatch("v1");
    // ann-b queues a moment later; ann-a waits for it (not for a house bot of the ranked queue).
    await new Promise((r) => setTimeout(r, 300));
    const hb = b.queueForMatch("v2");
    const [helloA, helloB] = await Promise.all([ha, hb]);
    expect(helloA.match_id).toBe(helloB.match_id);
    expect(helloA.mode).toBe("scrimmage");
    expect((helloA.map as { name: string }).name).toBe("pillars-21");
    a.send({ type: "ready" });
    b.send({ type: "ready" });
    const [endA, endB] = await Promise.all([a.playUntilEnd(), b.playUntilEnd()]);
    expect(endA.rating_change).toBeNull();
    expect(endB.rating_change).toBeNull();
    const m = await srv.get<{ mode: string }>(`/api/matches/${helloA.match_id}`);
    expect(m.body.mode).toBe("scrimmage");
  }, 120_000);

  it("refuses an opponent that has not opted in or is offline; an opted-in owner may decline", async () => {
    const refused = await api(ann, "POST", "/api/account/bots/ann-a/scrimmages", { opponent: "bob-x" });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("scrimmages_not_allowed");
    expect(refused.body.error).toContain("bob-x");
    // Another owner's bot is not ann's to list or set.
    expect((await api(ann, "GET", "/api/account/bots/bob-x/scrimmages")).status).toBe(404);
    const optIn = await api(bob, "PUT", "/api/account/bots/bob-off/scrimmages/opt-in", { allowed: true });
    expect(optIn.status).toBe(200);
    expect(optIn.body.allow_scrimmages).toBe(true);
    const offline = await api(ann, "POST", "/api/account/bots/ann-a/scrimmages", { opponent: "bob-off" });
    expect(offline.status).toBe(409);
    expect(offline.body.code).toBe("opponent_offline");
    expect(
      (await api(ann, "POST", "/api/account/bots/ann-a/scrimmages", { opponent: "nobody-here" })).status,
    ).toBe(404);
    expect(
      (await api(ann, "POST", "/api/account/bots/ann-a/scrimmages", { opponent: "kiter", map: "moon" })).body
        .code,
    ).toBe("bad_request");

    await api(bob, "PUT", "/api/account/bots/bob-x/scrimmages/opt-in", { allowed: true });
    const asked = await api(ann, "POST", "/api/account/bots/ann-a/scrimmages", { opponent: "bob-x" });
    expect(asked.status).toBe(201);
    // Bob sees it against his bot, and declines it.
    const seen = await api(bob, "GET", "/api/account/bots/bob-x/scrimmages");
    expect((seen.body.scrimmages as { id: string }[]).some((s) => s.id === asked.body.id)).toBe(true);
    const declined = await api(bob, "DELETE", `/api/account/bots/bob-x/scrimmages?id=${asked.body.id}`);
    expect(declined.status).toBe(200);
    const row = (declined.body.scrimmages as { id: string; state: string; reason: string }[]).find(
      (s) => s.id === asked.body.id,
    )!;
    expect(row).toMatchObject({ state: "cancelled", reason: "declined by the opponent's owner" });
    // bob-x is free for ranked play again: it queues and meets a house bot, ranked.
    const hello = await bots.get("bob-x")!.queueForMatch("r1");
    expect(hello.mode).toBe("ranked");
    bots.get("bob-x")!.send({ type: "ready" });
    await bots.get("bob-x")!.playUntilEnd();
  }, 120_000);

  it("enforces the owner's limits from the live settings", async () => {
    await settings({ scrimmagesAtOncePerOwner: 1 });
    const first = await api(ann, "POST", "/api/account/bots/ann-a/scrimmages", { opponent: "brawler" });
    expect(first.status).toBe(201);
    const second = await api(ann, "POST", "/api/account/bots/ann-b/scrimmages", { opponent: "kiter" });
    expect(second.status).toBe(429);
    expect(second.body.code).toBe("quota_exceeded");
    expect(second.body.error).toContain("scrimmagesAtOncePerOwner");
    // Bob's own limit is his: one at once for him too, not shared with ann.
    expect((await api(bob, "POST", "/api/account/bots/bob-x/scrimmages", { opponent: "kiter" })).status).toBe(
      201,
    );
    expect((await api(bob, "DELETE", "/api/account/bots/bob-x/scrimmages")).status).toBe(200);
    const cancelled = await api(ann, "DELETE", "/api/account/bots/ann-a/scrimmages");
    expect(cancelled.status).toBe(200);
    expect(
      (cancelled.body.scrimmages as { id: string; state: string }[]).find((s) => s.id === first.body.id)!
        .state,
    ).toBe("cancelled");
    // Per hour: the starts of the last hour count (two so far for ann).
    const listing = await api(ann, "GET", "/api/account/bots/ann-a/scrimmages");
    const started = (listing.body.limits as { started_last_hour: number }).started_last_hour;
    expect(started).toBe(2);
    await settings({ scrimmagesPerHourPerOwner: started });
    const hourly = await api(ann, "POST", "/api/account/bots/ann-a/scrimmages", { opponent: "kiter" });
    expect(hourly.status).toBe(429);
    expect(hourly.body.error).toContain("scrimmagesPerHourPerOwner");
    await settings({});
    expect((await api(ann, "POST", "/api/account/bots/ann-a/scrimmages", { opponent: "kiter" })).status).toBe(
      201,
    );
    expect((await api(ann, "DELETE", "/api/account/bots/ann-a/scrimmages")).status).toBe(200);
  }, 60_000);
});

interface Tally {
  games: number;
  wins: number;
  losses: number;
  draws: number;
  voided: number;
  score: number | null;
  low: number | null;
  high: number | null;
}
interface Batch {
  id: string;
  state: string;
  games: number;
  progress: { finished: number; playing: number; waiting: number };
  summary: { all: Tally; by_opponent: Record<string, Tally>; by_map: Record<string, Tally> };
  results: { opponent: string; map: string; result: string; match_id: string; state: string }[];
  url: string;
}

/** The Wilson interval, written out again here (not imported) as the reference. */
function reference(results: string[]): Tally {
  const wins = results.filter((r) => r === "win").length;
  const losses = results.filter((r) => r === "loss").length;
  const draws = results.filter((r) => r === "draw").length;
  const voided = results.filter((r) => r === "void").length;
  const n = wins + losses + draws;
  if (n === 0)
    return { games: results.length, wins, losses, draws, voided, score: null, low: null, high: null };
  const p = (wins + 0.5 * draws) / n;
  const z = Z95;
  const denom = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denom;
  const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
  return {
    games: results.length,
    wins,
    losses,
    draws,
    voided,
    score: r4(p),
    low: r4(Math.max(0, centre - half)),
    high: r4(Math.min(1, centre + half)),
  };
}

describe("batch tests", () => {
  it("plays 20 games against two house bots and summarises them correctly", async () => {
    const made = await api(ann, "POST", "/api/account/bots/ann-a/batches", {
      opponents: ["kiter", "brawler"],
      games: 20,
      version: "v1",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const batch = made.body as unknown as Batch;
    expect(batch).toMatchObject({ state: "running", games: 20 });
    expect(
      (await api(ann, "POST", "/api/account/bots/ann-a/batches", { opponents: ["kiter"], games: 101 }))
        .status,
    ).toBe(400);
    // The bot plays what it is given and queues again after each end, as a starter does.
    const a = bots.get("ann-a")!;
    const onMsg = (data: Buffer) => {
      const m = JSON.parse(data.toString()) as { type: string; tick?: number; mode?: string };
      if (m.type === "hello") a.send({ type: "ready" });
      if (m.type === "observation") a.send({ type: "turn", tick: m.tick });
      if (m.type === "end") a.send({ type: "queue", version: "v1" });
    };
    a.ws.on("message", onMsg);
    a.send({ type: "queue", version: "v1" });
    let last: Batch | null = null;
    try {
      last = await until(async () => {
        const b = (await srv.get<Batch>(`/api/batches/${batch.id}`)).body;
        return b.state === "done" ? b : null;
      }, 600_000);
    } finally {
      a.ws.off("message", onMsg);
      a.send({ type: "leave" });
    }
    const b = last!;
    expect(b.progress).toEqual({ finished: 20, playing: 0, waiting: 0 });
    expect(b.results).toHaveLength(20);
    // Opponents in turn, maps spread, every game a stored unrated match whose winner fits the result.
    expect(b.results.map((g) => g.opponent)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? "brawler" : "kiter")),
    );
    for (const g of b.results) {
      const m = (
        await srv.get<{ mode: string; map: string; winner: string | null; voided: boolean }>(
          `/api/matches/${g.match_id}`,
        )
      ).body;
      expect(m.mode).toBe("scrimmage");
      expect(m.map).toBe(g.map);
      const expected = m.voided
        ? "void"
        : m.winner === null
          ? "draw"
          : m.winner === ids.get("ann-a")
            ? "win"
            : "loss";
      expect(g.result).toBe(expected);
    }
    const results = b.results.map((g) => g.result);
    expect(b.summary.all).toEqual(reference(results));
    for (const o of ["kiter", "brawler"])
      expect(b.summary.by_opponent[o]).toEqual(
        reference(b.results.filter((g) => g.opponent === o).map((g) => g.result)),
      );
    const maps = [...new Set(b.results.map((g) => g.map))];
    expect(maps.length).toBeGreaterThan(1);
    for (const m of maps)
      expect(b.summary.by_map[m]).toEqual(
        reference(b.results.filter((g) => g.map === m).map((g) => g.result)),
      );
    expect(Object.values(b.summary.by_map).reduce((n, t) => n + t.games, 0)).toBe(20);
    // The page shows the same summary, with a link to every replay.
    const page = await (await fetch(`${srv.url}/batch/${b.id}`)).text();
    expect(page).toContain(
      `${b.summary.all.wins} wins, ${b.summary.all.losses} losses, ${b.summary.all.draws} draws`,
    );
    for (const g of b.results) expect(page).toContain(`/view/${g.match_id}`);
    // Nothing of it on the leaderboard.
    expect((await leaderboard()).some((r) => r.name === "ann-a")).toBe(false);
  }, 660_000);

  it("stops a batch whose bot is removed, and a batch can be stopped by its owner", async () => {
    await register(ann, "ann-gone", false);
    const made = await api(ann, "POST", "/api/account/bots/ann-gone/batches", {
      opponents: ["kiter"],
      games: 5,
    });
    expect(made.status).toBe(201);
    expect((await srv.get<Batch>(`/api/batches/${made.body.id}`)).body).toMatchObject({
      state: "running",
      waiting_for: "its bot to connect",
    });
    expect((await api(ann, "DELETE", "/api/account/bots/ann-gone")).status).toBe(200);
    // The once-a-minute look for removed bots, run now.
    srv.app.ctx.scrimmages.scrimmages.sweep(Date.now() + 61_000);
    await until(
      async () => (await srv.get<Batch>(`/api/batches/${made.body.id}`)).body.state === "cancelled",
    );

    const other = await api(ann, "POST", "/api/account/bots/ann-b/batches", {
      opponents: ["kiter"],
      games: 5,
    });
    expect((await api(bob, "DELETE", `/api/account/batches/${other.body.id}`)).status).toBe(404);
    const stopped = await api(ann, "DELETE", `/api/account/batches/${other.body.id}`);
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({
      state: "cancelled",
      progress: { finished: 0, playing: 0, waiting: 0 },
    });
  });
});
