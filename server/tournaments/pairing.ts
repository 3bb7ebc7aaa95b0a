// Tournament pairing and standings (issue 34, part 3), pure: no clock, no database, no randomness.
//
// - Round-robin by the circle method: player 0 stays, the others turn one place a round; with an odd count a
//   rest seat (null) is added, and its partner rests that round (every player rests once; a rest scores
//   nothing, as it is the same for everyone).
// - Swiss: players are ranked by the standings (score, Buchholz, Sonneborn-Berger, then entry order). With an
//   odd count the bye goes first, to the lowest-ranked player among those with the fewest byes so far for whom
//   the others can still be paired without a rematch; a bye scores as a won pairing. The rest are paired so
//   that no pair meets twice and, among the pairings that do that, the sum over pairs of the squared score
//   difference is smallest (a pair crosses score groups only when no pairing within the groups exists), then
//   the sum of rank distances (the closest ranks meet: 1-2, 3-4, ...). Up to EXACT_LIMIT players this is an
//   exact search over subsets; above it, a greedy top-down search with backtracking (no rematch and fair byes
//   still hold, score groups are then kept as far as the greedy order reaches). When no pairing without a
//   rematch exists (or the bye could only go to someone who had one while others had none), the answer is
//   null and the tournament ends after the rounds played.

/** One game of a pairing as recorded: `a` and `b` are the pairing's players; points from a's side. */
export interface PlayedGame {
  round: number;
  a: string;
  b: string;
  /** a's points: 1 a win, 0.5 a draw, 0 a loss (a forfeit too). null while not played. */
  pointsA: number | null;
  /** b's points (not always 1 - pointsA: a double forfeit gives both 0). */
  pointsB: number | null;
  /** Which side forfeited (absent at its round): "a", "b", "both", or null. */
  forfeit: "a" | "b" | "both" | null;
}

export interface Bye {
  round: number;
  player: string;
  /** Points the bye scores (Swiss: a won pairing, games per pairing; round-robin: 0). */
  points: number;
}

export interface StandingRow {
  rank: number;
  player: string;
  score: number;
  games: number;
  wins: number;
  draws: number;
  losses: number;
  forfeits: number;
  byes: number;
  /** Sum of the final scores of the opponents met, once per pairing (a bye adds nothing). */
  buchholz: number;
  /** Sum over games of the points scored in it times that opponent's final score. */
  sonneborn_berger: number;
}

export const TIE_BREAKS = ["score", "buchholz", "sonneborn_berger", "wins", "entry order"] as const;

/**
 * Standings from the recorded games and byes; `players` in entry order (the last tie-break). Games not yet
 * played (null points) are left out.
 */
export function standings(players: readonly string[], games: readonly PlayedGame[], byes: readonly Bye[]) {
  const rows = new Map<string, StandingRow>();
  for (const p of players)
    rows.set(p, {
      rank: 0,
      player: p,
      score: 0,
      games: 0,
      wins: 0,
      draws: 0,
      losses: 0,
      forfeits: 0,
      byes: 0,
      buchholz: 0,
      sonneborn_berger: 0,
    });
  const played = games.filter((g) => g.pointsA !== null && g.pointsB !== null);
  const side = (g: PlayedGame, who: "a" | "b") => {
    const r = rows.get(who === "a" ? g.a : g.b);
    if (!r) return;
    const pts = (who === "a" ? g.pointsA : g.pointsB)!;
    const other = (who === "a" ? g.pointsB : g.pointsA)!;
    r.games++;
    r.score += pts;
    if (g.forfeit === who || g.forfeit === "both") r.forfeits++;
    if (pts > other) r.wins++;
    else if (pts < other || (pts === 0 && other === 0)) r.losses++;
    else r.draws++;
  };
  for (const g of played) {
    side(g, "a");
    side(g, "b");
  }
  for (const b of byes) {
    const r = rows.get(b.player);
    if (!r) continue;
    r.byes++;
    r.score += b.points;
  }
  const met = new Set<string>();
  for (const g of played) {
    const ra = rows.get(g.a);
    const rb = rows.get(g.b);
    if (!ra || !rb) continue;
    ra.sonneborn_berger += g.pointsA! * rb.score;
    rb.sonneborn_berger += g.pointsB! * ra.score;
    const key = `${g.round}\u0000${g.a}\u0000${g.b}`;
    if (met.has(key)) continue;
    met.add(key);
    ra.buchholz += rb.score;
    rb.buchholz += ra.score;
  }
  const order = new Map(players.map((p, i) => [p, i]));
  const sorted = [...rows.values()].sort(
    (x, y) =>
      y.score - x.score ||
      y.buchholz - x.buchholz ||
      y.sonneborn_berger - x.sonneborn_berger ||
      y.wins - x.wins ||
      order.get(x.player)! - order.get(y.player)!,
  );
  sorted.forEach((r, i) => {
    r.rank = i + 1;
  });
  return sorted;
}

/** The pairs of one round; `bye` is the player without an opponent (null when none). */
export interface RoundPairing {
  pairs: [string, string][];
  bye: string | null;
}

/** Every round of a round-robin by the circle method: n - 1 rounds (n even) or n rounds (n odd). */
export function roundRobin(players: readonly string[]): RoundPairing[] {
  const seats: (string | null)[] = [...players];
  if (seats.length % 2 === 1) seats.push(null);
  const n = seats.length;
  const rounds: RoundPairing[] = [];
  for (let r = 0; r < n - 1; r++) {
    const pairs: [string, string][] = [];
    let bye: string | null = null;
    for (let i = 0; i < n / 2; i++) {
      const x = seats[i]!;
      const y = seats[n - 1 - i]!;
      if (x === null) bye = y;
      else if (y === null) bye = x;
      // Alternate which side is listed first, so the first player is not always "a".
      else pairs.push(r % 2 === 0 || i > 0 ? [x, y] : [y, x]);
    }
    rounds.push({ pairs, bye });
    // Turn every seat but the first one place.
    seats.splice(1, 0, seats.pop()!);
  }
  return rounds;
}

/** What a Swiss round is paired from: the players ranked (best first), their scores, byes, and past meetings. */
export interface SwissInput {
  /** Players in standings order, best first. */
  ranked: readonly string[];
  score: ReadonlyMap<string, number>;
  byes: ReadonlyMap<string, number>;
  /** Pairs that already met, in either order. */
  met: ReadonlySet<string>;
}

export const pairKey = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

/** Players paired exactly (over every subset) up to this many; a greedy search with backtracking above. */
export const EXACT_LIMIT = 16;

/** The next Swiss round, or null when no pairing without a rematch (and with a fair bye) exists. */
export function swissRound(input: SwissInput): RoundPairing | null {
  const ranked = [...input.ranked];
  if (ranked.length % 2 === 1) {
    const fewest = Math.min(...ranked.map((p) => input.byes.get(p) ?? 0));
    let found: RoundPairing | null = null;
    // The lowest-ranked player with the fewest byes for whom the others can be paired.
    for (let i = ranked.length - 1; i >= 0 && !found; i--) {
      const p = ranked[i]!;
      if ((input.byes.get(p) ?? 0) !== fewest) continue;
      const others = ranked.filter((q) => q !== p);
      const pairs = pairWithoutRematch(others, input);
      if (pairs) found = { pairs, bye: p };
    }
    return found;
  }
  if (ranked.length === 0) return { pairs: [], bye: null };
  const pairs = pairWithoutRematch(ranked, input);
  return pairs ? { pairs, bye: null } : null;
}

/** The cost of pairing two players: the squared score difference first, then their distance in rank. */
function pairCost(input: SwissInput, players: readonly string[], i: number, j: number): number {
  const d = (input.score.get(players[i]!) ?? 0) - (input.score.get(players[j]!) ?? 0);
  return d * d * 1_000_000 + Math.abs(i - j);
}

function pairWithoutRematch(players: readonly string[], input: SwissInput): [string, string][] | null {
  return players.length <= EXACT_LIMIT ? exactPairs(players, input) : greedyPairs(players, input);
}

/** The pairing of least total cost with no rematch, by a search over subsets (memoised on the unpaired set). */
function exactPairs(players: readonly string[], input: SwissInput): [string, string][] | null {
  const n = players.length;
  const full = (1 << n) - 1;
  const best = new Float64Array(1 << n).fill(Number.NaN);
  const choice = new Int8Array(1 << n).fill(-1);
  const solve = (mask: number): number => {
    if (mask === full) return 0;
    if (!Number.isNaN(best[mask]!)) return best[mask]!;
    let i = 0;
    while (mask & (1 << i)) i++;
    let min = Number.POSITIVE_INFINITY;
    let pick = -1;
    for (let j = i + 1; j < n; j++) {
      if (mask & (1 << j)) continue;
      if (input.met.has(pairKey(players[i]!, players[j]!))) continue;
      const c = pairCost(input, players, i, j) + solve(mask | (1 << i) | (1 << j));
      if (c < min) {
        min = c;
        pick = j;
      }
    }
    best[mask] = min;
    choice[mask] = pick;
    return min;
  };
  if (!Number.isFinite(solve(0))) return null;
  const pairs: [string, string][] = [];
  let mask = 0;
  while (mask !== full) {
    let i = 0;
    while (mask & (1 << i)) i++;
    const j = choice[mask]!;
    pairs.push([players[i]!, players[j]!]);
    mask |= (1 << i) | (1 << j);
  }
  return pairs;
}

/** Top-down: the best-ranked unpaired player meets the nearest-cost opponent it has not met, backtracking. */
function greedyPairs(players: readonly string[], input: SwissInput): [string, string][] | null {
  const n = players.length;
  const used = new Array<boolean>(n).fill(false);
  const out: [string, string][] = [];
  let steps = 0;
  const go = (): boolean => {
    if (++steps > 200_000) return false;
    const i = used.indexOf(false);
    if (i < 0) return true;
    used[i] = true;
    const options: number[] = [];
    for (let j = i + 1; j < n; j++)
      if (!used[j] && !input.met.has(pairKey(players[i]!, players[j]!))) options.push(j);
    options.sort((x, y) => pairCost(input, players, i, x) - pairCost(input, players, i, y));
    for (const j of options) {
      used[j] = true;
      out.push([players[i]!, players[j]!]);
      if (go()) return true;
      out.pop();
      used[j] = false;
    }
    used[i] = false;
    return false;
  };
  return go() ? out : null;
}
