// The regression rule (issue 33, part 5) on the real rating book: games drawn from known strengths against
// three house bots; a version 300 points weaker than its predecessor is flagged once it has 30 rated games,
// an equal one almost never (at most 5 % of two hundred draws, the test's own 2.3 %), and the predecessor is the latest earlier version that
// played on the ladder.
import { describe, expect, it } from "vitest";
import { MAP_NAMES } from "../../engine/rules.ts";
import { regressionOf, regressionSentence } from "../../server/insight/regression.ts";
import { RatingBook, versionKey } from "../../server/ratings/book.ts";
import { prng } from "../helpers/prng.ts";

const HOUSES = [
  ["h1", 1400],
  ["h2", 1500],
  ["h3", 1600],
] as const;
const bot = { id: "b1", name: "bee" };

/** Games of each version (label, true strength, games) against the houses, drawn with `seed`. */
function bookOf(seed: number, versions: readonly [string, number, number][]): RatingBook {
  const rand = prng(seed);
  const book = new RatingBook();
  const games = [];
  let n = 0;
  // Houses play each other's opponents only through the players; a few anchor games among players keep the
  // fit connected the way a ladder is.
  for (const [label, strength, count] of versions)
    for (let g = 0; g < count; g++) {
      const [house, hs] = HOUSES[g % HOUSES.length]!;
      const p = 1 / (1 + 10 ** ((hs - strength) / 400));
      games.push({
        a: versionKey(bot.id, label),
        b: versionKey(house, "1"),
        score: rand() < p ? 1 : 0,
        map: MAP_NAMES[n++ % MAP_NAMES.length]!,
        aHouse: false,
        bHouse: true,
      });
    }
  book.load(games);
  return book;
}

const labels = (...ls: string[]) => ls.map((label) => ({ label }));

describe("regressionOf", () => {
  it("flags a version 300 points weaker after 30 rated games, with the rule's own figures", () => {
    const book = bookOf(1, [
      ["v1", 1650, 60],
      ["v2", 1350, 30],
    ]);
    const r = regressionOf(book, "public", bot, labels("v1", "v2"), "v2");
    expect(r).not.toBeNull();
    const v1 = book.get(versionKey(bot.id, "v1"));
    const v2 = book.get(versionKey(bot.id, "v2"));
    const combined = Math.sqrt(v1.deviation ** 2 + v2.deviation ** 2);
    expect(r).toEqual({
      ladder: "public",
      bot: "bee",
      version: "v2",
      predecessor: "v1",
      games: 30,
      predecessor_games: 60,
      rating: Math.round(v2.rating),
      rating_deviation: Math.round(v2.deviation),
      predecessor_rating: Math.round(v1.rating),
      predecessor_deviation: Math.round(v1.deviation),
      drop: Math.round(v1.rating - v2.rating),
      combined_error: Math.round(combined),
    });
    expect(v1.rating - v2.rating).toBeGreaterThan(2 * combined);
    expect(regressionSentence(r!)).toMatch(/^Version v2 rates \d+ points below v1 \(/);
    // Its predecessor is never flagged against nothing, and a version under 30 games is not judged yet.
    expect(regressionOf(book, "public", bot, labels("v1", "v2"), "v1")).toBeNull();
    const early = bookOf(1, [
      ["v1", 1650, 60],
      ["v2", 1350, 29],
    ]);
    expect(regressionOf(early, "public", bot, labels("v1", "v2"), "v2")).toBeNull();
  });

  it("flags a weakened version in nearly every draw and an equal one rarely (a 2-error one-sided test)", () => {
    // A drop of more than two combined standard errors: by chance about 2.3 % of equal versions would cross
    // it; a 300-point drop at these game counts is about four errors, caught nearly always.
    const DRAWS = 200;
    let weak = 0;
    let equal = 0;
    for (let seed = 1; seed <= DRAWS; seed++) {
      const w = bookOf(seed, [
        ["v1", 1650, 60],
        ["v2", 1350, 40],
      ]);
      if (regressionOf(w, "public", bot, labels("v1", "v2"), "v2")) weak++;
      const e = bookOf(10_000 + seed, [
        ["v1", 1550, 60],
        ["v2", 1550, 40],
      ]);
      if (regressionOf(e, "public", bot, labels("v1", "v2"), "v2")) equal++;
    }
    expect(weak).toBeGreaterThanOrEqual(0.95 * DRAWS);
    expect(equal).toBeLessThanOrEqual(0.05 * DRAWS);
  });

  it("compares with the latest earlier version that played on the ladder, skipping one that never did", () => {
    const book = bookOf(3, [
      ["v1", 1650, 60],
      ["v3", 1350, 40],
    ]);
    // v2 was declared between them but never played here.
    const r = regressionOf(book, "public", bot, labels("v1", "v2", "v3"), "v3");
    expect(r?.predecessor).toBe("v1");
    // The first version has no predecessor; an unknown label is nothing.
    expect(regressionOf(book, "public", bot, labels("v1", "v2", "v3"), "v1")).toBeNull();
    expect(regressionOf(book, "public", bot, labels("v1", "v2", "v3"), "v9")).toBeNull();
  });

  it("raises nothing for a stronger version", () => {
    const book = bookOf(4, [
      ["v1", 1350, 60],
      ["v2", 1650, 40],
    ]);
    expect(regressionOf(book, "public", bot, labels("v1", "v2"), "v2")).toBeNull();
  });
});
