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
import type { RatedResultRow } from "./rating-store.ts";

export const QUALIFYING_GAMES = 30;
const PRIOR_GAMES = 20;
const NEW_DEVIATION = 350;
const TESTED_GAMES = 3;
const MAP_INDEX = new Map(MAP_NAMES.map((m, k) => [m, k]));

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

interface PairCell {
  /** The two versions, lexically smaller first (labels may hold any character, so keys are never split). */
  a: string;
  b: string;
  games: number;
  /** Score of the lexically smaller key. */
  score: number;
  /**
   * Per configured map (MAP_NAMES order): games, then the smaller key's score, interleaved. A plain array:
   * a ladder holds tens of thousands of pairs, and a Map each weighed on the heap and on every lookup.
   */
  maps: number[];
  /** This pair's slot in the flat arrays handed to the fit. */
  slot: number;
}

export class RatingBook {
  /** Pair cells by version then opponent, both ways round (no composite string keys to build). */
  private readonly cells = new Map<string, Map<string, PairCell>>();
  /** The same for pairs with at least TESTED_GAMES games: few, and the only ones whose history the
   * matchmaker must find across a long queue (contradicting or established pairs). */
  private readonly tested = new Map<string, Map<string, PairCell>>();
  /** Version key to its index in the arrays below, in order of first appearance. */
  private readonly index = new Map<string, number>();
  private games = new Int32Array(64);
  private readonly house: number[] = [];
  private readonly houseSet = new Set<number>();
  /** The fit's input, grown by doubling: pair p is versions pi[p] and pj[p], pn[p] games, ps[p] score of pi. */
  private pairCount = 0;
  /** The pair cells by slot. */
  private readonly bySlot: PairCell[] = [];
  private pi = new Int32Array(256);
  private pj = new Int32Array(256);
  private pn = new Float64Array(256);
  private ps = new Float64Array(256);
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
    const row = (minGames >= TESTED_GAMES ? this.tested : this.cells).get(key);
    if (!row) return;
    for (const [other, cell] of row) if (cell.games >= minGames && cell.games <= maxGames) yield other;
  }

  /** Games and a's score between two versions, and the mean per-map forecast quality. */
  facts(a: string, b: string): PairFactsOfBook {
    const cell = this.cells.get(a)?.get(b);
    if (!cell) return { games: 0, score: 0, mapQuality: 1, mapGames: NO_MAP_GAMES };
    const flip = a > b;
    const score = flip ? cell.games - cell.score : cell.score;
    const expected = expectedOf(this.ratingOf(a), this.ratingOf(b));
    const pairP = (score + PRIOR_GAMES * expected) / (cell.games + PRIOR_GAMES);
    let quality = 0;
    const mapGames = new Map<string, number>();
    MAP_NAMES.forEach((map, k) => {
      const games = cell.maps[2 * k]!;
      const mine = cell.maps[2 * k + 1]!;
      const ms = flip ? games - mine : mine;
      const p = (ms + PRIOR_GAMES * pairP) / (games + PRIOR_GAMES);
      quality += 1 - Math.abs(2 * p - 1);
      mapGames.set(map, games);
    });
    return { games: cell.games, score, mapQuality: quality / MAP_NAMES.length, mapGames };
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
    for (const cell of this.bySlot)
      pairs.push(this.index.get(cell.a)!, this.index.get(cell.b)!, cell.games, cell.score, ...cell.maps);
    return JSON.stringify({
      format: SNAPSHOT_FORMAT,
      maps: MAP_NAMES,
      versions: [...this.index.keys()],
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
    const width = 4 + 2 * MAP_NAMES.length;
    for (let at = 0; at < s.pairs.length; at += width) {
      const [ia, ib, games, score] = s.pairs.slice(at, at + 4) as [number, number, number, number];
      const maps = s.pairs.slice(at + 4, at + width);
      const a = s.versions[ia]!;
      const b = s.versions[ib]!;
      const cell = this.newCell(a, b, ia, ib);
      cell.games = games;
      cell.score = score;
      cell.maps = maps;
      this.pn[cell.slot] = games;
      this.ps[cell.slot] = score;
      if (games >= TESTED_GAMES) {
        this.row(this.tested, a).set(b, cell);
        this.row(this.tested, b).set(a, cell);
      }
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

  private row(index: Map<string, Map<string, PairCell>>, key: string): Map<string, PairCell> {
    const row = index.get(key);
    if (row) return row;
    const fresh = new Map<string, PairCell>();
    index.set(key, fresh);
    return fresh;
  }

  private add(g: RatedGame): void {
    // A version cannot play itself (same owner); such a record would only distort the fit.
    if (g.a === g.b) return;
    const ia = this.versionIndex(g.a, g.aHouse);
    const ib = this.versionIndex(g.b, g.bHouse);
    const mine = g.a < g.b ? g.score : 1 - g.score;
    const [lo, hi] = g.a < g.b ? [g.a, g.b] : [g.b, g.a];
    const cell =
      this.cells.get(lo)?.get(hi) ??
      (g.a < g.b ? this.newCell(lo, hi, ia, ib) : this.newCell(lo, hi, ib, ia));
    cell.games++;
    if (cell.games === TESTED_GAMES) {
      this.row(this.tested, lo).set(hi, cell);
      this.row(this.tested, hi).set(lo, cell);
    }
    cell.score += mine;
    this.pn[cell.slot]! += 1;
    this.ps[cell.slot]! += mine;
    // A map that is not configured (any more) counts for the pair, not per map: forecasts weigh only the
    // configured maps.
    const k = MAP_INDEX.get(g.map);
    if (k !== undefined) {
      cell.maps[2 * k]! += 1;
      cell.maps[2 * k + 1]! += mine;
    }
    this.games[ia]! += 1;
    this.games[ib]! += 1;
  }

  /** A new pair cell (lo lexically before hi, ilo and ihi their indices) with its slot in the fit's arrays. */
  private newCell(lo: string, hi: string, ilo: number, ihi: number): PairCell {
    const slot = this.pairCount++;
    if (slot >= this.pi.length) {
      this.pi = grow(this.pi, 2 * slot);
      this.pj = grow(this.pj, 2 * slot);
      this.pn = grow(this.pn, 2 * slot);
      this.ps = grow(this.ps, 2 * slot);
    }
    this.pi[slot] = ilo;
    this.pj[slot] = ihi;
    const cell = { a: lo, b: hi, games: 0, score: 0, maps: new Array(2 * MAP_NAMES.length).fill(0), slot };
    this.row(this.cells, lo).set(hi, cell);
    this.row(this.cells, hi).set(lo, cell);
    this.bySlot.push(cell);
    return cell;
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

function grow<T extends Int32Array | Float64Array>(a: T, size: number): T {
  const b = new (a.constructor as new (n: number) => T)(size);
  b.set(a);
  return b;
}

const expectedOf = (ra: number, rb: number) => 1 / (1 + 10 ** ((rb - ra) / 400));
