// GET /api/ladders/:id/matchups (issue 33, part 3) on the real server (startServer: PGlite, or PostgreSQL
// with DATABASE_URL). Rated results are saved through the store and recorded in the ladder's rating book
// exactly as the match runner does, then announced as MatchFinished (the leaderboard follows it): three
// player bots of clearly different strength against the house bots. The answer is checked against the
// leaderboard, the schema of /openapi.json and the plain logistic of the book's ratings.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUSE_BOTS } from "../../engine/house/index.ts";
import { Matchups } from "../../server/insight/schemas.ts";
import { versionKey } from "../../server/ratings/book.ts";
import type { BotRow } from "../../server/store/types.ts";
import { playRated } from "../helpers/rated-game.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

type Json = Record<string, unknown>;
type Answer = ReturnType<typeof Matchups.parse>;

let srv: TestServer;
const houses: BotRow[] = [];
const players = new Map<string, BotRow>();

const play = (x: BotRow, y: BotRow, xScore: 0 | 0.5 | 1) => playRated(srv, x, y, xScore);

const get = (path: string) => srv.get<Json>(path);

beforeAll(async () => {
  srv = await startServer();
  for (const s of Object.values(HOUSE_BOTS)) houses.push((await srv.app.ctx.botStore.botByName(s.name))!);
  // Three players far apart: wins in 19 of 20, 10 of 20 and 1 of 20 games against the house bots.
  for (const [name, wins] of [
    ["ace", 19],
    ["middling", 10],
    ["novice", 1],
  ] as const) {
    await srv.register(name, `${name}-owner`);
    const bot = (await srv.app.ctx.botStore.botByName(name))!;
    players.set(name, bot);
    for (let g = 0; g < 40; g++) {
      const score = g % 20 < wins ? 1 : 0;
      const house = houses[g % houses.length]!;
      await play(bot, house, score);
    }
  }
}, 120_000);

afterAll(async () => {
  await srv?.stop();
});

describe("GET /api/ladders/:id/matchups", () => {
  it("returns the top rows of the leaderboard with rank intervals and each pair's win chance", async () => {
    const board =
      await srv.get<{ name: string; version: string; rank: number; rating: number }[]>("/api/leaderboard");
    const r = await get("/api/ladders/public/matchups?top=4");
    expect(r.status).toBe(200);
    const m: Answer = Matchups.parse(r.body);
    expect(m).toMatchObject({ ladder: "public", confidence: 0.95, method: "covariance", draws: 2000 });
    expect(m.ranked).toBe(board.body.length);
    expect(m.ranked).toBe(3 + houses.length);
    expect(m.versions.map((v) => [v.name, v.version, v.rank])).toEqual(
      board.body.slice(0, 4).map((b) => [b.name, b.version, b.rank]),
    );
    // The clear winner is alone at the top: its interval is rank 1 only, and no other reaches rank 1.
    expect(m.versions[0]).toMatchObject({ name: "ace", rank_low: 1, rank_high: 1 });
    for (const v of m.versions.slice(1)) expect(v.rank_low).toBeGreaterThan(1);
    for (const v of m.versions) {
      expect(v.rank_low).toBeLessThanOrEqual(v.rank_high);
      expect(v.rank_high).toBeLessThanOrEqual(m.ranked);
    }
    // Each chance is the logistic of the book's exact ratings (an independent computation), within the
    // 4-decimal rounding of the answer; row against column and back add up to one.
    const book = srv.app.ctx.ladders.main.ratings;
    const rating = (name: string, version: string) => {
      const bot = name in HOUSE_BOTS ? houses.find((h) => h.name === name)! : players.get(name)!;
      return book.get(versionKey(bot.id, version)).rating;
    };
    m.versions.forEach((a, i) => {
      m.versions.forEach((b, j) => {
        const w = m.wins[i]![j]!;
        if (i === j) {
          expect(w).toBeNull();
          return;
        }
        const expected = 1 / (1 + 10 ** ((rating(b.name, b.version) - rating(a.name, a.version)) / 400));
        expect(Math.abs(w.p - expected)).toBeLessThan(6e-5);
        expect(w.low).toBeLessThan(w.p);
        expect(w.high).toBeGreaterThan(w.p);
        expect(w.p + m.wins[j]![i]!.p).toBeCloseTo(1, 3);
      });
    });
    expect(m.wins[0]![1]!.p).toBeGreaterThan(0.7);
  });

  it("defaults to ten rows (or as many as are ranked) and follows a new rated game", async () => {
    const before = (await get("/api/ladders/public/matchups")).body as Answer;
    expect(before.versions.length).toBe(Math.min(10, before.ranked));
    // The novice wins a game: ratings move, so the answer (cached per ladder) is computed again.
    await play(players.get("novice")!, players.get("ace")!, 1);
    const after = (await get("/api/ladders/public/matchups")).body as Answer;
    expect(after.wins).not.toEqual(before.wins);
  });

  it("refuses a bad top with 400 bad_request and an unknown ladder with 404 unknown_ladder", async () => {
    for (const bad of ["0", "51", "2.5", "abc", "-3"]) {
      const r = await get(`/api/ladders/public/matchups?top=${bad}`);
      expect(r.status, `top=${bad}`).toBe(400);
      expect(r.body.code).toBe("bad_request");
      expect(String(r.body.error)).toMatch(/top must be an integer from 1 to 50/);
    }
    const r = await get("/api/ladders/nope/matchups");
    expect(r).toMatchObject({ status: 404, body: { code: "unknown_ladder" } });
  });

  it("is documented in /openapi.json under the data tag", async () => {
    const doc = (await get("/openapi.json")).body as {
      paths: Record<string, Record<string, { tags?: string[]; operationId?: string }>>;
    };
    const op = doc.paths["/api/ladders/{id}/matchups"]?.get;
    expect(op).toMatchObject({ operationId: "getMatchups", tags: ["data"] });
  });
});
