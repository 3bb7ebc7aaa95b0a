// Ratings against known answers (issue 4): closed forms for tiny tournaments, an independent maximisation
// (plain Zermelo/MM iteration and plain gradient ascent written here) for a 3-player one, a simulated
// population with known true strengths whose order the fit recovers and whose standard errors cover the
// truth about 95 % of the time, the large-ladder solver checked by its own optimality condition, the
// warm-started refit after one more game against a from-scratch fit, leaderboard_score and qualifying,
// and that only ranked, non-voided results reach the rating book.
import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MAP_NAMES } from "../../engine/rules.ts";
import { BotStore } from "../../server/bots/bot-store.ts";
import {
  QUALIFYING_GAMES,
  type RatedGame,
  RatingBook,
  ratedGame,
  versionKey,
} from "../../server/ratings/book.ts";
import {
  BASE_RATING,
  expectedScore,
  fitBradleyTerry,
  leaderboardScore,
  type PairScore,
} from "../../server/ratings/bradley-terry.ts";
import { RatingStore } from "../../server/ratings/rating-store.ts";
import { MatchStore } from "../../server/results/match-store.ts";
import { openStore } from "../../server/store/sql-store.ts";
import type { BotRow, MatchRecord } from "../../server/store/types.ts";
import { seededDataDir } from "../helpers/pglite-template.ts";
import { prng } from "../helpers/prng.ts";

const SCALE = 400 / Math.LN10; // rating points per unit of natural log-strength
/** A prior so weak that the fit is the plain maximum-likelihood estimate. */
const FLAT = { priorSd: 1e7 };

const normal = (rand: () => number) => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());

/** Games aggregated into pair scores, as the book does. */
function aggregate(games: RatedGame[]): PairScore[] {
  const m = new Map<string, PairScore>();
  for (const g of games) {
    const [a, b, s] = g.a < g.b ? [g.a, g.b, g.score] : [g.b, g.a, 1 - g.score];
    const key = JSON.stringify([a, b]);
    const cell = m.get(key) ?? { a, b, games: 0, aScore: 0 };
    cell.games++;
    cell.aScore += s;
    m.set(key, cell);
  }
  return [...m.values()];
}

const game = (a: string, b: string, score: number, i = 0, house: string[] = []): RatedGame => ({
  a,
  b,
  score,
  map: MAP_NAMES[i % MAP_NAMES.length]!,
  aHouse: house.includes(a),
  bHouse: house.includes(b),
});

function ranks(xs: number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((p, q) => p[0] - q[0]);
  const r = new Array<number>(xs.length);
  order.forEach(([, i], k) => {
    r[i] = k;
  });
  return r;
}
function spearman(x: number[], y: number[]): number {
  const rx = ranks(x);
  const ry = ranks(y);
  const n = x.length;
  const d2 = rx.reduce((t, r, i) => t + (r - ry[i]!) ** 2, 0);
  return 1 - (6 * d2) / (n * (n * n - 1));
}
function kendall(x: number[], y: number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++)
    for (let j = i + 1; j < x.length; j++) s += Math.sign(x[i]! - x[j]!) * Math.sign(y[i]! - y[j]!);
  return s / ((x.length * (x.length - 1)) / 2);
}

describe("small tournaments with known answers", () => {
  it("two players: the rating gap is 400 log10(s / (n - s)) and the deviation 1 / sqrt(n p (1 - p))", () => {
    // 75 of 100 to A: p = 3/4, gap = 400 log10 3 = 190.85; information n p (1 - p) = 18.75.
    const fit = fitBradleyTerry(
      { players: ["A", "B"], pairs: [{ a: "A", b: "B", games: 100, aScore: 75 }], anchors: ["B"] },
      FLAT,
    );
    expect(fit.rating.get("B")!).toBeCloseTo(1500, 6);
    expect(fit.rating.get("A")! - 1500).toBeCloseTo(400 * Math.log10(3), 3);
    // With B pinned, A's deviation is the standard error of the gap.
    expect(fit.deviation.get("A")!).toBeCloseTo(SCALE / Math.sqrt(18.75), 2);
    expect(fit.deviation.get("A")!).toBeCloseTo(40.12, 1);
    // Draws count half: 50 wins, 50 draws and no losses is a score of 75 as well.
    const withDraws = fitBradleyTerry(
      {
        players: ["A", "B"],
        pairs: aggregate([
          ...Array.from({ length: 50 }, (_, i) => game("A", "B", 1, i)),
          ...Array.from({ length: 50 }, (_, i) => game("A", "B", 0.5, i)),
        ]),
        anchors: ["B"],
      },
      FLAT,
    );
    expect(withDraws.rating.get("A")!).toBeCloseTo(fit.rating.get("A")!, 6);
  });

  it("three players whose results fit the model exactly: strengths 4 : 2 : 1, gaps of 400 log10 2", () => {
    // A-B 20 of 30 (2:1), B-C 20 of 30 (2:1), A-C 24 of 30 (4:1): the likelihood equations hold at
    // strengths 4, 2, 1, so that is the maximum-likelihood answer, by hand.
    const pairs: PairScore[] = [
      { a: "A", b: "B", games: 30, aScore: 20 },
      { a: "B", b: "C", games: 30, aScore: 20 },
      { a: "A", b: "C", games: 30, aScore: 24 },
    ];
    const fit = fitBradleyTerry({ players: ["A", "B", "C"], pairs, anchors: ["C"] }, FLAT);
    const step = 400 * Math.log10(2); // 120.41
    expect(fit.rating.get("C")!).toBeCloseTo(1500, 6);
    expect(fit.rating.get("B")!).toBeCloseTo(1500 + step, 3);
    expect(fit.rating.get("A")!).toBeCloseTo(1500 + 2 * step, 3);
    // Pinning the average of A and C instead moves everyone by the same amount.
    const mid = fitBradleyTerry({ players: ["A", "B", "C"], pairs, anchors: ["A", "C"] }, FLAT);
    expect(mid.rating.get("B")!).toBeCloseTo(1500, 3);
    expect(mid.rating.get("A")!).toBeCloseTo(1500 + step, 3);
  });

  // A tournament that does not fit the model exactly (a cycle), so the answer needs solving.
  const cyclic: PairScore[] = [
    { a: "A", b: "B", games: 10, aScore: 7 },
    { a: "B", b: "C", games: 12, aScore: 7.5 },
    { a: "C", b: "A", games: 8, aScore: 4.5 },
    { a: "A", b: "D", games: 6, aScore: 5 },
    { a: "D", b: "C", games: 9, aScore: 3 },
  ];
  const players = ["A", "B", "C", "D"];

  it("matches a plain Zermelo (MM) iteration on a cyclic tournament", () => {
    // Zermelo 1929 / Hunter 2004: pi_i <- W_i / sum_j n_ij / (pi_i + pi_j), the classic fixed point.
    const pi = new Map(players.map((p) => [p, 1]));
    for (let it = 0; it < 20_000; it++) {
      for (const p of players) {
        let wins = 0;
        let denom = 0;
        for (const c of cyclic) {
          if (c.a !== p && c.b !== p) continue;
          const other = c.a === p ? c.b : c.a;
          wins += c.a === p ? c.aScore : c.games - c.aScore;
          denom += c.games / (pi.get(p)! + pi.get(other)!);
        }
        pi.set(p, wins / denom);
      }
      const g = Math.exp(players.reduce((t, p) => t + Math.log(pi.get(p)!), 0) / players.length);
      for (const p of players) pi.set(p, pi.get(p)! / g);
    }
    const fit = fitBradleyTerry({ players, pairs: cyclic, anchors: ["A"] }, FLAT);
    for (const p of players) {
      const mm = 1500 + 400 * Math.log10(pi.get(p)! / pi.get("A")!);
      expect(fit.rating.get(p)!).toBeCloseTo(mm, 3);
    }
  });

  it("matches plain gradient ascent on the log-posterior with the default prior, and its own Hessian", () => {
    // The objective the fit maximises: sum over pairs of s log p + (n - s) log (1 - p), minus
    // theta^2 / (2 tau^2) per player (prior sd 350 rating points); anchors shift the result afterwards.
    const tau2 = (350 / SCALE) ** 2;
    const idx = new Map(players.map((p, i) => [p, i]));
    const theta = players.map(() => 0);
    const p = (i: number, j: number) => 1 / (1 + Math.exp(theta[j]! - theta[i]!));
    for (let it = 0; it < 50_000; it++) {
      const grad = theta.map((t) => -t / tau2);
      for (const c of cyclic) {
        const i = idx.get(c.a)!;
        const j = idx.get(c.b)!;
        const g = c.aScore - c.games * p(i, j);
        grad[i]! += g;
        grad[j]! -= g;
      }
      for (let i = 0; i < theta.length; i++) theta[i]! += 0.02 * grad[i]!;
    }
    const fit = fitBradleyTerry({ players, pairs: cyclic, anchors: ["A", "B"] });
    const shift = (theta[0]! + theta[1]!) / 2;
    for (const q of players)
      expect(fit.rating.get(q)!).toBeCloseTo(BASE_RATING + (theta[idx.get(q)!]! - shift) * SCALE, 3);

    // Deviations: invert the 4x4 information matrix here (Gauss-Jordan) and take the variance of each
    // rating relative to the anchors' mean.
    const n = players.length;
    const h = players.map((_, i) => players.map((__, j) => (i === j ? 1 / tau2 : 0)));
    for (const c of cyclic) {
      const i = idx.get(c.a)!;
      const j = idx.get(c.b)!;
      const w = c.games * p(i, j) * (1 - p(i, j));
      h[i]![i]! += w;
      h[j]![j]! += w;
      h[i]![j]! -= w;
      h[j]![i]! -= w;
    }
    const inv = players.map((_, i) => players.map((__, j) => (i === j ? 1 : 0)));
    for (let col = 0; col < n; col++) {
      const d = h[col]![col]!;
      for (let k = 0; k < n; k++) {
        h[col]![k]! /= d;
        inv[col]![k]! /= d;
      }
      for (let r = 0; r < n; r++) {
        if (r === col) continue;
        const f = h[r]![col]!;
        for (let k = 0; k < n; k++) {
          h[r]![k]! -= f * h[col]![k]!;
          inv[r]![k]! -= f * inv[col]![k]!;
        }
      }
    }
    // x_i - (x_A + x_B) / 2 has variance S_ii - (S_iA + S_iB) + (S_AA + 2 S_AB + S_BB) / 4.
    const s = (i: number, j: number) => inv[i]![j]!;
    for (const q of players) {
      const i = idx.get(q)!;
      const v = s(i, i) - (s(i, 0) + s(i, 1)) + (s(0, 0) + 2 * s(0, 1) + s(1, 1)) / 4;
      expect(fit.deviation.get(q)!).toBeCloseTo(Math.sqrt(Math.max(0, v)) * SCALE, 2);
    }
  });
});

/** A simulated ladder: true ratings, random pairings, results drawn from the BT model. */
function simulate(seed: number, versions: number, games: number, houses = 4) {
  const rand = prng(seed);
  const names = Array.from({ length: versions }, (_, i) => (i < houses ? `house${i}` : `v${i}`));
  const house = names.slice(0, houses);
  const raw = names.map(() => 200 * normal(rand));
  // The same gauge as the fit: the house bots' average is 1500.
  const houseMean = raw.slice(0, houses).reduce((t, r) => t + r, 0) / houses;
  const truth = new Map(names.map((n, i) => [n, 1500 + raw[i]! - houseMean]));
  const list: RatedGame[] = [];
  for (let k = 0; k < games; k++) {
    const i = Math.floor(rand() * versions);
    let j = Math.floor(rand() * (versions - 1));
    if (j >= i) j++;
    const a = names[i]!;
    const b = names[j]!;
    list.push(game(a, b, rand() < expectedScore(truth.get(a)!, truth.get(b)!) ? 1 : 0, k, house));
  }
  return { names, house, truth, games: list };
}

describe("a simulated population with known true strengths", () => {
  it("recovers the order of 40 versions, and 95 % intervals cover the truth about 95 % of the time", () => {
    let covered = 0;
    let total = 0;
    const correlations: number[] = [];
    for (let seed = 1; seed <= 10; seed++) {
      // 40 versions, 1,600 games: 80 games a version, like a ladder a few days old.
      const sim = simulate(seed, 40, 1_600);
      const fit = fitBradleyTerry({ players: sim.names, pairs: aggregate(sim.games), anchors: sim.house });
      const houseMean = sim.house.reduce((t, h) => t + fit.rating.get(h)!, 0) / sim.house.length;
      expect(houseMean).toBeCloseTo(1500, 6);
      const est = sim.names.map((n) => fit.rating.get(n)!);
      const tru = sim.names.map((n) => sim.truth.get(n)!);
      correlations.push(spearman(est, tru));
      expect(kendall(est, tru)).toBeGreaterThan(0.75);
      for (const n of sim.names) {
        total++;
        if (Math.abs(fit.rating.get(n)! - sim.truth.get(n)!) <= 1.96 * fit.deviation.get(n)!) covered++;
      }
    }
    expect(Math.min(...correlations)).toBeGreaterThan(0.9);
    const coverage = covered / total;
    // 400 intervals: a binomial 95 % has a standard deviation of about 1.1 percentage points.
    expect(coverage).toBeGreaterThan(0.9);
    expect(coverage).toBeLessThan(0.99);
  });

  it("gives deviations that track the actual error: more games, proportionally smaller", () => {
    const few = simulate(3, 30, 600);
    const many = simulate(3, 30, 6_000);
    const sd = (s: typeof few) => {
      const fit = fitBradleyTerry({ players: s.names, pairs: aggregate(s.games), anchors: s.house });
      return s.names.reduce((t, n) => t + fit.deviation.get(n)!, 0) / s.names.length;
    };
    // Ten times the games: about sqrt(10) = 3.2 times smaller deviations.
    const ratio = sd(few) / sd(many);
    expect(ratio).toBeGreaterThan(2.6);
    expect(ratio).toBeLessThan(3.6);
  });

  it("solves large ladders (conjugate gradients above 64 versions) to the optimum: the gradient vanishes", () => {
    // 300 versions: Newton steps by preconditioned CG, deviations from the diagonal (above 200). The
    // check is independent of the solver: the log-posterior's gradient, computed here, must be ~0.
    const sim = simulate(7, 300, 15_000, 6);
    const pairs = aggregate(sim.games);
    const fit = fitBradleyTerry({ players: sim.names, pairs, anchors: sim.house });
    const tau2 = (350 / SCALE) ** 2;
    // Back to the fit's own log-strengths: the anchor shift is a common constant; recover it from the
    // prior's pull, which makes the gradient's total sum(-theta) / tau2 vanish only at the right shift.
    const x = new Map(sim.names.map((n) => [n, (fit.rating.get(n)! - BASE_RATING) / SCALE]));
    const mean = [...x.values()].reduce((t, v) => t + v, 0) / sim.names.length;
    for (const [n, v] of x) x.set(n, v - mean);
    const grad = new Map(sim.names.map((n) => [n, -x.get(n)! / tau2]));
    for (const c of pairs) {
      const g = c.aScore - c.games / (1 + Math.exp(x.get(c.b)! - x.get(c.a)!));
      grad.set(c.a, grad.get(c.a)! + g);
      grad.set(c.b, grad.get(c.b)! - g);
    }
    const norm = Math.sqrt([...grad.values()].reduce((t, g) => t + g * g, 0));
    // |theta - optimum| <= tau2 |gradient|: under a hundredth of a rating point.
    expect(tau2 * norm * SCALE).toBeLessThan(0.01);
    const est = sim.names.map((n) => fit.rating.get(n)!);
    expect(
      spearman(
        est,
        sim.names.map((n) => sim.truth.get(n)!),
      ),
    ).toBeGreaterThan(0.95);
  });
});

describe("the warm-started refit", () => {
  for (const [label, versions, games] of [
    ["40 versions (direct Newton steps, full-matrix deviations)", 40, 2_000],
    ["300 versions (CG Newton steps, diagonal deviations)", 300, 12_000],
  ] as const) {
    it(`after one more game equals a from-scratch fit within 0.01 points: ${label}`, () => {
      const sim = simulate(11, versions, games + 5);
      const book = new RatingBook();
      book.load(sim.games.slice(0, games));
      for (const g of sim.games.slice(games)) {
        const before = book.get(g.a).rating;
        const r = book.record(g);
        expect(r.before[0]).toBe(before);
        const scratch = new RatingBook();
        scratch.load(sim.games.slice(0, sim.games.indexOf(g) + 1));
        let worst = 0;
        let worstDev = 0;
        for (const n of sim.names) {
          worst = Math.max(worst, Math.abs(book.get(n).rating - scratch.get(n).rating));
          worstDev = Math.max(worstDev, Math.abs(book.get(n).deviation - scratch.get(n).deviation));
          expect(book.get(n).games).toBe(scratch.get(n).games);
        }
        expect(worst).toBeLessThan(0.01);
        expect(worstDev).toBeLessThan(0.01);
        expect(r.after).toEqual([book.get(g.a).rating, book.get(g.b).rating]);
      }
    });
  }

  it("moves the winner up and the loser down, more for a surprise", () => {
    const sim = simulate(5, 20, 800);
    const book = new RatingBook();
    book.load(sim.games);
    const ranked = [...sim.names].sort((a, b) => book.get(a).rating - book.get(b).rating);
    const weak = ranked[0]!;
    const strong = ranked[ranked.length - 1]!;
    const mid = ranked[10]!;
    const upset = book.record(game(weak, strong, 1));
    const expected = book.record(game(mid, weak, 1));
    expect(upset.after[0]).toBeGreaterThan(upset.before[0]);
    expect(upset.after[1]).toBeLessThan(upset.before[1]);
    expect(upset.after[0] - upset.before[0]).toBeGreaterThan(expected.after[0] - expected.before[0]);
  });
});

describe("leaderboard_score and qualifying", () => {
  it("is round(rating - 2 * max(deviation, 25))", () => {
    expect(leaderboardScore(1600.4, 10)).toBe(1550); // the floor of 25 applies
    expect(leaderboardScore(1600, 25)).toBe(1550);
    expect(leaderboardScore(1600, 60)).toBe(1480);
    expect(leaderboardScore(1500.5, 40.1)).toBe(Math.round(1500.5 - 80.2));
    expect(leaderboardScore(1234.4, 0)).toBe(1184);
  });

  it("is what the book reports, and a version is ranked from its 30th rated game", () => {
    const book = new RatingBook();
    const a = versionKey("a", "1");
    const h = versionKey("h", "1");
    for (let i = 0; i < QUALIFYING_GAMES - 1; i++) book.record(game(a, h, i % 3 === 0 ? 0 : 1, i, [h]));
    expect(book.get(a)).toMatchObject({ games: 29, ranked: false });
    book.record(game(a, h, 0.5, 29, [h]));
    const r = book.get(a);
    expect(r).toMatchObject({ games: 30, ranked: true });
    expect(r.leaderboardScore).toBe(Math.round(r.rating - 2 * Math.max(r.deviation, 25)));
    // The house bot is the anchor: pinned at 1500.
    expect(book.get(h).rating).toBeCloseTo(1500, 6);
    // An unknown version: 1500, deviation 350, no games.
    expect(book.get("nobody@1")).toMatchObject({ rating: 1500, deviation: 350, games: 0, ranked: false });
  });
});

describe("what enters the ratings", () => {
  it("loads only ranked, non-voided results from storage: human and voided games never count", async () => {
    const dir = seededDataDir("ratings-known-");
    const store = await openStore({ dataDir: dir });
    const botStore = new BotStore(store);
    const matchStore = new MatchStore(store);
    try {
      const ann = (await botStore.createBot({ name: "ann-bot", owner: "ann", house: false })).bot;
      const bob = (await botStore.createBot({ name: "bob-bot", owner: "bob", house: false })).bot;
      const house = (await botStore.createBot({ name: "house-z", owner: "house", house: true })).bot;
      let n = 0;
      const save = (x: BotRow, y: BotRow, winner: BotRow | null, o: Partial<MatchRecord> = {}) =>
        matchStore.saveMatch({
          id: `m${++n}`,
          ladder_id: "public",
          mode: "ranked",
          seed: n,
          map: "arena-21",
          started: new Date().toISOString(),
          ended: new Date().toISOString(),
          duration_ms: 5,
          final_tick: 10,
          reason: "last_standing",
          winner_bot_id: winner?.id ?? null,
          voided: false,
          note: null,
          bots: [x, y].map((b, fighter) => ({
            fighter,
            bot_id: b.id,
            name: b.name,
            display_name: b.display_name,
            version: "v1",
            house: b.house,
            avatar: null,
            rating_before: null,
            rating_after: null,
          })),
          stats: null,
          replay_file: null,
          ...o,
        });
      // Rated: ann beats the house twice, bob draws it once.
      await save(ann, house, ann);
      await save(house, ann, ann);
      await save(bob, house, null);
      // Not rated: human games (even a win), and voided games (even with a winner recorded).
      await save(bob, house, bob, { mode: "human" });
      await save(house, bob, bob, { mode: "human" });
      await save(bob, ann, bob, { voided: true, reason: "voided" });
      await save(bob, ann, null, { voided: true, reason: "aborted" });
      // Another ladder's games are not this ladder's ratings.
      await save(bob, ann, bob, { ladder_id: "other" });
      const rows = await new RatingStore(store).ratedResults("public");
      expect(rows.map((r) => r.match_id)).toEqual(["m1", "m2", "m3"]);
      // Loaded the way the server loads them at start-up (server/app.ts).
      const book = new RatingBook();
      book.load(rows.map(ratedGame));
      const A = versionKey(ann.id, "v1");
      const B = versionKey(bob.id, "v1");
      const H = versionKey(house.id, "v1");
      expect(book.get(A).games).toBe(2);
      expect(book.get(B).games).toBe(1);
      expect(book.get(H).games).toBe(3);
      expect(book.facts(A, B).games).toBe(0);
      expect(book.facts(A, H)).toMatchObject({ games: 2, score: 2 });
      expect(book.facts(B, H)).toMatchObject({ games: 1, score: 0.5 });
      // The house bot is the anchor; ann (two wins) is above bob (a draw).
      expect(book.get(H).rating).toBeCloseTo(1500, 6);
      expect(book.get(A).rating).toBeGreaterThan(book.get(B).rating);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
