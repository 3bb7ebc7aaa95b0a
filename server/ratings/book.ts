// The ladder's rating book: every rated result aggregated per version pair (and per map), the current
// Bradley-Terry fit over them, and the smoothed forecasts the matchmaker weighs. Rebuilt from stored
// matches at start-up, then updated and refitted (warm start) after each rated game. A version is
// `botId@label`; ratings belong to versions, never to bots.
//
// The fit's inputs are kept as flat typed arrays that grow in place (a version index, and per pair the
// two indices, games and score), and the fit's own log-strengths are kept for the warm start: a refit
// after one game touches one array slot and rebuilds nothing, which matters at thousands of versions and
// tens of thousands of pairs (issue 4: under 20 ms with 2,000 versions and 100,000 games).
import { MAP_NAMES } from "../../engine/rules.ts";
import type { MatchRecord } from "../store/types.ts";
import {
  BASE_RATING,
  fitIndexed,
  type IndexedFit,
  leaderboardScore,
  type PairArrays,
} from "./bradley-terry.ts";
import { PairLists, PairTable } from "./pair-table.ts";
import type { RatedResultRow } from "./rating-store.ts";

export const QUALIFYING_GAMES = 30;
const PRIOR_GAMES = 20;
const NEW_DEVIATION = 350;
const TESTED_GAMES = 3;
const MAP_INDEX = new Map(MAP_NAMES.map((m, k) => [m, k]));
/** Per pair, per configured map: its games and the lo version's score. */
const MAP_WIDTH = 2 * MAP_NAMES.length;

/** Bumped whenever the snapshot's shape changes: an older snapshot is then stale and the book refits in full. */
const SNAPSHOT_FORMAT = 1;

interface SnapshotShape {
  format: number;
  maps: string[];
  versions: string[];
  house: number[];
  theta: number[];
  /** Per pair: both indices (lexically smaller key first), games, the smaller key's score, the per-map counts. */
  pairs: number[];
}

export const versionKey = (botId: string, label: string) => `${botId}@${label}`;

export interface RatedGame {
  a: string;
  b: string;
  /** a's score: 1 win, 0.5 draw, 0 loss. */
  score: number;
  map: string;
  aHouse: boolean;
  bHouse: boolean;
}

/** A stored rated result as the book records it: fighter 0's version against fighter 1's. */
export function ratedGame(r: RatedResultRow): RatedGame {
  return {
    a: versionKey(r.bots[0].bot_id, r.bots[0].version),
    b: versionKey(r.bots[1].bot_id, r.bots[1].version),
    score: r.winner === null ? 0.5 : r.winner === r.bots[0].bot_id ? 1 : 0,
    map: r.map,
    aHouse: r.bots[0].house,
    bHouse: r.bots[1].house,
  };
}

/** A finished match's record as a rated result row (the caller checks that it is rated). */
export function ratedRow(m: MatchRecord): RatedResultRow {
  const side = (i: number) => ({
    bot_id: m.bots[i]!.bot_id,
    version: m.bots[i]!.version,
    house: m.bots[i]!.house,
  });
  return { match_id: m.id, map: m.map, winner: m.winner_bot_id, bots: [side(0), side(1)] };
}

export interface VersionRating {
  rating: number;
  deviation: number;
  leaderboardScore: number;
  games: number;
  ranked: boolean;
}

export interface PairFactsOfBook {
  games: number;
  score: number;
  mapQuality: number;
  mapGames: ReadonlyMap<string, number>;
}

/** The map counts of a pair that never met: shared, since the matchmaker asks about many such pairs. */
const NO_MAP_GAMES: ReadonlyMap<string, number> = new Map();

export class RatingBook {
  /**
   * The pairs, each in one slot of the flat arrays below (the fit's input, grown by doubling): pair p is versions
   * pi[p] (the lexically smaller key) and pj[p], pn[p] games, ps[p] pi's score, and per configured map (MAP_NAMES
   * order) its games and pi's score at pm[p * MAP_WIDTH + 2k] and + 1. Typed arrays, not an object per pair: a
   * ladder of a million games holds close to a million pairs (docs/performance-reads.md).
   */
  private readonly pairs = new PairTable();
  /** Every version's pairs, and its pairs of at least TESTED_GAMES games: few, and the only ones whose history
   * the matchmaker must find across a long queue (contradicting or established pairs). */
  private readonly met = new PairLists();
  private readonly tested = new PairLists();
  /** Version key to its index in the arrays below, in order of first appearance, and back. */
  private readonly index = new Map<string, number>();
  private readonly keys: string[] = [];
  private games = new Int32Array(64);
  private readonly house: number[] = [];
  private readonly houseSet = new Set<number>();
  private pairCount = 0;
  private pi = new Int32Array(256);
  private pj = new Int32Array(256);
  private pn = new Float64Array(256);
  private ps = new Float64Array(256);
  /** Single precision is exact here: counts and half-point scores below 2^23 games a pair. */
  private pm = new Float32Array(256 * MAP_WIDTH);
  /** Log-strengths of the last fit (before the anchor shift), the next fit's warm start. */
  private theta = new Float64Array(64);
  /** The last fit (ratings, and deviations computed on first read), by index; versions added since are
   * not in it yet. */
  private fit: IndexedFit = {
    rating: new Float64Array(0),
    deviation: new Float64Array(0),
    covariance: () => null,
    iterations: 0,
    cgIterations: 0,
  };

  /** Loads many games at once and fits once. */
  load(games: RatedGame[]): void {
    for (const g of games) this.add(g);
    this.refit();
  }

  /** Adds one rated game, refits, and returns the two versions' ratings before and after. */
  record(g: RatedGame): { before: [number, number]; after: [number, number] } {
    const before: [number, number] = [this.ratingOf(g.a), this.ratingOf(g.b)];
    this.add(g);
    this.refit();
    return { before, after: [this.ratingOf(g.a), this.ratingOf(g.b)] };
  }

  /**
   * Another object after every fit (a result recorded, a load): what is derived from the ratings may be kept
   * by it (server/kernel/kept.ts) and made again when it changes.
   */
  get stamp(): object {
    return this.fit;
  }

  get(key: string): VersionRating {
    const i = this.index.get(key);
    const games = i === undefined ? 0 : this.games[i]!;
    const fitted = i !== undefined && i < this.fit.rating.length;
    const rating = fitted ? this.fit.rating[i]! : BASE_RATING;
    const deviation = fitted ? this.fit.deviation[i]! : NEW_DEVIATION;
    return {
      rating,
      deviation,
      leaderboardScore: leaderboardScore(rating, deviation),
      games,
      ranked: games >= QUALIFYING_GAMES,
    };
  }

  /** Versions `key` has rated games against, at least `minGames` and at most `maxGames` of them. */
  *opponents(key: string, minGames = 1, maxGames = Infinity): Iterable<string> {
    const v = this.index.get(key);
    if (v === undefined) return;
    for (const p of (minGames >= TESTED_GAMES ? this.tested : this.met).of(v)) {
      const games = this.pn[p]!;
      if (games >= minGames && games <= maxGames)
        yield this.keys[this.pi[p] === v ? this.pj[p]! : this.pi[p]!]!;
    }
  }

  /** The slot of the pair of versions `a` and `b`, or -1 when they never met. */
  private slotOf(a: string, b: string): number {
    const ia = this.index.get(a);
    const ib = ia === undefined ? undefined : this.index.get(b);
    if (ia === undefined || ib === undefined) return -1;
    return a < b ? this.pairs.get(ia, ib) : this.pairs.get(ib, ia);
  }

  /** Games and a's score between two versions, and the mean per-map forecast quality. */
  facts(a: string, b: string): PairFactsOfBook {
    const p = this.slotOf(a, b);
    if (p < 0) return { games: 0, score: 0, mapQuality: 1, mapGames: NO_MAP_GAMES };
    const games = this.pn[p]!;
    const flip = a > b;
    const score = flip ? games - this.ps[p]! : this.ps[p]!;
    const expected = expectedOf(this.ratingOf(a), this.ratingOf(b));
    const pairP = (score + PRIOR_GAMES * expected) / (games + PRIOR_GAMES);
    let quality = 0;
    const mapGames = new Map<string, number>();
    const at = p * MAP_WIDTH;
    MAP_NAMES.forEach((map, k) => {
      const onMap = this.pm[at + 2 * k]!;
      const mine = this.pm[at + 2 * k + 1]!;
      const ms = flip ? onMap - mine : mine;
      const q = (ms + PRIOR_GAMES * pairP) / (onMap + PRIOR_GAMES);
      quality += 1 - Math.abs(2 * q - 1);
      mapGames.set(map, onMap);
    });
    return { games, score, mapQuality: quality / MAP_NAMES.length, mapGames };
  }

  /** A version's rating alone (no deviation, which costs a computation after each refit). */
  ratingOf(key: string): number {
    const i = this.index.get(key);
    return i !== undefined && i < this.fit.rating.length ? this.fit.rating[i]! : BASE_RATING;
  }

  /**
   * The covariance of these versions' ratings (row-major, rating points squared; its diagonal is their
   * deviations squared), or null when the fit keeps only deviations (above its full-matrix limit) or a
   * version is not in the last fit. For rank and win-probability intervals (server/insight).
   */
  covariance(keys: readonly string[]): Float64Array | null {
    const at: number[] = [];
    for (const key of keys) {
      const i = this.index.get(key);
      if (i === undefined || i >= this.fit.rating.length) return null;
      at.push(i);
    }
    return this.fit.covariance(at);
  }

  /**
   * The book as one JSON string: versions in index order, house versions, each pair's games, score and per-map
   * counts, and the fit's log-strengths (the next fit's warm start). `restore` on a fresh book gives back the
   * same aggregates exactly; the ratings then come from a fit warm-started at the saved strengths, which
   * converges to the same optimum as a cold fit (within the fit's tolerance, under 0.002 rating points).
   */
  snapshot(): string {
    const n = this.index.size;
    const pairs: number[] = [];
    // In slot order, so that the restored book hands the fit the same arrays in the same order.
    for (let p = 0; p < this.pairCount; p++) {
      pairs.push(this.pi[p]!, this.pj[p]!, this.pn[p]!, this.ps[p]!);
      for (let m = p * MAP_WIDTH; m < (p + 1) * MAP_WIDTH; m++) pairs.push(this.pm[m]!);
    }
    return JSON.stringify({
      format: SNAPSHOT_FORMAT,
      maps: MAP_NAMES,
      versions: this.keys,
      house: this.house,
      theta: Array.from(this.theta.subarray(0, n)),
      pairs,
    });
  }

  /**
   * Loads a snapshot into this fresh book without fitting (the next `load` or `record` fits, warm). False, and
   * the book left empty, when the snapshot is of another format or another map list.
   */
  restore(text: string): boolean {
    if (this.index.size > 0) throw new Error("restore needs an empty rating book");
    let s: SnapshotShape;
    try {
      s = JSON.parse(text) as SnapshotShape;
    } catch {
      return false;
    }
    if (s.format !== SNAPSHOT_FORMAT || s.maps.join("\n") !== MAP_NAMES.join("\n")) return false;
    const houseSet = new Set(s.house);
    for (const [i, key] of s.versions.entries()) this.versionIndex(key, houseSet.has(i));
    this.theta.set(s.theta);
    const width = 4 + MAP_WIDTH;
    for (let at = 0; at < s.pairs.length; at += width) {
      const [ia, ib, games, score] = s.pairs.slice(at, at + 4) as [number, number, number, number];
      const p = this.newPair(ia, ib);
      this.pn[p] = games;
      this.ps[p] = score;
      for (let m = 0; m < MAP_WIDTH; m++) this.pm[p * MAP_WIDTH + m] = s.pairs[at + 4 + m]!;
      if (games >= TESTED_GAMES) this.tested.append(p, ia, ib);
      this.games[ia]! += games;
      this.games[ib]! += games;
    }
    return true;
  }

  /** A version's rated games. */
  gamesOf(key: string): number {
    const i = this.index.get(key);
    return i === undefined ? 0 : this.games[i]!;
  }

  private versionIndex(key: string, house: boolean): number {
    let i = this.index.get(key);
    if (i === undefined) {
      i = this.index.size;
      this.index.set(key, i);
      this.keys.push(key);
      if (i >= this.games.length) {
        this.games = grow(this.games, 2 * i);
        this.theta = grow(this.theta, 2 * i);
      }
    }
    if (house && !this.houseSet.has(i)) {
      this.houseSet.add(i);
      this.house.push(i);
    }
    return i;
  }

  private add(g: RatedGame): void {
    // A version cannot play itself (same owner); such a record would only distort the fit.
    if (g.a === g.b) return;
    const ia = this.versionIndex(g.a, g.aHouse);
    const ib = this.versionIndex(g.b, g.bHouse);
    const mine = g.a < g.b ? g.score : 1 - g.score;
    const [lo, hi] = g.a < g.b ? [ia, ib] : [ib, ia];
    let p = this.pairs.get(lo, hi);
    if (p < 0) p = this.newPair(lo, hi);
    this.pn[p]! += 1;
    this.ps[p]! += mine;
    if (this.pn[p] === TESTED_GAMES) this.tested.append(p, lo, hi);
    // A map that is not configured (any more) counts for the pair, not per map: forecasts weigh only the
    // configured maps.
    const k = MAP_INDEX.get(g.map);
    if (k !== undefined) {
      this.pm[p * MAP_WIDTH + 2 * k]! += 1;
      this.pm[p * MAP_WIDTH + 2 * k + 1]! += mine;
    }
    this.games[ia]! += 1;
    this.games[ib]! += 1;
  }

  /** A new pair (lo's key lexically before hi's), with no games yet: its slot in the flat arrays. */
  private newPair(lo: number, hi: number): number {
    const p = this.pairCount++;
    if (p >= this.pi.length) {
      this.pi = grow(this.pi, 2 * p);
      this.pj = grow(this.pj, 2 * p);
      this.pn = grow(this.pn, 2 * p);
      this.ps = grow(this.ps, 2 * p);
      this.pm = grow(this.pm, 2 * p * MAP_WIDTH);
    }
    this.pi[p] = lo;
    this.pj[p] = hi;
    this.pairs.add(lo, hi, p);
    this.met.append(p, lo, hi);
    return p;
  }

  private refit(): void {
    const n = this.index.size;
    // Views, not copies: the fit reads the live arrays and updates theta in place (the next warm start).
    const pairs: PairArrays = {
      count: this.pairCount,
      i: this.pi.subarray(0, this.pairCount),
      j: this.pj.subarray(0, this.pairCount),
      n: this.pn.subarray(0, this.pairCount),
      s: this.ps.subarray(0, this.pairCount),
    };
    this.fit = fitIndexed(n, pairs, this.theta.subarray(0, n), this.house);
  }
}

function grow<T extends Int32Array | Float32Array | Float64Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}

const expectedOf = (ra: number, rb: number) => 1 / (1 + 10 ** ((rb - ra) / 400));
