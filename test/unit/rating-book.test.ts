// The rating book aggregates results per pair and map, refits after each game, and ranks after 30 games.
import { describe, expect, it } from "vitest";
import { QUALIFYING_GAMES, RatingBook, versionKey } from "../../server/ratings/book.ts";

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
