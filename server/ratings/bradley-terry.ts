// Bradley-Terry ratings (SPEC 1.2 rule 9): a maximum-likelihood fit to all rated games, aggregated into
// per-pair score counts so the cost grows with the number of version pairs, not of games. Draws count as
// half a win. Newton's method on log-strengths with a weak Gaussian prior (which keeps a version with only
// wins finite and fixes the scale's origin), warm-started from the previous fit; the house bots' average is
// then pinned at 1500. rating_deviation is the standard error from the fit's information matrix.

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
}

export interface FitOptions {
  /** Prior standard deviation in rating points. */
  priorSd?: number;
  maxIterations?: number;
  /** Above this many players, the full information matrix is replaced by its diagonal. */
  fullMatrixLimit?: number;
}

export function fitBradleyTerry(input: FitInput, o: FitOptions = {}): FitResult {
  const n = input.players.length;
  const index = new Map(input.players.map((p, i) => [p, i]));
  const tau2 = ((o.priorSd ?? 350) / SCALE) ** 2;
  // Pairs in flat typed arrays: the loops below run over them many times per fit.
  const kept = input.pairs.filter((p) => p.games > 0 && index.has(p.a) && index.has(p.b) && p.a !== p.b);
  const pairs: Pairs = {
    count: kept.length,
    i: Int32Array.from(kept, (p) => index.get(p.a)!),
    j: Int32Array.from(kept, (p) => index.get(p.b)!),
    n: Float64Array.from(kept, (p) => p.games),
    s: Float64Array.from(kept, (p) => p.aScore),
    w: new Float64Array(kept.length),
  };
  const theta = new Float64Array(n);
  input.players.forEach((p, i) => {
    const w = input.warm?.get(p);
    theta[i] = w === undefined ? 0 : (w - BASE_RATING) / SCALE;
  });
  const full = n <= (o.fullMatrixLimit ?? 400);
  let iterations = 0;
  let info = new Float64Array(0);
  for (; iterations < (o.maxIterations ?? 100); iterations++) {
    const grad = new Float64Array(n);
    info = new Float64Array(full ? n * n : n);
    for (let i = 0; i < n; i++) {
      grad[i] = -theta[i]! / tau2;
      info[full ? i * n + i : i] = 1 / tau2;
    }
    for (let k = 0; k < pairs.count; k++) {
      const i = pairs.i[k]!;
      const j = pairs.j[k]!;
      const games = pairs.n[k]!;
      const p = 1 / (1 + Math.exp(theta[j]! - theta[i]!));
      const g = pairs.s[k]! - games * p;
      grad[i]! += g;
      grad[j]! -= g;
      const w = games * p * (1 - p);
      pairs.w[k] = w;
      if (full) {
        info[i * n + i]! += w;
        info[j * n + j]! += w;
        info[i * n + j]! -= w;
        info[j * n + i]! -= w;
      } else {
        info[i]! += w;
        info[j]! += w;
      }
    }
    // Small ladders solve the Newton system exactly; large ones by conjugate gradients on pair products,
    // so a step costs O(pairs) instead of O(versions^3).
    const step = full ? choleskySolve(info, grad, n) : conjugateGradient(pairs, info, grad, tau2);
    let biggest = 0;
    for (let i = 0; i < n; i++) {
      // Damped so a far-off warm start cannot overshoot.
      const d = Math.max(-2, Math.min(2, step[i]!));
      theta[i]! += d;
      biggest = Math.max(biggest, Math.abs(d));
    }
    // 1e-6 in log-strength is a ten-thousandth of a rating point.
    if (biggest < 1e-6) {
      iterations++;
      break;
    }
  }
  const anchors = (input.anchors ?? []).filter((a) => index.has(a));
  const shift =
    anchors.length > 0 ? anchors.reduce((t, a) => t + theta[index.get(a)!]!, 0) / anchors.length : 0;
  const variance = full
    ? gaugeVariance(
        inverse(info, n),
        n,
        anchors.length > 0 ? anchors.map((a) => index.get(a)!) : [...theta.keys()],
      )
    : info.map((v) => 1 / v);
  const rating = new Map<string, number>();
  const deviation = new Map<string, number>();
  input.players.forEach((p, i) => {
    rating.set(p, BASE_RATING + (theta[i]! - shift) * SCALE);
    deviation.set(p, Math.sqrt(variance[i]!) * SCALE);
  });
  return { rating, deviation, iterations };
}

interface Pairs {
  count: number;
  i: Int32Array;
  j: Int32Array;
  n: Float64Array;
  s: Float64Array;
  /** Information weight n p (1 - p) of each pair at the current estimate. */
  w: Float64Array;
}

/** Solves H d = g, with H v = v / tau2 + sum over pairs of w_ij (v_i - v_j) terms, Jacobi-preconditioned. */
function conjugateGradient(pairs: Pairs, diag: Float64Array, g: Float64Array, tau2: number): Float64Array {
  const n = g.length;
  const mul = (v: Float64Array, out: Float64Array) => {
    for (let i = 0; i < n; i++) out[i] = v[i]! / tau2;
    for (let k = 0; k < pairs.count; k++) {
      const i = pairs.i[k]!;
      const j = pairs.j[k]!;
      const d = pairs.w[k]! * (v[i]! - v[j]!);
      out[i]! += d;
      out[j]! -= d;
    }
  };
  const x = new Float64Array(n);
  const r = Float64Array.from(g);
  const z = r.map((v, i) => v / diag[i]!);
  const p = Float64Array.from(z);
  const q = new Float64Array(n);
  let rz = dot(r, z);
  const tolerance = 1e-12 * Math.max(1, dot(g, g));
  let it = 0;
  for (; it < 200 && dot(r, r) > tolerance; it++) {
    mul(p, q);
    const alpha = rz / dot(p, q);
    for (let i = 0; i < n; i++) {
      x[i]! += alpha * p[i]!;
      r[i]! -= alpha * q[i]!;
      z[i] = r[i]! / diag[i]!;
    }
    const next = dot(r, z);
    const beta = next / rz;
    rz = next;
    for (let i = 0; i < n; i++) p[i] = z[i]! + beta * p[i]!;
  }
  return x;
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

function inverse(m: Float64Array, n: number): Float64Array {
  const l = cholesky(m, n);
  const out = new Float64Array(n * n);
  const e = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    e.fill(0);
    e[i] = 1;
    out.set(solveWith(l, e, n), i * n);
  }
  return out;
}

/**
 * Variance of each rating relative to the pinned reference (the anchors' mean, or everyone's mean): the
 * prior leaves the common level loosely determined, and that shared uncertainty is not a version's own.
 * Var(x_i - mean_R) = S_ii - 2/k sum_{j in R} S_ij + 1/k^2 sum_{j,l in R} S_jl.
 */
function gaugeVariance(cov: Float64Array, n: number, ref: number[]): Float64Array {
  const k = ref.length;
  let refVar = 0;
  for (const j of ref) for (const l of ref) refVar += cov[j * n + l]!;
  refVar /= k * k;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let c = 0;
    for (const j of ref) c += cov[i * n + j]!;
    out[i] = Math.max(0, cov[i * n + i]! - (2 * c) / k + refVar);
  }
  return out;
}
