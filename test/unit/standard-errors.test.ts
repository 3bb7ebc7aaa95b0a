// rating_deviation is the standard error of the Bradley-Terry fit (SPEC 1.2 rule 9), checked against an
// independent computation written here from the fitted ratings: the information matrix (the prior's 1 / tau^2
// plus n p (1 - p) per pair), inverted by plain Gauss-Jordan elimination, and the variance of each rating
// relative to the pinned reference (the house bots' mean, or everyone's mean without house bots). Above 200
// versions the fit uses the matrix's diagonal instead: that too is checked, at 200 and at 201 versions.
import { describe, expect, it } from "vitest";
import {
  expectedScore,
  fitBradleyTerry,
  leaderboardScore,
  type PairScore,
} from "../../server/ratings/bradley-terry.ts";
import { prng } from "../helpers/prng.ts";

const SCALE = 400 / Math.LN10;
const PRIOR_SD = 350; // the fit's default, in rating points
const TAU2 = (PRIOR_SD / SCALE) ** 2;
/**
 * The deviations are checked at the fitted ratings, whatever they are, so the fits need not be exact;
 * 10 Newton steps (the solver needs 5 or 6) keep a broken solver from running 100.
 */
const FAST = { maxIterations: 10 };

/** A ladder of n versions, each meeting a few random others, scores drawn from true ratings. */
function ladder(n: number, seed: number, opponents = 6): { players: string[]; pairs: PairScore[] } {
  const rand = prng(seed);
  const players = Array.from({ length: n }, (_, i) => `v${i}`);
  const truth = players.map(() => 1500 + 600 * (rand() - 0.5));
  const pairs: PairScore[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < opponents; k++) {
      const j = Math.floor(rand() * n);
      const key = `${Math.min(i, j)}-${Math.max(i, j)}`;
      if (j === i || seen.has(key)) continue;
      seen.add(key);
      const games = 1 + Math.floor(rand() * 12);
      let score = 0;
      for (let g = 0; g < games; g++) {
        const r = rand();
        const p = expectedScore(truth[i]!, truth[j]!);
        score += r < p * 0.9 ? 1 : r < p * 0.9 + 0.1 ? 0.5 : 0;
      }
      pairs.push({ a: players[i]!, b: players[j]!, games, aScore: score });
    }
  }
  return { players, pairs };
}

/** The information matrix at the fitted ratings, in natural log-strength units. */
function informationAt(players: string[], pairs: PairScore[], rating: Map<string, number>): number[][] {
  const n = players.length;
  const at = new Map(players.map((p, i) => [p, i]));
  const h = Array.from({ length: n }, (_, i) =>
    Array.from({ length: n }, (_, j) => (i === j ? 1 / TAU2 : 0)),
  );
  for (const { a, b, games } of pairs) {
    const i = at.get(a)!;
    const j = at.get(b)!;
    const p = expectedScore(rating.get(a)!, rating.get(b)!);
    const w = games * p * (1 - p);
    h[i]![i]! += w;
    h[j]![j]! += w;
    h[i]![j]! -= w;
    h[j]![i]! -= w;
  }
  return h;
}

/** Inverse by Gauss-Jordan elimination with partial pivoting. */
function inverse(m: number[][]): number[][] {
  const n = m.length;
  const a = m.map((row, i) => [...row, ...Array.from({ length: n }, (_, j) => (i === j ? 1 : 0))]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[pivot]![c]!)) pivot = r;
    [a[c], a[pivot]] = [a[pivot]!, a[c]!];
    const d = a[c]![c]!;
    for (let k = 0; k < 2 * n; k++) a[c]![k]! /= d;
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = a[r]![c]!;
      if (f === 0) continue;
      for (let k = 0; k < 2 * n; k++) a[r]![k]! -= f * a[c]![k]!;
    }
  }
  return a.map((row) => row.slice(n));
}

/** Standard error of each rating minus the mean of the reference players, in rating points. */
function gaugeErrors(h: number[][], reference: number[]): number[] {
  const s = inverse(h);
  const k = reference.length;
  let refVar = 0;
  for (const i of reference) for (const j of reference) refVar += s[i]![j]!;
  refVar /= k * k;
  return s.map((row, i) => {
    let cross = 0;
    for (const j of reference) cross += row[j]!;
    return Math.sqrt(row[i]! - (2 * cross) / k + refVar) * SCALE;
  });
}

describe("rating_deviation: the standard error against an independent computation", () => {
  it("with house anchors: the variance relative to the house bots' mean", () => {
    const { players, pairs } = ladder(30, 1);
    const anchors = ["v0", "v1", "v2"];
    const fit = fitBradleyTerry({ players, pairs, anchors }, FAST);
    const expected = gaugeErrors(informationAt(players, pairs, fit.rating), [0, 1, 2]);
    players.forEach((p, i) => {
      expect(fit.deviation.get(p)!).toBeCloseTo(expected[i]!, 3);
    });
  });

  it("without house anchors: the variance relative to everyone's mean, finite for every version", () => {
    const { players, pairs } = ladder(30, 2);
    const fit = fitBradleyTerry({ players, pairs });
    const expected = gaugeErrors(
      informationAt(players, pairs, fit.rating),
      players.map((_, i) => i),
    );
    players.forEach((p, i) => {
      expect(Number.isFinite(fit.deviation.get(p)!)).toBe(true);
      expect(fit.deviation.get(p)!).toBeCloseTo(expected[i]!, 3);
    });
    // A two-player ladder without anchors: by symmetry each is half the gap's standard error.
    const two = fitBradleyTerry({ players: ["a", "b"], pairs: [{ a: "a", b: "b", games: 100, aScore: 50 }] });
    const gap = gaugeErrors(
      informationAt(["a", "b"], [{ a: "a", b: "b", games: 100, aScore: 50 }], two.rating),
      [0, 1],
    );
    expect(two.deviation.get("a")!).toBeCloseTo(gap[0]!, 6);
    expect(two.deviation.get("b")!).toBeCloseTo(gap[1]!, 6);
  });

  it("anchors named but absent from the players pin everyone's mean instead", () => {
    const { players, pairs } = ladder(12, 3);
    const fit = fitBradleyTerry({ players, pairs, anchors: ["not-a-player"] });
    const plain = fitBradleyTerry({ players, pairs });
    for (const p of players) {
      expect(fit.deviation.get(p)!).toBeCloseTo(plain.deviation.get(p)!, 9);
      expect(fit.rating.get(p)!).toBeCloseTo(plain.rating.get(p)!, 9);
    }
  });

  it("up to 200 versions: from the full information matrix", () => {
    const { players, pairs } = ladder(200, 4);
    const anchors = ["v0", "v1"];
    const fit = fitBradleyTerry({ players, pairs, anchors }, FAST);
    const expected = gaugeErrors(informationAt(players, pairs, fit.rating), [0, 1]);
    players.forEach((p, i) => {
      expect(fit.deviation.get(p)!).toBeCloseTo(expected[i]!, 2);
    });
  });

  it("above 200 versions: from the diagonal, 1 / sqrt(own information)", () => {
    const { players, pairs } = ladder(201, 5);
    const anchors = ["v0", "v1"];
    const fit = fitBradleyTerry({ players, pairs, anchors }, FAST);
    const h = informationAt(players, pairs, fit.rating);
    players.forEach((p, i) => {
      expect(fit.deviation.get(p)!).toBeCloseTo(SCALE / Math.sqrt(h[i]![i]!), 3);
    });
    // And leaderboard_score follows the deviation (with its floor of 25).
    for (const p of players.slice(0, 20)) {
      const r = fit.rating.get(p)!;
      const d = fit.deviation.get(p)!;
      expect(leaderboardScore(r, d)).toBe(Math.round(r - 2 * Math.max(d, 25)));
      expect(d).toBeGreaterThan(25);
    }
  });

  it("the limit is an option: fullMatrixLimit moves the switch from the full matrix to the diagonal", () => {
    const { players, pairs } = ladder(20, 6);
    const h = informationAt(players, pairs, fitBradleyTerry({ players, pairs }).rating);
    const diagonal = fitBradleyTerry({ players, pairs }, { fullMatrixLimit: 19 });
    const full = fitBradleyTerry({ players, pairs }, { fullMatrixLimit: 20 });
    const expected = gaugeErrors(
      h,
      players.map((_, i) => i),
    );
    players.forEach((p, i) => {
      expect(diagonal.deviation.get(p)!).toBeCloseTo(SCALE / Math.sqrt(h[i]![i]!), 3);
      expect(full.deviation.get(p)!).toBeCloseTo(expected[i]!, 3);
    });
  });
});
