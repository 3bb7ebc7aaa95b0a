// Rank intervals and win chances (issue 33, part 3) against known answers and computations written here:
// a ladder with clear gaps gives narrow disjoint rank intervals, a tight one overlapping intervals; the
// fit's covariance is checked against the two-player closed form; each win chance against the plain
// logistic of the fitted ratings, and its interval against a separate simulation of the rating difference.
import { describe, expect, it } from "vitest";
import {
  differenceVariance,
  type RatingsInput,
  rankIntervals,
  rankIntervalsInSlices,
  winChance,
} from "../../server/insight/uncertainty.ts";
import { type RatedGame, RatingBook, versionKey } from "../../server/ratings/book.ts";
import { prng } from "../helpers/prng.ts";

const SCALE = 400 / Math.LN10;

/** A round robin: each pair plays `games` games, the stronger winning its expected share (rounded). */
function roundRobin(strengths: number[], games: number, draws = false): { book: RatingBook; keys: string[] } {
  const keys = strengths.map((_, i) => versionKey(`b${i}`, "v1"));
  const list: RatedGame[] = [];
  for (let i = 0; i < strengths.length; i++)
    for (let j = i + 1; j < strengths.length; j++) {
      const e = 1 / (1 + 10 ** ((strengths[j]! - strengths[i]!) / 400));
      const wins = Math.round(e * games);
      for (let g = 0; g < games; g++) {
        const score = draws ? 0.5 : g < wins ? 1 : 0;
        list.push({ a: keys[i]!, b: keys[j]!, score, map: "arena-21", aHouse: false, bHouse: false });
      }
    }
  const book = new RatingBook();
  book.load(list);
  return { book, keys };
}

function inputOf(book: RatingBook, keys: string[]): RatingsInput {
  return {
    rating: keys.map((k) => book.get(k).rating),
    deviation: keys.map((k) => book.get(k).deviation),
    covariance: book.covariance(keys),
  };
}

const overlap = (a: { low: number; high: number }, b: { low: number; high: number }) =>
  a.low <= b.high && b.low <= a.high;

describe("rank intervals", () => {
  it("are one rank wide and disjoint on a ladder with clear gaps (the fit's covariance)", () => {
    const { book, keys } = roundRobin([2300, 1900, 1500, 1100, 700], 60);
    const input = inputOf(book, keys);
    expect(input.covariance).not.toBeNull();
    const r = rankIntervals(input);
    expect(r).toEqual([1, 2, 3, 4, 5].map((k) => ({ low: k, high: k })));
  });

  it("overlap on a tight ladder: every version may be anywhere", () => {
    const { book, keys } = roundRobin([1500, 1500, 1500, 1500], 10, true);
    const r = rankIntervals(inputOf(book, keys));
    for (const a of r) expect(a).toEqual({ low: 1, high: 4 });
  });

  it("narrow where the gaps are, wide where they are not (independent deviations)", () => {
    // Two close pairs far apart: each pair swaps within itself, never with the other pair.
    const input: RatingsInput = { rating: [2000, 1990, 1200, 1195], deviation: [40, 40, 40, 40] };
    const r = rankIntervals(input);
    expect(r).toEqual([
      { low: 1, high: 2 },
      { low: 1, high: 2 },
      { low: 3, high: 4 },
      { low: 3, high: 4 },
    ]);
    expect(overlap(r[1]!, r[2]!)).toBe(false);
  });

  it("gives the same answer for the same fit (fixed seed) and an interval only for the rows asked", () => {
    const { book, keys } = roundRobin([1600, 1550, 1500, 1450, 1400], 12);
    const input = inputOf(book, keys);
    const all = rankIntervals(input);
    expect(rankIntervals(input)).toEqual(all);
    expect(rankIntervals(input, { only: [3, 1] })).toEqual([all[3], all[1]]);
    // Intervals always hold the fitted order's rank here (the ratings are in order).
    all.forEach((a, i) => {
      expect(a.low).toBeLessThanOrEqual(i + 1);
      expect(a.high).toBeGreaterThanOrEqual(i + 1);
    });
  });

  it("count versions that cannot reach the asked ones without drawing them, and compute the same in slices", async () => {
    // 400 versions far below and 3 far above two close rivals: asked alone, the rivals share ranks 4 and 5.
    const rating = [9000, 8000, 7000, 2000, 1990, ...Array.from({ length: 400 }, (_, i) => 1000 - i)];
    const input: RatingsInput = { rating, deviation: rating.map(() => 40) };
    expect(rankIntervals(input, { only: [3, 4] })).toEqual([
      { low: 4, high: 5 },
      { low: 4, high: 5 },
    ]);
    const all = rankIntervals(input);
    expect([all[3], all[4]]).toEqual([
      { low: 4, high: 5 },
      { low: 4, high: 5 },
    ]);
    expect(all[404]!.high).toBe(405);
    expect(await rankIntervalsInSlices(input, {}, 7)).toEqual(all);
  });

  it("use the correlation: two versions that mostly met each other have a surer difference", () => {
    // x and y played each other 400 times (x ahead) and others only a little, so each alone is unsure but
    // their difference is sure: the covariance says so, the deviations taken as independent do not.
    const keys = ["x", "y", "a", "b"].map((n) => versionKey(n, "v1"));
    const [x, y, a, b] = keys as [string, string, string, string];
    const list: RatedGame[] = [];
    const add = (p: string, q: string, score: number) =>
      list.push({ a: p, b: q, score, map: "arena-21", aHouse: false, bHouse: false });
    for (let g = 0; g < 400; g++) add(x, y, g % 20 < 13 ? 1 : 0); // 65 %: about 108 points
    for (let g = 0; g < 200; g++) add(a, b, g % 2 ? 1 : 0);
    for (let g = 0; g < 4; g++) add(x, a, g % 2 ? 1 : 0);
    for (let g = 0; g < 4; g++) add(y, b, g % 2 ? 1 : 0);
    const book = new RatingBook();
    book.load(list);
    const input = inputOf(book, keys);
    const full = differenceVariance(input, 0, 1);
    const indep = differenceVariance({ ...input, covariance: null }, 0, 1);
    expect(full).toBeLessThan(indep / 2);
  });
});

describe("the fit's covariance", () => {
  it("has the deviations squared on its diagonal", () => {
    const { book, keys } = roundRobin([1700, 1500, 1300], 20);
    const c = book.covariance(keys)!;
    for (const [i, k] of keys.entries())
      expect(Math.sqrt(c[i * 3 + i]!)).toBeCloseTo(book.get(k).deviation, 6);
    expect(c[0 * 3 + 1]).toBeCloseTo(c[1 * 3 + 0]!, 9);
  });

  it("gives the two-player closed form for the variance of a rating difference", () => {
    // Two players, n games: information [[w + 1/t, -w], [-w, w + 1/t]] with w = n p (1 - p) and t the
    // prior's variance; the difference's variance is 2 / (2 w + 1/t), in log-strength units squared.
    const { book, keys } = roundRobin([1600, 1400], 50);
    const input = inputOf(book, keys);
    const d = input.rating[0]! - input.rating[1]!;
    const p = 1 / (1 + 10 ** (-d / 400));
    const w = 50 * p * (1 - p);
    const t = (350 / SCALE) ** 2;
    expect(differenceVariance(input, 0, 1)).toBeCloseTo((2 / (2 * w + 1 / t)) * SCALE ** 2, 3);
  });

  it("is null when a version is not in the fit", () => {
    const { book, keys } = roundRobin([1500, 1400], 5);
    expect(book.covariance([keys[0]!, versionKey("nobody", "v1")])).toBeNull();
  });
});

describe("win chances", () => {
  const { book, keys } = roundRobin([1800, 1650, 1500, 1420], 30);
  const input = inputOf(book, keys);

  it("are the logistic of the fitted rating difference, and complementary", () => {
    for (let i = 0; i < 4; i++)
      for (let j = 0; j < 4; j++) {
        if (i === j) continue;
        const ri = book.get(keys[i]!).rating;
        const rj = book.get(keys[j]!).rating;
        const w = winChance(input, i, j);
        expect(w.p).toBeCloseTo(1 / (1 + 10 ** ((rj - ri) / 400)), 12);
        const back = winChance(input, j, i);
        expect(w.p + back.p).toBeCloseTo(1, 12);
        expect(w.low + back.high).toBeCloseTo(1, 12);
        expect(w.low).toBeLessThan(w.p);
        expect(w.high).toBeGreaterThan(w.p);
      }
  });

  it("have the interval a simulation of the rating difference gives", () => {
    const random = prng(7);
    const normal = () => {
      const u = 1 - random();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    };
    // The difference's spread from the covariance matrix directly, then 40,000 draws of it.
    const c = input.covariance!;
    for (const [i, j] of [
      [0, 1],
      [1, 3],
      [3, 0],
    ] as const) {
      const sd = Math.sqrt(c[i * 4 + i]! + c[j * 4 + j]! - 2 * c[i * 4 + j]!);
      const d = input.rating[i]! - input.rating[j]!;
      const draws = Array.from({ length: 40_000 }, () => 1 / (1 + 10 ** (-(d + sd * normal()) / 400))).sort(
        (a, b) => a - b,
      );
      const w = winChance(input, i, j);
      expect(w.low).toBeCloseTo(draws[1000]!, 2);
      expect(w.high).toBeCloseTo(draws[39_000]!, 2);
    }
  });

  it("are narrow for a pair that played a lot and wide for one that barely did", () => {
    const wide = winChance({ rating: [1550, 1500], deviation: [200, 200] }, 0, 1);
    const narrow = winChance({ rating: [1550, 1500], deviation: [8, 8] }, 0, 1);
    expect(wide.p).toBeCloseTo(narrow.p, 12);
    expect(wide.high - wide.low).toBeGreaterThan(0.5);
    expect(narrow.high - narrow.low).toBeLessThan(0.1);
  });
});
