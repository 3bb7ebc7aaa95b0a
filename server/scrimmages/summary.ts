// The summary of a batch test: wins, losses, draws and the score with a 95 % interval, over all games, per
// opponent and per map. The score counts a win 1 and a draw 1/2 over the games that counted (a voided game
// counts for neither side). The interval is the Wilson score interval at z = 1.96 on that score: unlike the
// normal approximation it stays inside [0, 1] and is not zero-width at 0 or 1 wins out of a few games.
import type { GameResult } from "./store.ts";

export const Z95 = 1.959963984540054;

export interface Tally {
  games: number;
  wins: number;
  losses: number;
  draws: number;
  voided: number;
  /** (wins + draws / 2) / counted games; null before any counted game. */
  score: number | null;
  /** The Wilson interval of the score at 95 %; null before any counted game. */
  low: number | null;
  high: number | null;
}

/** The Wilson score interval of a proportion `p` over `n` trials. */
export function wilson(p: number, n: number, z = Z95): { low: number; high: number } {
  if (n <= 0) return { low: 0, high: 1 };
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

export function tally(results: readonly GameResult[]): Tally {
  let wins = 0;
  let losses = 0;
  let draws = 0;
  let voided = 0;
  for (const r of results) {
    if (r === "win") wins++;
    else if (r === "loss") losses++;
    else if (r === "draw") draws++;
    else voided++;
  }
  const counted = wins + losses + draws;
  if (counted === 0)
    return { games: results.length, wins, losses, draws, voided, score: null, low: null, high: null };
  const score = (wins + draws / 2) / counted;
  const { low, high } = wilson(score, counted);
  return {
    games: results.length,
    wins,
    losses,
    draws,
    voided,
    score: round4(score),
    low: round4(low),
    high: round4(high),
  };
}

/** Tallies of finished games grouped by a key (opponent name, map), in the order keys first appear. */
export function tallyBy<T>(
  games: readonly T[],
  key: (g: T) => string,
  result: (g: T) => GameResult,
): Record<string, Tally> {
  const groups = new Map<string, GameResult[]>();
  for (const g of games) {
    const k = key(g);
    const list = groups.get(k) ?? [];
    list.push(result(g));
    groups.set(k, list);
  }
  return Object.fromEntries([...groups].map(([k, rs]) => [k, tally(rs)]));
}
