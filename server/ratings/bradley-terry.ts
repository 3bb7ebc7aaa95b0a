// Bradley-Terry ratings (SPEC 1.2 rule 9): a maximum-likelihood fit to all rated games, aggregated into
// per-pair score counts so the cost grows with the number of version pairs, not of games. Draws count as
// half a win. Newton's method on log-strengths with a weak Gaussian prior (which keeps a version with only
// wins finite and fixes the scale's origin), warm-started from the previous fit; the house bots' average is
// then pinned at 1500. rating_deviation is the standard error from the fit's information matrix.
//
// Numerics: Newton steps are direct (Cholesky) solves up to 64 versions and preconditioned conjugate
// gradients above, so a step costs a few passes over the pairs, never O(versions^3); standard errors use the
// full information matrix (gauge-aware) up to 200 versions and its diagonal above (test/bench/ladder-bench.ts
// times a refit after one game at 2,000 versions and 100,000 games).

export const BASE_RATING = 1500;
const SCALE = 400 / Math.LN10; // rating points per unit of natural log-strength

export interface PairScore {
  a: string;
  b: string;
  /** Games between a and b. */
  games: number;
  /** a's score: wins plus half the draws. */
  aScore: number;
}

export interface FitInput {
  players: string[];
  pairs: PairScore[];
  /** Players whose average rating is pinned at 1500 (the house bots); none pins the prior's mean instead. */
  anchors?: string[];
  /** Previous ratings to start from. */
  warm?: Map<string, number>;
}

export interface FitResult {
  rating: Map<string, number>;
  deviation: Map<string, number>;
  iterations: number;
  /** Conjugate-gradient iterations over all Newton steps (see IndexedFit). */
  cgIterations: number;
}

export interface FitOptions {
  /** Prior standard deviation in rating points. */
  priorSd?: number;
  maxIterations?: number;
  /**
   * Up to this many players (default 200), standard errors come from the full information matrix
   * (gauge-aware, O(players^3) once per fit); above it, from its diagonal (a version's own information,
   * within a few percent of the full answer on a ladder that large and well mixed).
   */
  fullMatrixLimit?: number;
}

export function fitBradleyTerry(input: FitInput, o: FitOptions = {}): FitResult {
  const n = input.players.length;
  const index = new Map(input.players.map((p, i) => [p, i]));
  const kept = input.pairs.filter((p) => p.games > 0 && index.has(p.a) && index.has(p.b) && p.a !== p.b);
  const pairs: PairArrays = {
    count: kept.length,
    i: Int32Array.from(kept, (p) => index.get(p.a)!),
    j: Int32Array.from(kept, (p) => index.get(p.b)!),
    n: Float64Array.from(kept, (p) => p.games),
    s: Float64Array.from(kept, (p) => p.aScore),
  };
  const theta = new Float64Array(n);
  input.players.forEach((p, i) => {
    const w = input.warm?.get(p);
    theta[i] = w === undefined ? 0 : (w - BASE_RATING) / SCALE;
  });
  const anchors = (input.anchors ?? []).filter((a) => index.has(a)).map((a) => index.get(a)!);
  const fit = fitIndexed(n, pairs, theta, anchors, o);
  const rating = new Map<string, number>();
  const deviation = new Map<string, number>();
  input.players.forEach((p, i) => {
    rating.set(p, fit.rating[i]!);
    deviation.set(p, fit.deviation[i]!);
  });
  return { rating, deviation, iterations: fit.iterations, cgIterations: fit.cgIterations };
}

/** Pairs in flat typed arrays, players by index: the loops below run over them many times per fit. */
export interface PairArrays {
  count: number;
  i: Int32Array;
  j: Int32Array;
  /** Games of each pair, and the first player's score in them. */
  n: Float64Array;
  s: Float64Array;
}

export interface IndexedFit {
  /** Ratings by player index. */
  rating: Float64Array;
  /**
   * Deviations by player index, computed on first read and kept: the full-matrix standard errors cost
   * O(players^3), most of a warm refit's time, and a live ladder refits at every rated match end while
   * deviations are read only by the leaderboard and bot pages (issue 13: off the socket thread's path).
   */
  readonly deviation: Float64Array;
  /**
   * The covariance of the given players' ratings (row-major k by k, rating points squared), relative to the
   * same pinned reference as `deviation` (its diagonal is the deviations squared), or null above the
   * full-matrix limit, where the fit keeps only its diagonal. Computed on demand from this fit's information
   * matrix: rank and win-probability intervals (server/insight) need the off-diagonal terms, since two
   * versions that mostly played each other are rated with correlated errors.
   */
  covariance(players: readonly number[]): Float64Array | null;
  iterations: number;
  /**
   * Conjugate-gradient iterations over all Newton steps, 0 when every step was a direct solve: each costs a
   * pass over the pairs, so this is the fit's work, which the tests bound (the preconditioner's whole point).
   */
  cgIterations: number;
}

/**
 * The fit on indexed players (what RatingBook calls, with its incrementally kept arrays). `theta` holds
 * the start in natural log-strength units before the anchor shift and is updated in place to the fitted
 * values, so the next call can warm-start from exactly where this one stopped.
 */
export function fitIndexed(
  n: number,
  pairs: PairArrays,
  theta: Float64Array,
  anchors: number[],
  o: FitOptions = {},
): IndexedFit {
  const tau2 = ((o.priorSd ?? 350) / SCALE) ** 2;
  // Newton steps by a direct (Cholesky) solve on tiny ladders, by conjugate gradients otherwise: a direct
  // solve per step costs O(n^3), 200 ms a refit at 400 versions, where CG costs a few passes over pairs.
  const direct = n <= DIRECT_LIMIT;
  const full = n <= (o.fullMatrixLimit ?? 200);
  const w = new Float64Array(pairs.count);
  const grad = new Float64Array(n);
  const diag = new Float64Array(n);
  const strength = new Float64Array(n);
  let coarse: Coarse | null = null;
  let iterations = 0;
  const cg = { iterations: 0 };
  const maxIterations = o.maxIterations ?? 100;
  // Stopping rule. The log-posterior is strongly concave with curvature at least 1 / tau2 in every
  // direction (the likelihood is concave, the prior adds exactly 1 / tau2), so |theta - optimum| <=
  // tau2 |gradient|. Stopping once that bound is under 1e-5 in log-strength (under 0.002 rating points)
  // is a guarantee rather than a heuristic, and it needs no extra Newton solve just to confirm convergence.
  const tolerance = 1e-5 / tau2;
  while (iterations < maxIterations) {
    iterations++;
    // Strengths e^theta once per player (relative to the largest, so nothing overflows), then each pair's
    // win probability is a division: an exp per pair was most of a gradient pass's cost.
    let top = -Infinity;
    for (let i = 0; i < n; i++) top = Math.max(top, theta[i]!);
    for (let i = 0; i < n; i++) {
      grad[i] = -theta[i]! / tau2;
      diag[i] = 1 / tau2;
      strength[i] = Math.exp(theta[i]! - top);
    }
    pairGradient(pairs.count, pairs.i, pairs.j, pairs.n, pairs.s, strength, grad, diag, w);
    const gnorm = Math.sqrt(dot(grad, grad));
    if (gnorm <= tolerance) break;
    // Preconditioned conjugate gradients on pair products: a step costs O(pairs), not O(versions^3). The
    // coarse part of the preconditioner is built once per fit: later steps change the weights only a little.
    if (!direct) coarse ??= coarseSpace(pairs, w, theta, tau2);
    const step = direct
      ? choleskySolve(information(pairs, w, diag), grad, n)
      : conjugateGradient(pairs, w, diag, grad, tau2, cgTarget(gnorm, tolerance), coarse, cg);
    for (let i = 0; i < n; i++) {
      // Damped so a far-off warm start cannot overshoot.
      theta[i]! += Math.max(-2, Math.min(2, step[i]!));
    }
  }
  let shift = 0;
  for (const a of anchors) shift += theta[a]! / anchors.length;
  const rating = new Float64Array(n);
  for (let i = 0; i < n; i++) rating[i] = BASE_RATING + (theta[i]! - shift) * SCALE;
  // The weights and diagonal are those of the last gradient pass, at the final estimate. What the deferred
  // deviations read is fixed now: w and diag belong to this call, the pairs' indices below `count` never
  // change (the book only appends), and the anchors are copied (the book's list grows).
  const pinned = anchors.length > 0 ? [...anchors] : null;
  let deviation: Float64Array | null = null;
  const deviations = () => {
    if (deviation) return deviation;
    const ref = pinned ?? Array.from({ length: n }, (_, i) => i);
    const variance = full ? gaugeVariance(information(pairs, w, diag), n, ref) : diag.map((v) => 1 / v);
    deviation = variance.map((v) => Math.sqrt(v) * SCALE);
    return deviation;
  };
  let factor: Float64Array | null = null;
  const covariance = (players: readonly number[]): Float64Array | null => {
    if (!full) return null;
    factor ??= cholesky(information(pairs, w, diag), n);
    const ref = pinned ?? Array.from({ length: n }, (_, i) => i);
    return gaugeCovariance(factor, n, ref, players);
  };
  return {
    rating,
    get deviation() {
      return deviations();
    },
    covariance,
    iterations,
    cgIterations: cg.iterations,
  };
}

/**
 * How accurately to solve a Newton system (an inexact Newton method). Far from the optimum a rough step
 * does (a residual of a hundredth of |g| at most, and |g|^2 / 10 once |g| < 0.1, which keeps convergence
 * quadratic); close to it, where Newton's own error would fall under the stopping tolerance anyway, solve
 * straight to that tolerance. A warm refit after one game then takes three gradient passes and two short
 * solves rather than a string of ever more precise ones.
 */
function cgTarget(g: number, tolerance: number): number {
  const t = 0.1 * Math.min(0.1, g) * g;
  return t < 10 * tolerance ? tolerance / 4 : t;
}

/**
 * Solves H d = g to a residual of `tolerance`, with H v = v / tau2 + sum over pairs of w_k (v_i - v_j)
 * terms. Preconditioned two ways: Jacobi (the diagonal), plus an additive coarse correction that solves
 * exactly on versions grouped by rating (below). Jacobi alone leaves the slow, smooth modes of the
 * game graph (a common shift of everyone, which only the weak prior pins; gradual drifts along the rating
 * scale, where most games are between neighbours) to many iterations; the coarse correction removes them.
 */
function conjugateGradient(
  pairs: PairArrays,
  w: Float64Array,
  diag: Float64Array,
  g: Float64Array,
  tau2: number,
  tolerance: number,
  coarse: Coarse | null,
  work: { iterations: number },
): Float64Array {
  const n = g.length;
  const precondition = (r: Float64Array, z: Float64Array) => {
    for (let i = 0; i < n; i++) z[i] = r[i]! / diag[i]!;
    if (!coarse) return;
    const rc = new Float64Array(coarse.size);
    for (let i = 0; i < n; i++) rc[coarse.group[i]!]! += r[i]!;
    const y = solveWith(coarse.chol, rc, coarse.size);
    for (let i = 0; i < n; i++) z[i]! += y[coarse.group[i]!]!;
  };
  const mul = (v: Float64Array, out: Float64Array) =>
    pairProduct(pairs.count, pairs.i, pairs.j, w, v, out, 1 / tau2);
  const x = new Float64Array(n);
  const r = Float64Array.from(g);
  const z = new Float64Array(n);
  precondition(r, z);
  const p = Float64Array.from(z);
  const q = new Float64Array(n);
  let rz = dot(r, z);
  const limit = tolerance * tolerance;
  for (let it = 0; it < 500 && dot(r, r) > limit; it++) {
    work.iterations++;
    mul(p, q);
    const alpha = rz / dot(p, q);
    for (let i = 0; i < n; i++) {
      x[i]! += alpha * p[i]!;
      r[i]! -= alpha * q[i]!;
    }
    precondition(r, z);
    const next = dot(r, z);
    const beta = next / rz;
    rz = next;
    for (let i = 0; i < n; i++) p[i] = z[i]! + beta * p[i]!;
  }
  return x;
}

interface Coarse {
  size: number;
  /** Each version's group: versions sorted by current rating, cut into runs of GROUP. */
  group: Int32Array;
  /** Cholesky factor of the Newton matrix restricted to group indicators (Z^T H Z). */
  chol: Float64Array;
}

const GROUP = 64;
/** Up to this many players a Newton step is a direct solve (cheap at this size, and exact). */
const DIRECT_LIMIT = 64;

function coarseSpace(pairs: PairArrays, w: Float64Array, theta: Float64Array, tau2: number): Coarse {
  const n = theta.length;
  const order = [...theta.keys()].sort((a, b) => theta[a]! - theta[b]!);
  const size = Math.ceil(n / GROUP);
  const group = new Int32Array(n);
  order.forEach((i, r) => {
    group[i] = Math.floor((r * size) / n);
  });
  const e = new Float64Array(size * size);
  for (let i = 0; i < n; i++) e[group[i]! * (size + 1)]! += 1 / tau2;
  for (let k = 0; k < pairs.count; k++) {
    const a = group[pairs.i[k]!]!;
    const b = group[pairs.j[k]!]!;
    if (a === b) continue;
    const wk = w[k]!;
    e[a * size + a]! += wk;
    e[b * size + b]! += wk;
    e[a * size + b]! -= wk;
    e[b * size + a]! -= wk;
  }
  return { size, group, chol: cholesky(e, size) };
}

/**
 * Adds each pair's log-likelihood gradient to `grad` and its information n p (1 - p) to `diag` (both ends)
 * and to `w`, with p = strength_i / (strength_i + strength_j). A top-level function for the JIT's sake.
 */
function pairGradient(
  count: number,
  pi: Int32Array,
  pj: Int32Array,
  pn: Float64Array,
  ps: Float64Array,
  strength: Float64Array,
  grad: Float64Array,
  diag: Float64Array,
  w: Float64Array,
): void {
  for (let k = 0; k < count; k++) {
    const i = pi[k]!;
    const j = pj[k]!;
    const games = pn[k]!;
    const si = strength[i]!;
    const total = si + strength[j]!;
    // Both strengths underflow only for ratings some 100,000 points apart; call that an even pair.
    const p = total > 0 ? si / total : 0.5;
    const g = ps[k]! - games * p;
    grad[i]! += g;
    grad[j]! -= g;
    const wk = games * p * (1 - p);
    w[k] = wk;
    diag[i]! += wk;
    diag[j]! += wk;
  }
}

/** out = v / tau2 + sum over pairs of w_k (v_i - v_j) (e_i - e_j): the Newton matrix times v, the CG's
 * inner loop. A plain top-level function over local typed arrays, which the JIT compiles tightly. */
function pairProduct(
  count: number,
  pi: Int32Array,
  pj: Int32Array,
  w: Float64Array,
  v: Float64Array,
  out: Float64Array,
  prior: number,
): void {
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * prior;
  for (let k = 0; k < count; k++) {
    const i = pi[k]!;
    const j = pj[k]!;
    const d = w[k]! * (v[i]! - v[j]!);
    out[i]! += d;
    out[j]! -= d;
  }
}

function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** SPEC 1.2: leaderboard_score = round(rating - 2 * max(rating_deviation, 25)). */
export function leaderboardScore(rating: number, deviation: number): number {
  return Math.round(rating - 2 * Math.max(deviation, 25));
}

/** Expected score of a against b. */
export function expectedScore(ratingA: number, ratingB: number): number {
  return 1 / (1 + 10 ** ((ratingB - ratingA) / 400));
}

// The information matrix is symmetric positive definite (the prior makes it so): Cholesky is stable.
function cholesky(m: Float64Array, n: number): Float64Array {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = m[i * n + j]!;
      for (let k = 0; k < j; k++) sum -= l[i * n + k]! * l[j * n + k]!;
      l[i * n + j] = i === j ? Math.sqrt(Math.max(sum, 1e-12)) : sum / l[j * n + j]!;
    }
  }
  return l;
}

function solveWith(l: Float64Array, b: Float64Array, n: number): Float64Array {
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= l[i * n + k]! * y[k]!;
    y[i] = s / l[i * n + i]!;
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * x[k]!;
    x[i] = s / l[i * n + i]!;
  }
  return x;
}

function choleskySolve(m: Float64Array, b: Float64Array, n: number): Float64Array {
  return solveWith(cholesky(m, n), b, n);
}

/** The information (negative Hessian) matrix, dense, from the pair weights and its diagonal. */
function information(pairs: PairArrays, w: Float64Array, diag: Float64Array): Float64Array {
  const n = diag.length;
  const m = new Float64Array(n * n);
  for (let k = 0; k < pairs.count; k++) {
    const i = pairs.i[k]!;
    const j = pairs.j[k]!;
    m[i * n + j]! -= w[k]!;
    m[j * n + i]! -= w[k]!;
  }
  for (let i = 0; i < n; i++) m[i * n + i] = diag[i]!;
  return m;
}

/**
 * Variance of each rating relative to the pinned reference (the anchors' mean, or everyone's mean): the
 * prior leaves the common level loosely determined, and that shared uncertainty is not a version's own.
 * With S the inverse of the information matrix and R the k reference players,
 * Var(x_i - mean_R) = S_ii - 2/k (S 1_R)_i + 1/k^2 1_R' S 1_R.
 * S_ii is the squared norm of column i of L^-1 (S = L^-T L^-1 for the Cholesky factor L), one forward
 * substitution per column: with the factorisation, n^3 / 3 operations instead of the 2 n^3 of a full
 * inverse.
 */
function gaugeVariance(info: Float64Array, n: number, ref: number[]): Float64Array {
  const l = cholesky(info, n);
  const k = ref.length;
  const ones = new Float64Array(n);
  for (const j of ref) ones[j] = 1;
  const u = solveWith(l, ones, n);
  let refVar = 0;
  for (const j of ref) refVar += u[j]!;
  refVar /= k * k;
  const out = new Float64Array(n);
  const x = new Float64Array(n);
  for (let c = 0; c < n; c++) {
    // x = L^-1 e_c, which is zero above row c.
    let sii = 0;
    for (let r = c; r < n; r++) {
      let v = r === c ? 1 : 0;
      for (let q = c; q < r; q++) v -= l[r * n + q]! * x[q]!;
      x[r] = v / l[r * n + r]!;
      sii += x[r]! * x[r]!;
    }
    out[c] = Math.max(0, sii - (2 * u[c]!) / k + refVar);
  }
  return out;
}

/**
 * Cov(x_a - mean_R, x_b - mean_R) for the selected players, from the Cholesky factor of the information
 * matrix (S its inverse): S_ab - (S 1_R)_a / k - (S 1_R)_b / k + 1_R' S 1_R / k^2, in rating points squared.
 * One solve per selected player, so a top-50 block costs 50 n^2 after the n^3 / 3 factorisation.
 */
function gaugeCovariance(
  l: Float64Array,
  n: number,
  ref: number[],
  players: readonly number[],
): Float64Array {
  const k = ref.length;
  const ones = new Float64Array(n);
  for (const j of ref) ones[j] = 1;
  const u = solveWith(l, ones, n);
  let refVar = 0;
  for (const j of ref) refVar += u[j]!;
  refVar /= k * k;
  const m = players.length;
  const out = new Float64Array(m * m);
  const unit = new Float64Array(n);
  players.forEach((a, p) => {
    unit[a] = 1;
    const column = solveWith(l, unit, n);
    unit[a] = 0;
    players.forEach((b, q) => {
      out[p * m + q] = (column[b]! - u[a]! / k - u[b]! / k + refVar) * SCALE * SCALE;
    });
  });
  return out;
}
