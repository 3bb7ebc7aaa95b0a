// The rating book aggregates results per pair and map, refits after each game, and ranks after 30 games;
// its fit, forecasts and counts are checked against computations written here (and fitBradleyTerry).
import { describe, expect, it } from "vitest";
import { MAP_NAMES } from "../../engine/rules.ts";
import {
  QUALIFYING_GAMES,
  type RatedGame,
  RatingBook,
  ratedGame,
  ratedRow,
  versionKey,
} from "../../server/ratings/book.ts";
import {
  expectedScore,
  fitBradleyTerry,
  leaderboardScore,
  type PairScore,
} from "../../server/ratings/bradley-terry.ts";
import type { RatedResultRow } from "../../server/ratings/rating-store.ts";
import type { MatchRecord } from "../../server/store/types.ts";
import { prng } from "../helpers/prng.ts";

describe("RatingBook", () => {
  it("rates a stronger version above a weaker one, with the house bots averaging 1500", () => {
    const book = new RatingBook();
    const h1 = versionKey("h1", "1");
    const h2 = versionKey("h2", "1");
    const p = versionKey("p", "v1");
    const games = [];
    for (let i = 0; i < 40; i++) {
      games.push({ a: p, b: h1, score: i % 4 === 0 ? 0 : 1, map: "arena-21", aHouse: false, bHouse: true });
      games.push({ a: p, b: h2, score: i % 2, map: "pillars-21", aHouse: false, bHouse: true });
      games.push({ a: h1, b: h2, score: 0.5, map: "columns-21", aHouse: true, bHouse: true });
    }
    book.load(games);
    expect((book.get(h1).rating + book.get(h2).rating) / 2).toBeCloseTo(1500, 6);
    expect(book.get(p).rating).toBeGreaterThan(book.get(h2).rating);
    expect(book.get(p).games).toBe(80);
    expect(book.get(p).ranked).toBe(true);
    const f = book.facts(p, h1);
    expect(f).toMatchObject({ games: 40, score: 30 });
    expect(f.mapGames.get("arena-21")).toBe(40);
    expect(book.facts(h1, p).score).toBe(10);
  });

  it("returns ratings before and after a recorded game, and is unranked under 30 games", () => {
    const book = new RatingBook();
    const a = versionKey("a", "1");
    const b = versionKey("b", "1");
    const r = book.record({ a, b, score: 1, map: "arena-21", aHouse: false, bHouse: false });
    expect(r.before).toEqual([1500, 1500]);
    expect(r.after[0]).toBeGreaterThan(r.after[1]);
    expect(book.get(a).games).toBeLessThan(QUALIFYING_GAMES);
    expect(book.get(a).ranked).toBe(false);
  });
});

// ---- the book's bookkeeping against independent computations

const MAPS = ["arena-21", "columns-21", "pillars-21"];
const g = (a: string, b: string, score: number, map = "arena-21", house: string[] = []): RatedGame => ({
  a,
  b,
  score,
  map,
  aHouse: house.includes(a),
  bHouse: house.includes(b),
});

/** Games aggregated per unordered pair, written here: what the book hands the fit. */
function aggregate(games: RatedGame[]): PairScore[] {
  const m = new Map<string, PairScore>();
  for (const x of games) {
    if (x.a === x.b) continue;
    const [a, b, s] = x.a < x.b ? [x.a, x.b, x.score] : [x.b, x.a, 1 - x.score];
    const key = JSON.stringify([a, b]);
    const cell = m.get(key) ?? { a, b, games: 0, aScore: 0 };
    cell.games++;
    cell.aScore += s;
    m.set(key, cell);
  }
  return [...m.values()];
}

/** A random ladder: `versions` versions (the first `houses` of them house bots), `games` games. */
function ladder(seed: number, versions: number, games: number, houses = 2) {
  const rand = prng(seed);
  const names = Array.from({ length: versions }, (_, i) => versionKey(`bot${i}`, `v${i % 3}`));
  const house = names.slice(0, houses);
  const strength = names.map(() => rand() * 3);
  const out: RatedGame[] = [];
  for (let k = 0; k < games; k++) {
    const i = Math.floor(rand() * versions);
    const j = (i + 1 + Math.floor(rand() * (versions - 1))) % versions;
    const p = 1 / (1 + Math.exp(strength[j]! - strength[i]!));
    const r = rand();
    const score = r < 0.05 ? 0.5 : r < 0.05 + 0.95 * p ? 1 : 0;
    out.push(g(names[i]!, names[j]!, score, MAPS[k % 3], house));
  }
  return { names, house, games: out };
}

describe("RatingBook against an independent fit", () => {
  it("equals fitBradleyTerry over the aggregated pairs past its growth points (64 versions, 256 pairs)", () => {
    const { names, house, games } = ladder(3, 70, 900);
    const book = new RatingBook();
    book.load(games);
    const fit = fitBradleyTerry({ players: names, pairs: aggregate(games), anchors: house });
    expect(aggregate(games).length).toBeGreaterThan(256);
    for (const n of names) {
      const r = book.get(n);
      expect(Math.abs(r.rating - fit.rating.get(n)!)).toBeLessThan(0.01);
      expect(Math.abs(r.deviation - fit.deviation.get(n)!)).toBeLessThan(0.01);
      expect(r.games).toBe(games.filter((x) => x.a === n || x.b === n).length);
      expect(r.leaderboardScore).toBe(leaderboardScore(r.rating, r.deviation));
    }
  });

  it("refits after each recorded game to what a from-scratch fit gives, both orientations of a pair alike", () => {
    const { names, house, games } = ladder(5, 66, 400, 3);
    const book = new RatingBook();
    book.load(games.slice(0, 390));
    for (const x of games.slice(390)) {
      const before = [book.get(x.a).rating, book.get(x.b).rating];
      const r = book.record(x);
      expect(r.before).toEqual(before);
      expect(r.after).toEqual([book.get(x.a).rating, book.get(x.b).rating]);
    }
    const fit = fitBradleyTerry({ players: names, pairs: aggregate(games), anchors: house });
    for (const n of names) expect(Math.abs(book.get(n).rating - fit.rating.get(n)!)).toBeLessThan(0.01);
  });

  it("pins the house versions' average at 1500, each counted once however many games it has", () => {
    const [h1, h2, p] = ["h1@1", "h2@1", "p@1"];
    const games = [
      ...Array.from({ length: 9 }, (_, i) => g(p, h1, i % 3 === 0 ? 0 : 1, "arena-21", [h1, h2])),
      g(h2, p, 1, "arena-21", [h1, h2]),
      g(h1, h2, 0, "arena-21", [h1, h2]),
    ];
    const book = new RatingBook();
    book.load(games);
    expect((book.get(h1).rating + book.get(h2).rating) / 2).toBeCloseTo(1500, 6);
    const fit = fitBradleyTerry({ players: [h1, h2, p], pairs: aggregate(games), anchors: [h1, h2] });
    for (const n of [h1, h2, p]) expect(book.get(n).rating).toBeCloseTo(fit.rating.get(n)!, 2);
  });

  it("without house versions, centres nothing: the fit's prior fixes the origin, as fitBradleyTerry's", () => {
    const games = [g("a@1", "b@1", 1), g("b@1", "c@1", 1), g("a@1", "c@1", 0.5)];
    const book = new RatingBook();
    book.load(games);
    const fit = fitBradleyTerry({ players: ["a@1", "b@1", "c@1"], pairs: aggregate(games) });
    for (const n of ["a@1", "b@1", "c@1"]) {
      expect(book.get(n).rating).toBeCloseTo(fit.rating.get(n)!, 3);
      expect(book.get(n).deviation).toBeCloseTo(fit.deviation.get(n)!, 3);
    }
  });

  it("ignores a game of a version against itself", () => {
    const book = new RatingBook();
    book.load([g("a@1", "a@1", 1), g("a@1", "b@1", 1)]);
    expect(book.get("a@1").games).toBe(1);
    expect(book.facts("a@1", "a@1").games).toBe(0);
    expect([...book.opponents("a@1")]).toEqual(["b@1"]);
  });
});

describe("RatingBook.get", () => {
  it("gives an unknown version 1500, deviation 350, no games, unranked", () => {
    const book = new RatingBook();
    expect(book.get("x@1")).toEqual({
      rating: 1500,
      deviation: 350,
      leaderboardScore: leaderboardScore(1500, 350),
      games: 0,
      ranked: false,
    });
    book.load([g("a@1", "b@1", 1)]);
    expect(book.get("x@1")).toMatchObject({ rating: 1500, deviation: 350, games: 0 });
  });

  it("ranks a version from its 30th game on", () => {
    const book = new RatingBook();
    for (let i = 0; i < 29; i++) book.record(g("a@1", `o${i}@1`, 1));
    expect(book.get("a@1")).toMatchObject({ games: 29, ranked: false });
    book.record(g("a@1", "o29@1", 0));
    expect(book.get("a@1")).toMatchObject({ games: 30, ranked: true });
    expect(QUALIFYING_GAMES).toBe(30);
  });
});

describe("RatingBook.opponents", () => {
  it("lists the versions met, within [minGames, maxGames], either side of each game", () => {
    const book = new RatingBook();
    const games: RatedGame[] = [];
    for (let i = 0; i < 1; i++) games.push(g("a@1", "b@1", 1));
    for (let i = 0; i < 2; i++) games.push(g("c@1", "a@1", 1));
    for (let i = 0; i < 3; i++) games.push(g("a@1", "d@1", 0));
    for (let i = 0; i < 5; i++) games.push(g("e@1", "a@1", 0.5));
    games.push(g("b@1", "c@1", 1));
    book.load(games);
    const of = (min?: number, max?: number) => [...book.opponents("a@1", min, max)].sort();
    expect(of()).toEqual(["b@1", "c@1", "d@1", "e@1"]);
    expect(of(2)).toEqual(["c@1", "d@1", "e@1"]);
    expect(of(3)).toEqual(["d@1", "e@1"]);
    expect(of(4)).toEqual(["e@1"]);
    expect(of(1, 2)).toEqual(["b@1", "c@1"]);
    expect(of(3, 3)).toEqual(["d@1"]);
    expect(of(6)).toEqual([]);
    expect([...book.opponents("d@1", 3)]).toEqual(["a@1"]);
    expect([...book.opponents("nobody@1")]).toEqual([]);
    expect([...book.opponents("b@1", 3)]).toEqual([]);
  });
});

describe("RatingBook.facts", () => {
  /** SPEC 1.2's forecast, written here: the pair's score smoothed toward the fit by 20 games, then each map's
   * smoothed toward that by 20 games; quality is 1 - |2p - 1| averaged over the configured maps. */
  function expectedFacts(book: RatingBook, a: string, b: string, games: RatedGame[]) {
    const mine = games.filter((x) => (x.a === a && x.b === b) || (x.a === b && x.b === a));
    const scoreOf = (x: RatedGame) => (x.a === a ? x.score : 1 - x.score);
    const n = mine.length;
    const s = mine.reduce((t, x) => t + scoreOf(x), 0);
    const e = expectedScore(book.get(a).rating, book.get(b).rating);
    const pairP = (s + 20 * e) / (n + 20);
    let q = 0;
    const mapGames = new Map<string, number>();
    for (const map of MAP_NAMES) {
      const on = mine.filter((x) => x.map === map);
      const p = (on.reduce((t, x) => t + scoreOf(x), 0) + 20 * pairP) / (on.length + 20);
      q += 1 - Math.abs(2 * p - 1);
      mapGames.set(map, on.length);
    }
    return { games: n, score: s, mapQuality: q / MAP_NAMES.length, mapGames };
  }

  it("smooths the pair's and each map's results toward the fit, from either side", () => {
    const games = [
      g("b@1", "a@1", 1, "arena-21"),
      g("a@1", "b@1", 1, "arena-21"),
      g("a@1", "b@1", 1, "columns-21"),
      g("a@1", "b@1", 0.5, "columns-21"),
      g("b@1", "a@1", 0, "pillars-21"),
      g("a@1", "b@1", 1, "retired-map"), // counts for the pair, on no configured map
      g("a@1", "c@1", 0, "arena-21"),
      g("c@1", "b@1", 1, "pillars-21"),
    ];
    const book = new RatingBook();
    book.load(games);
    for (const [x, y] of [
      ["a@1", "b@1"],
      ["b@1", "a@1"],
      ["a@1", "c@1"],
      ["c@1", "a@1"],
    ] as const) {
      const f = book.facts(x, y);
      const want = expectedFacts(book, x, y, games);
      expect(f.games).toBe(want.games);
      expect(f.score).toBe(want.score);
      expect(f.mapQuality).toBeCloseTo(want.mapQuality, 12);
      expect(f.mapGames).toEqual(want.mapGames);
    }
    expect(book.facts("a@1", "b@1")).toMatchObject({ games: 6, score: 4.5 });
    expect(book.facts("b@1", "a@1")).toMatchObject({ games: 6, score: 1.5 });
  });

  it("is neutral for a pair that never met: no games, quality 1, no map games", () => {
    const book = new RatingBook();
    book.load([g("a@1", "b@1", 1)]);
    const f = book.facts("a@1", "z@1");
    expect(f).toEqual({ games: 0, score: 0, mapQuality: 1, mapGames: new Map() });
    expect(book.facts("z@1", "a@1")).toEqual(f);
    expect(book.facts("y@1", "z@1")).toEqual(f);
  });

  it("uses the fitted ratings for the forecast, and 1500 for a version never fitted", () => {
    const games = Array.from({ length: 12 }, (_, i) => g("a@1", "b@1", i % 4 === 0 ? 0 : 1, MAPS[i % 3]));
    const book = new RatingBook();
    book.load(games);
    expect(book.get("a@1").rating).toBeGreaterThan(1500);
    expect(book.facts("a@1", "b@1").mapQuality).toBeCloseTo(
      expectedFacts(book, "a@1", "b@1", games).mapQuality,
      12,
    );
  });
});

describe("stored results as rated games", () => {
  const row = (winner: string | null): RatedResultRow => ({
    match_id: "m1",
    map: "columns-21",
    winner,
    bots: [
      { bot_id: "ann", version: "v2", house: false },
      { bot_id: "hal", version: "1", house: true },
    ],
  });

  it("scores fighter 0's version: a win 1, a loss 0, a draw 0.5", () => {
    expect(ratedGame(row("ann"))).toEqual({
      a: "ann@v2",
      b: "hal@1",
      score: 1,
      map: "columns-21",
      aHouse: false,
      bHouse: true,
    });
    expect(ratedGame(row("hal")).score).toBe(0);
    expect(ratedGame(row(null)).score).toBe(0.5);
  });

  it("reads a finished match's record as the row the store would return", () => {
    const record = {
      id: "m9",
      map: "pillars-21",
      winner_bot_id: "hal",
      bots: [
        { fighter: 0, bot_id: "ann", version: "v2", house: false, name: "ann", display_name: "Ann" },
        { fighter: 1, bot_id: "hal", version: "1", house: true, name: "hal", display_name: "Hal" },
      ],
    } as unknown as MatchRecord;
    expect(ratedRow(record)).toEqual({
      match_id: "m9",
      map: "pillars-21",
      winner: "hal",
      bots: [
        { bot_id: "ann", version: "v2", house: false },
        { bot_id: "hal", version: "1", house: true },
      ],
    });
  });
});
