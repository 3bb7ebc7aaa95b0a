// Rank and matchup uncertainty from a Bradley-Terry fit (issue 33, part 3): the 95 % interval of each
// version's rank, and the probability that one version beats another with its interval. Pure: it is handed
// the ratings and either their covariance (the fit's full matrix) or their deviations (treated as
// independent, the fit's own approximation on large ladders). docs/ladder.md ("Rank intervals") says why.
//
// Ranks by simulation: a rank is a count over every other version, and the events "j is above i" are
// correlated, so no closed form gives its quantiles. Draws from the fit's normal approximation with a fixed
// seed give the same answer for the same fit, every time. Win probabilities in closed form: the chance is a
// monotone function of one rating difference, whose normal interval maps straight through it.

import { rng } from "../../engine/house/tactics.ts";

export const CONFIDENCE = 0.95;
/** z for a two-sided 95 % normal interval. */
const Z95 = 1.959963984540054;
/** Draws per rank computation: the 2.5 % tail then holds 50 of them. */
export const DRAWS = 2000;
const SEED = 0x33;

export interface RatingsInput {
  /** Ratings in rating points (any order; ranks count from the highest). */
  rating: readonly number[];
  /** Row-major k by k covariance (rating points squared), when the fit has it. */
  covariance?: Float64Array | null;
  /** Per-version standard errors, used (as independent) when there is no covariance. */
  deviation: readonly number[];
}

export interface RankInterval {
  /** Best rank in the interval (1 is the top). */
  low: number;
  /** Worst rank in the interval. */
  high: number;
}

export interface WinChance {
  /** The fitted probability that the row version beats the column one (a draw counts half). */
  p: number;
  low: number;
  high: number;
}

/** Which uncertainty the intervals rest on. */
export type Method = "covariance" | "independent";

export const methodOf = (input: RatingsInput): Method => (input.covariance ? "covariance" : "independent");

/** Expected score of a rating difference d (a minus b), the fit's own logistic. */
export const logistic = (d: number): number => 1 / (1 + 10 ** (-d / 400));

export interface RankOptions {
  draws?: number;
  /** The versions that get an interval (default all); every version still counts in their ranks. */
  only?: readonly number[];
}

/** The 95 % interval of each version's rank among all of them, by DRAWS simulated rating vectors. */
export function rankIntervals(input: RatingsInput, o: RankOptions = {}): RankInterval[] {
  const run = rankSimulation(input, o);
  while (!run.step(Infinity));
  return run.result();
}

/**
 * The same intervals (identical: the same draws in the same order), computed in slices of `slice` draws
 * with the event loop served between them: at 2,000 ranked versions the simulation takes a few hundred
 * milliseconds, which a route must not hold the socket thread for in one piece.
 */
export async function rankIntervalsInSlices(
  input: RatingsInput,
  o: RankOptions = {},
  slice = 25,
): Promise<RankInterval[]> {
  const run = rankSimulation(input, o);
  while (!run.step(slice)) await new Promise<void>((resolve) => setImmediate(resolve));
  return run.result();
}

function rankSimulation(
  input: RatingsInput,
  o: RankOptions,
): { step(count: number): boolean; result(): RankInterval[] } {
  const k = input.rating.length;
  const draws = o.draws ?? DRAWS;
  const only = o.only ?? Array.from({ length: k }, (_, i) => i);
  const { members, above } = contenders(input, only);
  const sub: RatingsInput = {
    rating: members.map((i) => input.rating[i]!),
    deviation: members.map((i) => input.deviation[i]!),
    covariance: input.covariance ?? null,
  };
  const at = new Map(members.map((i, p) => [i, p]));
  const asked = only.map((i) => at.get(i)!);
  const m = members.length;
  const sampler = normalSampler(sub);
  const ranks = asked.map(() => new Uint32Array(draws));
  const x = new Float64Array(m);
  const sorted = new Float64Array(m);
  let d = 0;
  return {
    step(count) {
      for (const end = Math.min(draws, d + count); d < end; d++) {
        sampler(x);
        sorted.set(x);
        sorted.sort();
        for (let p = 0; p < asked.length; p++) {
          // Rank = 1 + how many drew strictly higher: those always above, and of the rest m minus the
          // position just past x_i in ascending order.
          ranks[p]![d] = 1 + above + m - upperBound(sorted, x[asked[p]!]!);
        }
      }
      return d === draws;
    },
    result() {
      const tail = (1 - CONFIDENCE) / 2;
      return ranks.map((r) => {
        r.sort();
        return { low: r[Math.floor(tail * draws)]!, high: r[Math.ceil((1 - tail) * draws) - 1]! };
      });
    },
  };
}

/**
 * A standard normal drawn below can never pass Z_MAX: Box-Muller's radius is sqrt(-2 ln u) with u at least
 * 2^-32 (the generator's step), so at most 6.66.
 */
const Z_MAX = 6.7;

/**
 * The versions a simulation for `only` must draw, and how many are above all of them in every draw. With
 * independent draws a version more than Z_MAX deviations below the lowest reach of the asked versions can
 * never pass one of them, and one more than Z_MAX above the highest reach is always above them all: the
 * result is the same as drawing them, and the top 50 of a 2,000-version ladder draws a few hundred. Draws
 * through a covariance are sums of several normals, with no such bound, so they keep every version (the fit
 * has a covariance only up to 200 versions, where that is cheap).
 */
function contenders(input: RatingsInput, only: readonly number[]): { members: number[]; above: number } {
  const k = input.rating.length;
  const all = Array.from({ length: k }, (_, i) => i);
  if (input.covariance || only.length === k) return { members: all, above: 0 };
  const reach = (i: number, sign: number) => input.rating[i]! + sign * Z_MAX * input.deviation[i]!;
  let lo = Infinity;
  let hi = -Infinity;
  for (const i of only) {
    lo = Math.min(lo, reach(i, -1));
    hi = Math.max(hi, reach(i, 1));
  }
  const members: number[] = [];
  let above = 0;
  for (const j of all) {
    if (reach(j, 1) < lo) continue;
    if (reach(j, -1) > hi) above++;
    else members.push(j);
  }
  return { members, above };
}

/** The chance that version a beats version b, with the 95 % interval of the rating difference mapped through. */
export function winChance(input: RatingsInput, a: number, b: number): WinChance {
  const d = input.rating[a]! - input.rating[b]!;
  const sd = Math.sqrt(Math.max(0, differenceVariance(input, a, b)));
  return { p: logistic(d), low: logistic(d - Z95 * sd), high: logistic(d + Z95 * sd) };
}

/** Var(rating_a - rating_b): both variances less twice the covariance (none when treated as independent). */
export function differenceVariance(input: RatingsInput, a: number, b: number): number {
  const c = input.covariance;
  const k = input.rating.length;
  if (c) return c[a * k + a]! + c[b * k + b]! - 2 * c[a * k + b]!;
  return input.deviation[a]! ** 2 + input.deviation[b]! ** 2;
}

/** Index of the first value above v in an ascending array. */
function upperBound(a: Float64Array, v: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Fills a vector with one draw of N(rating, covariance): through the covariance's Cholesky factor, or one
 * independent normal per version. The generator is seeded, so the same fit gives the same intervals.
 */
function normalSampler(input: RatingsInput): (out: Float64Array) => void {
  const k = input.rating.length;
  const gauss = gaussian(SEED);
  const c = input.covariance;
  if (!c) {
    return (out) => {
      for (let i = 0; i < k; i++) out[i] = input.rating[i]! + input.deviation[i]! * gauss();
    };
  }
  const l = cholesky(c, k);
  const z = new Float64Array(k);
  return (out) => {
    for (let i = 0; i < k; i++) z[i] = gauss();
    for (let i = 0; i < k; i++) {
      let s = input.rating[i]!;
      for (let j = 0; j <= i; j++) s += l[i * k + j]! * z[j]!;
      out[i] = s;
    }
  };
}

/**
 * Lower Cholesky factor of a covariance. A covariance relative to a reference (the fit's gauge) can be
 * singular, for instance when a single anchor's own variance is zero: pivots that fall to rounding noise
 * are set to zero rather than failing, which draws that direction as fixed, exactly what the matrix says.
 */
function cholesky(m: Float64Array, n: number): Float64Array {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = m[i * n + j]!;
      for (let q = 0; q < j; q++) sum -= l[i * n + q]! * l[j * n + q]!;
      if (i === j) l[i * n + i] = sum > 1e-9 * Math.max(1, m[i * n + i]!) ? Math.sqrt(sum) : 0;
      else l[i * n + j] = l[j * n + j]! > 0 ? sum / l[j * n + j]! : 0;
    }
  }
  return l;
}

/** Standard normal draws (Box-Muller) from the project's seeded uniform generator (mulberry32). */
function gaussian(seed: number): () => number {
  const uniform = rng(seed);
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const u = 1 - uniform();
    const v = uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}
