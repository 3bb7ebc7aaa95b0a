// The settlement's choice of pairs (issue 34, part 4): rank neighbours of the top K only, the pair whose 95 % rank
// intervals share the most ranks first. Pure functions, apart from the clock (clock.ts) that starts the games, so
// the rule can be tested on its own (test/unit/settlement-pairs.test.ts).

/** The key of a pair of bot names, the same in either order (`a\tb`, names sorted). */
export const pairKey = (a: string, b: string) => (a < b ? `${a}\t${b}` : `${b}\t${a}`);

/** How many ranks two 95 % rank intervals share (0 when either is unknown or they are disjoint). */
export function overlap(
  a: { low: number; high: number } | null,
  b: { low: number; high: number } | null,
): number {
  if (!a || !b) return 0;
  return Math.max(0, Math.min(a.high, b.high) - Math.max(a.low, b.low) + 1);
}

/**
 * The settlement's candidate pairs, best first: each two rank neighbours of `order` (the top K in the current
 * leaderboard order), the pair whose rank intervals share the most ranks first, then the pair with the fewest
 * settlement games together, then the higher ranked.
 */
export function neighbourPairs<R extends { name: string; rank: number }>(
  order: readonly R[],
  interval: (r: R) => { low: number; high: number } | null,
  gamesOf: (a: string, b: string) => number,
): { a: R; b: R; overlap: number; games: number }[] {
  return order
    .slice(1)
    .map((b, i) => {
      const a = order[i]!;
      return { a, b, overlap: overlap(interval(a), interval(b)), games: gamesOf(a.name, b.name) };
    })
    .sort((x, y) => y.overlap - x.overlap || x.games - y.games || x.a.rank - y.a.rank);
}
