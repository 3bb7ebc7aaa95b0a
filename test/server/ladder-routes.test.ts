// The public ladder routes of SPEC 4.1 on the real server (startServer: PGlite, or PostgreSQL with
// DATABASE_URL): leaderboard, lobby, a bot's page, its rating history, a user's bots, the match list with
// stats, and ?ladder= scoping. One match is played live over a real WebSocket (a forfeit against a house
// bot: the quickest rated game); reaching 30 rated games per version that way would take minutes (the
// 10 s rematch hold alone), so the rest are saved straight through srv.app.ctx.store and recorded in
// srv.app.ctx.ladders.main.ratings exactly as the match runner does (rated games only; human and voided games saved
// unrated). A restarted server then rebuilds the same ratings from storage alone. The even sampling of
// long histories is unit-tested on `sample` directly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUSE_BOTS } from "../../engine/house/index.ts";
import { MAP_NAMES } from "../../engine/rules.ts";
import { versionKey } from "../../server/ratings/book.ts";
import type { RatingPointRow } from "../../server/ratings/rating-store.ts";
import { sample } from "../../server/reads/reads.ts";
import type { BotRow, MatchRecord } from "../../server/store/types.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

type Json = Record<string, unknown>;
type Row = Json & { name: string; version: string; rank: number; leaderboard_score: number };

const LEADERBOARD_ROW = [
  "rank",
  "name",
  "display_name",
  "version",
  "owner",
  "owner_url",
  "house",
  "online",
  "rating",
  "rating_deviation",
  "leaderboard_score",
  "wins",
  "losses",
  "draws",
  // The rank's 95 % interval (issue 33): extra fields, null until the first computation.
  "rank_low",
  "rank_high",
].sort();

let srv: TestServer;
const bots = new Map<string, BotRow>();
const houses: [BotRow, string][] = [];
/** What the test saved, per bot name and version: rated W/L/D. */
const record = new Map<string, { wins: number; losses: number; draws: number }>();
let seq = 0;
let liveMatchId = "";
let liveEnd: Json = {};

const DAY = 86_400_000;

/**
 * Saves one match the way the runner does: a rated one is recorded in the rating book first and carries
 * the rounded ratings before and after; human and voided ones are saved unrated.
 */
async function play(
  x: [BotRow, string],
  y: [BotRow, string],
  winner: 0 | 1 | null,
  o: { mode?: "ranked" | "human"; voided?: boolean; endedAgoMs?: number } = {},
): Promise<void> {
  const { botStore, matchStore } = srv.app.ctx;
  const ratings = srv.app.ctx.ladders.main.ratings;
  const mode = o.mode ?? "ranked";
  const voided = o.voided ?? false;
  const map = MAP_NAMES[seq % MAP_NAMES.length]!;
  const rated = mode === "ranked" && !voided;
  const change = rated
    ? ratings.record({
        a: versionKey(x[0].id, x[1]),
        b: versionKey(y[0].id, y[1]),
        score: winner === null ? 0.5 : winner === 0 ? 1 : 0,
        map,
        aHouse: x[0].house,
        bHouse: y[0].house,
      })
    : null;
  for (const [bot, label] of [x, y]) await botStore.ensureVersion(bot.id, label);
  const ended = new Date(Date.now() - (o.endedAgoMs ?? 0)).toISOString();
  const m: MatchRecord = {
    id: `seed-${++seq}`,
    ladder_id: "public",
    mode,
    seed: seq,
    map,
    started: ended,
    ended,
    duration_ms: 1000,
    final_tick: 100,
    reason: voided ? "voided" : winner === null ? "timeout_draw" : "last_standing",
    winner_bot_id: voided || winner === null ? null : [x, y][winner]![0].id,
    voided,
    note: null,
    bots: [x, y].map(([bot, version], i) => ({
      fighter: i,
      bot_id: bot.id,
      name: bot.name,
      display_name: bot.display_name,
      version,
      house: bot.house,
      avatar: null,
      rating_before: change ? Math.round(change.before[i]!) : null,
      rating_after: change ? Math.round(change.after[i]!) : null,
    })),
    stats: null,
    replay_file: null,
  };
  await matchStore.saveMatch(m);
  // Announced as the runner does once a result is committed (the leaderboard follows MatchFinished).
  const ratingChange = m.bots.map((b) =>
    b.rating_after === null || b.rating_before === null ? null : b.rating_after - b.rating_before,
  ) as [number | null, number | null];
  srv.app.ctx.bus.emit("MatchFinished", {
    match: m,
    rated,
    ratingChange,
    accounts: [x[0].account_id, y[0].account_id],
  });
  if (!rated) return;
  [x, y].forEach(([bot, version], i) => {
    const k = `${bot.name}@${version}`;
    const r = record.get(k) ?? { wins: 0, losses: 0, draws: 0 };
    if (winner === null) r.draws++;
    else if (winner === i) r.wins++;
    else r.losses++;
    record.set(k, r);
  });
}

/** `n` rated games of a player version against the house bots in turn, the player in either seat. */
async function series(bot: string, version: string, n: number, o: { endedAgoMs?: number } = {}) {
  for (let i = 0; i < n; i++) {
    const house = houses[i % houses.length]!;
    const me: [BotRow, string] = [bots.get(bot)!, version];
    const result = i % 5 === 4 ? null : i % 3 === 0 ? 1 : 0; // mostly wins for the player, some draws
    if (i % 2 === 0) await play(me, house, result === null ? null : result === 0 ? 0 : 1, o);
    else await play(house, me, result === null ? null : result === 0 ? 1 : 0, o);
  }
}

async function register(name: string, owner: string): Promise<{ token: string; bot: BotRow }> {
  const token = await srv.register(name, owner);
  const bot = (await srv.app.ctx.botStore.botByName(name))!;
  bots.set(name, bot);
  return { token, bot };
}

beforeAll(async () => {
  // Short startup window: the live match below is a forfeit, over as soon as the window closes.
  srv = await startServer({ tickMs: 200, startupMs: 300 });
  for (const s of Object.values(HOUSE_BOTS)) {
    const bot = (await srv.app.ctx.botStore.botByName(s.name))!;
    bots.set(s.name, bot);
    houses.push([bot, s.version]);
  }

  // One live rated match: a real bot queues, is paired with a house bot, never sends `ready`, forfeits.
  const { token } = await register("live-bot", "lee");
  const live = new BotClient(srv.wsUrl, token);
  await live.open();
  live.send({ type: "queue", version: "v1" });
  const hello = await live.next("hello");
  liveMatchId = hello.match_id as string;
  liveEnd = await live.next("end", undefined, 15_000);
  live.close();
  await live.closed();

  for (const [name, owner] of [
    ["alpha", "ann"],
    ["gamma", "ann"],
    ["beta", "bob"],
    ["delta", "dan"],
    ["epsilon", "eve"],
  ] as const)
    await register(name, owner);
  // alpha: 30 rated games with v1 (ranked), then 5 with v2 (not yet ranked): listed at v1.
  await series("alpha", "v1", 30);
  await series("alpha", "v2", 5);
  // beta: 29 games, ten of them 10 days ago: one short of ranked, for now.
  await series("beta", "v1", 10, { endedAgoMs: 10 * DAY });
  await series("beta", "v1", 19);
  // gamma: ranked with v1, which is then retired.
  await series("gamma", "v1", 32);
  await srv.app.ctx.botStore.retireVersion(bots.get("gamma")!.id, "v1");
  // delta: ranked with v1, then ranked with v2, which played last: listed at v2.
  await series("delta", "v1", 31);
  await series("delta", "v2", 30);
  // epsilon: ranked with v1, then with v2, which played last and is then retired: listed at v1.
  await series("epsilon", "v1", 31);
  await series("epsilon", "v2", 30);
  await srv.app.ctx.botStore.retireVersion(bots.get("epsilon")!.id, "v2");
  // Unrated: human games and voided games count nowhere.
  const alpha: [BotRow, string] = [bots.get("alpha")!, "v1"];
  await play(alpha, houses[0]!, 0, { mode: "human" });
  await play(houses[1]!, alpha, 1, { mode: "human" });
  await play(alpha, houses[2]!, 0, { voided: true });
});

afterAll(async () => {
  await srv?.stop();
});

describe("GET /api/leaderboard", () => {
  it("lists ranked versions only, each bot once, sorted by leaderboard_score, with SPEC fields", async () => {
    const r = await srv.get<Row[]>("/api/leaderboard");
    expect(r.status).toBe(200);
    const names = r.body.map((x) => x.name);
    // beta has 29 games, live-bot 1, gamma's only ranked version is retired.
    expect(names).not.toContain("beta");
    expect(names).not.toContain("live-bot");
    expect(names).not.toContain("gamma");
    expect(new Set(names).size).toBe(names.length);
    // A retired last-played version hands the listing back to the ranked version before it.
    expect(r.body.find((x) => x.name === "epsilon")?.version).toBe("v1");
    expect(names).toEqual(
      expect.arrayContaining(["alpha", "delta", "kiter", "brawler", "ts-starter", "champion"]),
    );
    for (const [i, row] of r.body.entries()) {
      expect(Object.keys(row).sort()).toEqual(LEADERBOARD_ROW);
      expect(row.rank).toBe(i + 1);
      if (i > 0) expect(row.leaderboard_score).toBeLessThanOrEqual(r.body[i - 1]!.leaderboard_score);
      const rating = srv.app.ctx.ladders.main.ratings.get(versionKey(bots.get(row.name)!.id, row.version));
      expect(rating.ranked).toBe(true);
      expect(row).toMatchObject({
        rating: Math.round(rating.rating),
        rating_deviation: Math.round(rating.deviation),
        leaderboard_score: Math.round(rating.rating - 2 * Math.max(rating.deviation, 25)),
      });
      for (const k of ["rating", "rating_deviation", "leaderboard_score", "wins", "losses", "draws"])
        expect(Number.isInteger(row[k])).toBe(true);
    }
    const alpha = r.body.find((x) => x.name === "alpha")!;
    expect(alpha).toMatchObject({
      version: "v1",
      owner: "ann",
      house: false,
      online: false,
      display_name: "alpha",
      ...record.get("alpha@v1"),
    });
    expect(alpha.owner_url).toMatch(/\/user\/ann$/);
    expect(r.body.find((x) => x.name === "delta")!.version).toBe("v2");
    // House bots are hosted, so online with their version; they have no owner page.
    const kiter = r.body.find((x) => x.name === "kiter")!;
    expect(kiter).toMatchObject({
      house: true,
      online: true,
      owner_url: null,
      version: HOUSE_BOTS.kiter!.version,
    });
  });

  it("lists a version from its 30th rated game", async () => {
    const before = await srv.get<Row[]>("/api/leaderboard");
    expect(before.body.map((x) => x.name)).not.toContain("beta");
    await series("beta", "v1", 1);
    const after = await srv.get<Row[]>("/api/leaderboard");
    const beta = after.body.find((x) => x.name === "beta");
    expect(beta).toMatchObject({ version: "v1", ...record.get("beta@v1") });
    expect((beta!.wins as number) + (beta!.losses as number) + (beta!.draws as number)).toBe(30);
  });

  it("returns 404 for an unknown ladder", async () => {
    const r = await srv.get<Json>("/api/leaderboard?ladder=nope");
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("unknown_ladder");
    expect((await srv.get("/api/leaderboard?ladder=public")).status).toBe(200);
  });
});

describe("GET /api/lobby", () => {
  it("shows house bots with their difficulty, bots' states and versions, sorted by leaderboard_score", async () => {
    const { token: idleToken } = await register("fresh-bot", "fay");
    const { token: queuedToken } = await register("queued-bot", "quinn");
    const idle = new BotClient(srv.wsUrl, idleToken);
    const queued = new BotClient(srv.wsUrl, queuedToken);
    await Promise.all([idle.open(), queued.open()]);
    // Paused so the queued bot stays waiting instead of meeting a house bot at once.
    srv.app.ctx.ladders.main.matchmaker.paused = true;
    try {
      queued.send({ type: "queue", version: "q1" });
      await queued.next("queued");
      const r = await srv.get<Json[]>("/api/lobby");
      expect(r.status).toBe(200);
      const by = new Map(r.body.map((e) => [e.name, e]));
      const difficulty: Record<string, string> = {
        kiter: "Easy",
        brawler: "Medium",
        "ts-starter": "Hard",
        champion: "Very hard",
      };
      for (const [name, d] of Object.entries(difficulty)) {
        const e = by.get(name)!;
        expect(e).toMatchObject({ difficulty: d, house: true, state: "waiting" });
        const rating = srv.app.ctx.ladders.main.ratings.get(
          versionKey(bots.get(name)!.id, e.version as string),
        );
        expect(e.leaderboard_score).toBe(rating.leaderboardScore);
        expect(e.rating).toBe(Math.round(rating.rating));
      }
      // Connected but never queued: no version and no rating yet.
      expect(by.get("fresh-bot")).toMatchObject({
        state: "idle",
        version: null,
        rating: null,
        rating_deviation: null,
        leaderboard_score: null,
        difficulty: null,
        house: false,
      });
      // Queued: its version's rating (a new version: 1500, deviation 350).
      expect(by.get("queued-bot")).toMatchObject({
        state: "waiting",
        version: "q1",
        rating: 1500,
        rating_deviation: 350,
        leaderboard_score: 800,
        difficulty: null,
      });
      // Offline bots are not in the lobby.
      expect(by.has("alpha")).toBe(false);
      const scores = r.body.map((e) => (e.leaderboard_score as number | null) ?? -Infinity);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(r.body.at(-1)!.name).toBe("fresh-bot");
      expect((await srv.get<Json>("/api/lobby?ladder=nope")).status).toBe(404);
    } finally {
      srv.app.ctx.ladders.main.matchmaker.paused = false;
      idle.close();
      queued.close();
      await Promise.all([idle.closed(), queued.closed()]);
    }
  });
});

describe("GET /api/bots/<name>", () => {
  it("shows versions with rating, rank and health, recent matches and qualifying_games", async () => {
    const r = await srv.get<Json>("/api/bots/alpha");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: "alpha",
      display_name: "alpha",
      owner: "ann",
      ladder_id: "public",
      house: false,
      online: false,
      avatar: null,
      online_version: null,
      qualifying_games: 30,
    });
    expect(r.body.owner_url).toMatch(/\/user\/ann$/);
    const board = (await srv.get<Row[]>("/api/leaderboard")).body;
    const versions = r.body.versions as Json[];
    expect(versions.map((v) => v.label).sort()).toEqual(["v1", "v2"]);
    const v1 = versions.find((v) => v.label === "v1")!;
    const v2 = versions.find((v) => v.label === "v2")!;
    const rating = srv.app.ctx.ladders.main.ratings.get(versionKey(bots.get("alpha")!.id, "v1"));
    const rec = record.get("alpha@v1")!;
    expect(v1).toMatchObject({
      retired: false,
      rating: Math.round(rating.rating),
      rating_deviation: Math.round(rating.deviation),
      leaderboard_score: rating.leaderboardScore,
      ...rec,
      win_rate: (rec.wins + rec.draws / 2) / 30,
      rank: board.find((x) => x.name === "alpha")!.rank,
      // Seeded matches carry no stats: no health.
      health: null,
    });
    // Only the listed version has a rank.
    expect(v2).toMatchObject({ rank: null, ...record.get("alpha@v2") });
    // Recent matches: newest first, at most ten, human and voided ones included (they are matches).
    const recent = r.body.recent_matches as Json[];
    expect(recent).toHaveLength(10);
    expect(recent[0]).toMatchObject({ mode: "ranked", voided: true });
    expect(recent[1]).toMatchObject({ mode: "human" });
    const ids = recent.map((m) => Number((m.id as string).slice(5)));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it("reports health for a version with stats, and retired versions as retired", async () => {
    const live = await srv.get<Json>("/api/bots/live-bot");
    const v1 = (live.body.versions as Json[])[0]!;
    expect(v1.label).toBe("v1");
    expect(v1.health).toMatchObject({ matches: 1 });
    expect((live.body.recent_matches as Json[]).map((m) => m.id)).toEqual([liveMatchId]);
    const gamma = await srv.get<Json>("/api/bots/gamma");
    expect((gamma.body.versions as Json[])[0]).toMatchObject({ label: "v1", retired: true, rank: null });
  });

  it("returns 404 no_such_bot for unknown or invalid names, and unknown_ladder for an unknown ladder", async () => {
    for (const name of ["no-such-bot", "a", "bad%20name"]) {
      const r = await srv.get<Json>(`/api/bots/${name}`);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("no_such_bot");
    }
    const r = await srv.get<Json>("/api/bots/alpha?ladder=nope");
    expect(r).toMatchObject({ status: 404, body: { code: "unknown_ladder" } });
  });
});

describe("GET /api/bots/<name>/ratings", () => {
  type History = { since: string | null; games: number; points: Json[] };

  it("lists rated games oldest first with W/L/D, opponent name@version and whole-point ratings", async () => {
    const r = await srv.get<History>("/api/bots/alpha/ratings");
    expect(r.status).toBe(200);
    expect(r.body.since).toBeNull();
    // 35 rated games; the human and voided ones are not in the history.
    expect(r.body.games).toBe(35);
    expect(r.body.points).toHaveLength(35);
    const ids = r.body.points.map((p) => Number((p.match_id as string).slice(5)));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(r.body.points.slice(0, 30).every((p) => p.version === "v1")).toBe(true);
    expect(r.body.points.slice(30).every((p) => p.version === "v2")).toBe(true);
    const houseNames = new Set(houses.map(([b, v]) => `${b.name}@${v}`));
    const tally = { W: 0, L: 0, D: 0 };
    for (const p of r.body.points) {
      expect(Object.keys(p).sort()).toEqual(
        [
          "match_id",
          "ended",
          "version",
          "rating",
          "delta",
          "result",
          "opponent",
          "opponent_display_name",
          "map",
        ].sort(),
      );
      expect(houseNames.has(p.opponent as string)).toBe(true);
      expect(Number.isInteger(p.rating) && Number.isInteger(p.delta)).toBe(true);
      tally[p.result as "W" | "L" | "D"]++;
    }
    const all = [record.get("alpha@v1")!, record.get("alpha@v2")!];
    expect(tally).toEqual({
      W: all[0]!.wins + all[1]!.wins,
      L: all[0]!.losses + all[1]!.losses,
      D: all[0]!.draws + all[1]!.draws,
    });
    // The first game of a version starts from 1500; the last point is the version's current rating.
    const first = r.body.points[0]!;
    expect((first.rating as number) - (first.delta as number)).toBe(1500);
    const rating = srv.app.ctx.ladders.main.ratings.get(versionKey(bots.get("alpha")!.id, "v1"));
    // The book refits everything after each game, so v1's rating drifts a little as its opponents play on.
    expect(Math.abs((r.body.points[29]!.rating as number) - rating.rating)).toBeLessThan(40);
  });

  it("shows the live match with the end message's rating_change", async () => {
    const r = await srv.get<History>("/api/bots/live-bot/ratings");
    expect(r.body.games).toBe(1);
    const p = r.body.points[0]!;
    expect(p).toMatchObject({
      match_id: liveMatchId,
      version: "v1",
      result: "L",
      delta: liveEnd.rating_change,
    });
    expect(liveEnd.rating_change as number).toBeLessThan(0);
  });

  it("filters by days, and refuses days that are not a number above 0", async () => {
    const all = await srv.get<History>("/api/bots/beta/ratings");
    expect(all.body.games).toBe(30);
    const recent = await srv.get<History>("/api/bots/beta/ratings?days=5");
    expect(recent.status).toBe(200);
    expect(recent.body.games).toBe(20);
    expect(Date.parse(recent.body.since!)).toBeGreaterThan(Date.now() - 5 * DAY - 60_000);
    expect(recent.body.points.map((p) => p.match_id)).toEqual(
      all.body.points.slice(10).map((p) => p.match_id),
    );
    expect((await srv.get<History>("/api/bots/beta/ratings?days=0.5")).body.games).toBe(20);
    for (const bad of ["0", "-1", "abc", ""]) {
      const r = await srv.get<Json>(`/api/bots/beta/ratings?days=${bad}`);
      expect(r.status, `days=${bad}`).toBe(400);
    }
    expect((await srv.get<Json>("/api/bots/nobody-here/ratings")).body.code).toBe("no_such_bot");
    expect((await srv.get<Json>("/api/bots/beta/ratings?ladder=nope")).status).toBe(404);
  });
});

describe("sample (rating history over 1000 games)", () => {
  const rows = (versions: [string, number][]): RatingPointRow[] => {
    const out: RatingPointRow[] = [];
    for (const [version, n] of versions)
      for (let i = 0; i < n; i++)
        out.push({
          match_id: `m${out.length}`,
          ended: new Date(out.length * 1000).toISOString(),
          version,
          rating_before: 1500,
          rating_after: 1500,
          winner: null,
          bot_id: "b",
          opponent: { bot_id: "o", name: "o", display_name: "o", version: "1" },
          map: "arena-21",
        });
    return out;
  };

  it("returns up to 1000 games untouched", () => {
    const r = rows([["v1", 1000]]);
    expect(sample(r, 1000)).toBe(r);
  });

  it("keeps each version's first and last game, oldest first, and samples evenly to the limit", () => {
    // A short-lived version in the middle would vanish from a plain every-nth sample.
    const r = rows([
      ["v1", 2000],
      ["v2", 3],
      ["v3", 1500],
      ["v4", 1],
    ]);
    const s = sample(r, 1000);
    // At most the limit; a few fewer when an evenly spaced pick lands on a kept first or last game.
    expect(s.length).toBeLessThanOrEqual(1000);
    expect(s.length).toBeGreaterThan(990);
    const idx = s.map((p) => Number(p.match_id.slice(1)));
    expect(idx).toEqual([...idx].sort((a, b) => a - b));
    expect(new Set(idx).size).toBe(idx.length);
    for (const v of ["v1", "v2", "v3", "v4"]) {
      const mine = r.filter((p) => p.version === v);
      expect(s).toContain(mine[0]);
      expect(s).toContain(mine[mine.length - 1]);
    }
    // Even: the gaps between kept games are about 3504 / 1000.
    const gaps = idx.slice(1).map((x, i) => x - idx[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(Math.ceil(r.length / 1000) + 1);
    expect(idx[0]).toBe(0);
    expect(idx.at(-1)).toBe(r.length - 1);
  });
});

describe("GET /api/users/<handle>", () => {
  it("lists an owner's bots with W/L/D summed over all versions, retired ones included", async () => {
    const r = await srv.get<Json>("/api/users/ann");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ handle: "ann", ladder_id: "public" });
    expect(typeof r.body.created).toBe("string");
    const list = r.body.bots as Json[];
    expect(list.map((b) => b.name).sort()).toEqual(["alpha", "gamma"]);
    const sum = (...keys: string[]) =>
      keys.reduce(
        (t, k) => {
          const x = record.get(k)!;
          return { wins: t.wins + x.wins, losses: t.losses + x.losses, draws: t.draws + x.draws };
        },
        { wins: 0, losses: 0, draws: 0 },
      );
    const board = (await srv.get<Row[]>("/api/leaderboard")).body;
    const row = board.find((x) => x.name === "alpha")!;
    expect(list.find((b) => b.name === "alpha")).toMatchObject({
      owner: "ann",
      house: false,
      online: false,
      retired: false,
      avatar: null,
      version: "v1",
      rank: row.rank,
      leaderboard_score: row.leaderboard_score,
      rating: row.rating,
      rating_deviation: row.rating_deviation,
      ...sum("alpha@v1", "alpha@v2"),
    });
    // gamma's only version is retired: not ranked, but its games still count.
    expect(list.find((b) => b.name === "gamma")).toMatchObject({
      version: null,
      rank: null,
      leaderboard_score: null,
      rating: null,
      rating_deviation: null,
      ...sum("gamma@v1"),
    });
    // Handles match in any case.
    expect((await srv.get<Json>("/api/users/ANN")).body.handle).toBe("ann");
  });

  it("returns 404 for an unknown user, for house bots' owner, and for an unknown ladder", async () => {
    expect((await srv.get("/api/users/nobody-at-all")).status).toBe(404);
    expect((await srv.get("/api/users/house")).status).toBe(404);
    expect((await srv.get<Json>("/api/users/ann?ladder=nope")).body.code).toBe("unknown_ladder");
  });
});

describe("GET /api/matches", () => {
  it("adds each match's stats with stats=1 (null when none), and scopes by bot and ladder", async () => {
    const plain = await srv.get<Json[]>("/api/matches?bot=live-bot");
    expect(plain.body.map((m) => m.id)).toEqual([liveMatchId]);
    expect(plain.body[0]).not.toHaveProperty("stats");
    const live = await srv.get<Json[]>("/api/matches?bot=live-bot&stats=1");
    expect(live.status).toBe(200);
    expect(live.body[0]!.stats).toMatchObject({ stats_version: 2 });
    const seeded = await srv.get<Json[]>("/api/matches?bot=alpha&stats=true&limit=3");
    expect(seeded.body).toHaveLength(3);
    for (const m of seeded.body) {
      expect(m.stats).toBeNull();
      expect((m.bots as Json[]).some((b) => b.name === "alpha")).toBe(true);
    }
    const scoped = await srv.get<Json[]>("/api/matches?ladder=public&limit=500");
    expect(scoped.body.every((m) => m.ladder_id === "public")).toBe(true);
    expect((await srv.get<Json>("/api/matches?ladder=nope")).body.code).toBe("unknown_ladder");
    expect((await srv.get<Json>("/api/matches?stats=maybe")).status).toBe(400);
  });

  it("carries whole-point ratings on rated matches, none on human and voided ones", async () => {
    const list = await srv.get<Json[]>("/api/matches?bot=alpha&limit=5");
    const [voided, human] = list.body;
    for (const m of [voided!, human!])
      for (const b of m.bots as Json[]) {
        expect(b).not.toHaveProperty("rating_before");
        expect(b).not.toHaveProperty("rating_after");
      }
    for (const m of list.body.slice(3))
      for (const b of m.bots as Json[]) {
        expect(Number.isInteger(b.rating_before)).toBe(true);
        expect(Number.isInteger(b.rating_after)).toBe(true);
      }
  });
});

describe("a restarted server", () => {
  it("rebuilds the same ratings and leaderboard from stored rated results alone", async () => {
    // The rank intervals of the current fit first: on a loaded machine an interval computation slower than
    // FRESH_MS is answered from the previous one and redone in the background (server/insight/board.ts), and the
    // restarted server's first answer is always computed fresh.
    const insight = srv.app.ctx.insight.board as unknown as {
      board(ladder: undefined): Promise<{ signature: string }>;
      compute(b: { signature: string }): Promise<{ signature: string }>;
    };
    for (;;) {
      const b = await insight.board(undefined);
      // A computation already under way (of an older board, maybe) is waited for, and then this board's is run.
      if ((await insight.compute(b)).signature === b.signature) break;
    }
    const board = (await srv.get<Row[]>("/api/leaderboard")).body;
    const keys = [...bots.values()].flatMap((b) =>
      ["v1", "v2", "1", ...houses.map(([, v]) => v)].map((v) => versionKey(b.id, v)),
    );
    const before = new Map(keys.map((k) => [k, srv.app.ctx.ladders.main.ratings.get(k)]));
    await srv.app.close();
    const again = await startServer({
      tickMs: 200,
      startupMs: 300,
      dataDir: srv.dataDir,
      ...(srv.databaseUrl ? { databaseUrl: srv.databaseUrl } : {}),
    });
    try {
      for (const k of keys) {
        const a = before.get(k)!;
        const b = again.app.ctx.ladders.main.ratings.get(k);
        expect(b.games, k).toBe(a.games);
        expect(Math.abs(b.rating - a.rating), k).toBeLessThan(0.01);
        expect(Math.abs(b.deviation - a.deviation), k).toBeLessThan(0.01);
      }
      const board2 = (await again.get<Row[]>("/api/leaderboard")).body;
      const strip = (rows: Row[]) => rows.map(({ online: _online, ...rest }) => rest);
      expect(strip(board2)).toEqual(strip(board));
      // The first server stored no snapshot (it started empty), so this one read every result and saved one.
      expect(again.app.ctx.ladders.main.bookStart).toMatchObject({ from: "full", stale: false });
    } finally {
      await again.app.close();
    }
    // A third start restores that snapshot (nothing stored after it) and has the same ratings and leaderboard.
    const third = await startServer({
      tickMs: 200,
      startupMs: 300,
      dataDir: srv.dataDir,
      ...(srv.databaseUrl ? { databaseUrl: srv.databaseUrl } : {}),
    });
    try {
      expect(third.app.ctx.ladders.main.bookStart).toEqual({ from: "snapshot", tail: 0 });
      for (const k of keys) {
        const a = before.get(k)!;
        const b = third.app.ctx.ladders.main.ratings.get(k);
        expect(b.games, k).toBe(a.games);
        expect(Math.abs(b.rating - a.rating), k).toBeLessThan(0.01);
        expect(Math.abs(b.deviation - a.deviation), k).toBeLessThan(0.01);
      }
      // The snapshot's warm fit stops within the fit's tolerance of the cold one (under 0.002 points), so a shown
      // (rounded) rating or score may differ by one; everything else is the same.
      const rows = (await third.get<Row[]>("/api/leaderboard")).body;
      expect(rows.map((r) => [r.name, r.version])).toEqual(board.map((r) => [r.name, r.version]));
      const rounded = /rating|score|deviation|rank_(low|high)/;
      for (const [i, row] of rows.entries())
        for (const [key, value] of Object.entries(row)) {
          const was = (board[i] as Record<string, unknown>)[key];
          if (key === "online") continue;
          if (typeof value === "number" && rounded.test(key))
            expect(Math.abs(value - (was as number)), `${row.name} ${key}`).toBeLessThanOrEqual(1);
          else expect(value, `${row.name} ${key}`).toEqual(was);
        }
    } finally {
      await third.app.close();
    }
  });
});
