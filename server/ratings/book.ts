// The ladder's rating book: every rated result aggregated per version pair (and per map), the current
// Bradley-Terry fit over them, and the smoothed forecasts the matchmaker weighs. Rebuilt from stored
// matches at start-up, then updated and refitted (warm start) after each rated game. A version is
// `botId@label`; ratings belong to versions, never to bots.
import { MAP_NAMES } from "../../engine/rules.ts";
import { BASE_RATING, fitBradleyTerry, leaderboardScore } from "./bradley-terry.ts";

export const QUALIFYING_GAMES = 30;
const PRIOR_GAMES = 20;
const NEW_DEVIATION = 350;

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

export interface VersionRating {
  rating: number;
  deviation: number;
  leaderboardScore: number;
  games: number;
  ranked: boolean;
}

interface PairCell {
  /** The two versions, lexically smaller first (labels may hold any character, so keys are never split). */
  a: string;
  b: string;
  games: number;
  /** Score of the lexically smaller key. */
  score: number;
  maps: Map<string, { games: number; score: number }>;
}

export class RatingBook {
  private readonly pairs = new Map<string, PairCell>();
  private readonly games = new Map<string, number>();
  private readonly house = new Set<string>();
  private rating = new Map<string, number>();
  private deviation = new Map<string, number>();

  /** Loads many games at once and fits once. */
  load(games: RatedGame[]): void {
    for (const g of games) this.add(g);
    this.refit();
  }

  /** Adds one rated game, refits, and returns the two versions' ratings before and after. */
  record(g: RatedGame): { before: [number, number]; after: [number, number] } {
    const before: [number, number] = [this.get(g.a).rating, this.get(g.b).rating];
    this.add(g);
    this.refit();
    return { before, after: [this.get(g.a).rating, this.get(g.b).rating] };
  }

  get(key: string): VersionRating {
    const games = this.games.get(key) ?? 0;
    const rating = this.rating.get(key) ?? BASE_RATING;
    const deviation = this.deviation.get(key) ?? NEW_DEVIATION;
    return {
      rating,
      deviation,
      leaderboardScore: leaderboardScore(rating, deviation),
      games,
      ranked: games >= QUALIFYING_GAMES,
    };
  }

  /** Games and a's score between two versions, and the mean per-map forecast quality. */
  facts(
    a: string,
    b: string,
  ): { games: number; score: number; mapQuality: number; mapGames: Map<string, number> } {
    const cell = this.pairs.get(pairKey(a, b));
    const flip = a > b;
    if (!cell) return { games: 0, score: 0, mapQuality: 1, mapGames: new Map() };
    const score = flip ? cell.games - cell.score : cell.score;
    const expected = expectedOf(this.get(a).rating, this.get(b).rating);
    const pairP = (score + PRIOR_GAMES * expected) / (cell.games + PRIOR_GAMES);
    let quality = 0;
    const mapGames = new Map<string, number>();
    for (const map of MAP_NAMES) {
      const m = cell.maps.get(map) ?? { games: 0, score: 0 };
      const ms = flip ? m.games - m.score : m.score;
      const p = (ms + PRIOR_GAMES * pairP) / (m.games + PRIOR_GAMES);
      quality += 1 - Math.abs(2 * p - 1);
      mapGames.set(map, m.games);
    }
    return { games: cell.games, score, mapQuality: quality / MAP_NAMES.length, mapGames };
  }

  private add(g: RatedGame): void {
    const key = pairKey(g.a, g.b);
    const mine = g.a < g.b ? g.score : 1 - g.score;
    const [lo, hi] = g.a < g.b ? [g.a, g.b] : [g.b, g.a];
    const cell = this.pairs.get(key) ?? { a: lo, b: hi, games: 0, score: 0, maps: new Map() };
    cell.games++;
    cell.score += mine;
    const m = cell.maps.get(g.map) ?? { games: 0, score: 0 };
    m.games++;
    m.score += mine;
    cell.maps.set(g.map, m);
    this.pairs.set(key, cell);
    this.games.set(g.a, (this.games.get(g.a) ?? 0) + 1);
    this.games.set(g.b, (this.games.get(g.b) ?? 0) + 1);
    if (g.aHouse) this.house.add(g.a);
    if (g.bHouse) this.house.add(g.b);
  }

  private refit(): void {
    const players = [...this.games.keys()];
    const pairs = [...this.pairs.values()].map((c) => ({ a: c.a, b: c.b, games: c.games, aScore: c.score }));
    const fit = fitBradleyTerry({ players, pairs, anchors: [...this.house], warm: this.rating });
    this.rating = fit.rating;
    this.deviation = fit.deviation;
  }
}

const pairKey = (a: string, b: string) => JSON.stringify(a < b ? [a, b] : [b, a]);
const expectedOf = (ra: number, rb: number) => 1 / (1 + 10 ** ((rb - ra) / 400));
