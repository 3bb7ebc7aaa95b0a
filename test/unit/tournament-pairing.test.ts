// Properties of the tournament pairing (issue 34, part 3; server/tournaments/pairing.ts), checked over random
// tournaments with fast-check: Swiss rounds never repeat a pair, keep score groups (the pairing's squared
// score differences are the least any rematch-free pairing reaches, found here by brute force, so a pair
// crosses groups only when it must), give the bye fairly (never a second bye while someone has none; null only
// when no fair pairing exists at all), and a round-robin meets every pair exactly once. Plus standings with
// their tie-breaks on a worked example.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Bye,
  EXACT_LIMIT,
  type PlayedGame,
  pairKey,
  roundRobin,
  standings,
  swissRound,
} from "../../server/tournaments/pairing.ts";

const names = (n: number) => Array.from({ length: n }, (_, i) => `p${String(i).padStart(2, "0")}`);

/** Every perfect matching of `players` with no pair in `met` (brute force, small n only). */
function* matchings(players: string[], met: ReadonlySet<string>): Generator<[string, string][]> {
  if (players.length === 0) {
    yield [];
    return;
  }
  const [first, ...rest] = players;
  for (let k = 0; k < rest.length; k++) {
    const other = rest[k]!;
    if (met.has(pairKey(first!, other))) continue;
    const remaining = rest.filter((_, i) => i !== k);
    for (const m of matchings(remaining, met)) yield [[first!, other], ...m];
  }
}

const sqCost = (pairs: [string, string][], score: ReadonlyMap<string, number>) =>
  pairs.reduce((s, [a, b]) => s + ((score.get(a) ?? 0) - (score.get(b) ?? 0)) ** 2, 0);

interface Sim {
  players: string[];
  games: PlayedGame[];
  byes: Bye[];
  met: Set<string>;
  rounds: number;
  ended: boolean;
}

/** Plays a Swiss tournament with results drawn from `outcomes`, checking each round as it is paired. */
function playSwiss(n: number, rounds: number, outcomes: number[], brute: boolean): Sim {
  const players = names(n);
  const sim: Sim = { players, games: [], byes: [], met: new Set(), rounds: 0, ended: false };
  let o = 0;
  for (let r = 1; r <= rounds; r++) {
    const table = standings(players, sim.games, sim.byes);
    const score = new Map(table.map((row) => [row.player, row.score]));
    const byeCount = new Map(table.map((row) => [row.player, row.byes]));
    const input = { ranked: table.map((row) => row.player), score, byes: byeCount, met: sim.met };
    const round = swissRound(input);
    if (round === null) {
      // Null only when no fair pairing exists: no fewest-byes player can rest with the others paired.
      if (brute) {
        const fewest = Math.min(...players.map((p) => byeCount.get(p) ?? 0));
        const candidates = n % 2 === 1 ? players.filter((p) => (byeCount.get(p) ?? 0) === fewest) : [null];
        for (const c of candidates) {
          const rest = players.filter((p) => p !== c);
          expect(matchings(rest, sim.met).next().done).toBe(true);
        }
      }
      sim.ended = true;
      break;
    }
    // Everyone once: in a pair or as the bye.
    const seen = round.pairs.flat().concat(round.bye === null ? [] : [round.bye]);
    expect([...seen].sort()).toEqual([...players].sort());
    // No rematch.
    for (const [a, b] of round.pairs) expect(sim.met.has(pairKey(a, b))).toBe(false);
    // The bye: only with an odd count, to a player with the fewest byes, and the lowest-ranked such player
    // for whom a pairing of the others exists.
    if (n % 2 === 0) expect(round.bye).toBeNull();
    else {
      const fewest = Math.min(...players.map((p) => byeCount.get(p) ?? 0));
      expect(byeCount.get(round.bye!) ?? 0).toBe(fewest);
      if (brute) {
        const ranked = input.ranked;
        for (const lower of ranked.slice(ranked.indexOf(round.bye!) + 1)) {
          if ((byeCount.get(lower) ?? 0) !== fewest) continue;
          const rest = players.filter((p) => p !== lower);
          expect(matchings(rest, sim.met).next().done, `${lower} ranks lower and could rest`).toBe(true);
        }
      }
    }
    // Score groups: no rematch-free pairing of the same players has smaller squared score differences, so
    // when one exists entirely within score groups, this one is within them too.
    if (brute) {
      const paired = round.pairs.flat();
      let least = Number.POSITIVE_INFINITY;
      for (const m of matchings(paired, sim.met)) least = Math.min(least, sqCost(m, score));
      expect(sqCost(round.pairs, score)).toBe(least);
      if (least === 0)
        for (const [a, b] of round.pairs) expect(score.get(a), `${a}-${b} cross groups`).toBe(score.get(b));
    }
    for (const [a, b] of round.pairs) {
      sim.met.add(pairKey(a, b));
      const x = outcomes[o++ % outcomes.length]!;
      const pointsA = x === 0 ? 1 : x === 1 ? 0 : 0.5;
      sim.games.push({ round: r, a, b, pointsA, pointsB: 1 - pointsA, forfeit: null });
    }
    if (round.bye !== null) sim.byes.push({ round: r, player: round.bye, points: 1 });
    sim.rounds = r;
  }
  return sim;
}

describe("Swiss pairing", () => {
  it("exact search (n <= 10): no rematch, score groups kept unless impossible, fair byes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 10 }),
        fc.integer({ min: 1, max: 9 }),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 60 }),
        (n, rounds, outcomes) => {
          playSwiss(n, Math.min(rounds, n), outcomes, true);
        },
      ),
      { numRuns: 300, seed: 34 },
    );
  });

  it("greedy search above the exact limit: no rematch, fair byes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: EXACT_LIMIT + 1, max: 31 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 80 }),
        (n, rounds, outcomes) => {
          const sim = playSwiss(n, rounds, outcomes, false);
          // With this many players a few rounds always pair.
          expect(sim.ended).toBe(false);
        },
      ),
      { numRuns: 40, seed: 35 },
    );
  });

  it("an odd field over n rounds gives every player exactly one bye", () => {
    for (const n of [3, 5, 7, 9]) {
      const sim = playSwiss(n, n, [0, 1, 2, 0, 0, 1], true);
      if (sim.ended) continue;
      const counts = new Map<string, number>();
      for (const b of sim.byes) counts.set(b.player, (counts.get(b.player) ?? 0) + 1);
      expect([...counts.values()].every((c) => c === 1)).toBe(true);
      expect(counts.size).toBe(n);
    }
  });

  it("round one pairs neighbours in entry order and the lowest-ranked rests", () => {
    const p = names(5);
    const r = swissRound({ ranked: p, score: new Map(), byes: new Map(), met: new Set() })!;
    expect(r.bye).toBe("p04");
    expect(r.pairs).toEqual([
      ["p00", "p01"],
      ["p02", "p03"],
    ]);
    // Everyone met everyone: no pairing.
    const all = new Set<string>();
    for (const a of p) for (const b of p) if (a !== b) all.add(pairKey(a, b));
    expect(swissRound({ ranked: p, score: new Map(), byes: new Map(), met: all })).toBeNull();
  });
});

describe("round-robin", () => {
  it("every pair exactly once, each player at most once a round, odd fields rest once each", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 17 }), (n) => {
        const p = names(n);
        const rounds = roundRobin(p);
        expect(rounds.length).toBe(n % 2 === 0 ? n - 1 : n);
        const count = new Map<string, number>();
        const rests = new Map<string, number>();
        for (const r of rounds) {
          const inRound = r.pairs.flat().concat(r.bye === null ? [] : [r.bye]);
          expect(new Set(inRound).size).toBe(inRound.length);
          expect(inRound.length).toBe(n);
          for (const [a, b] of r.pairs) {
            expect(a).not.toBe(b);
            count.set(pairKey(a, b), (count.get(pairKey(a, b)) ?? 0) + 1);
          }
          if (r.bye !== null) rests.set(r.bye, (rests.get(r.bye) ?? 0) + 1);
        }
        expect(count.size).toBe((n * (n - 1)) / 2);
        expect([...count.values()].every((c) => c === 1)).toBe(true);
        if (n % 2 === 1) expect([...rests.values()]).toEqual(p.map(() => 1));
        else expect(rests.size).toBe(0);
      }),
      { numRuns: 50, seed: 36 },
    );
  });
});

describe("standings", () => {
  it("score, then Buchholz, then Sonneborn-Berger, with forfeits and byes counted", () => {
    const g = (
      round: number,
      a: string,
      b: string,
      pa: number,
      pb: number,
      forfeit: PlayedGame["forfeit"] = null,
    ) => ({ round, a, b, pointsA: pa, pointsB: pb, forfeit }) satisfies PlayedGame;
    // a beats b, c and d draw; then a draws c, d beats b by forfeit (b absent); e rests twice.
    const games = [
      g(1, "a", "b", 1, 0),
      g(1, "c", "d", 0.5, 0.5),
      g(2, "a", "c", 0.5, 0.5),
      g(2, "b", "d", 0, 1, "a"),
      g(3, "a", "d", null as unknown as number, null as unknown as number),
    ];
    const byes: Bye[] = [
      { round: 1, player: "e", points: 1 },
      { round: 2, player: "e", points: 1 },
    ];
    const t = standings(["a", "b", "c", "d", "e"], games, byes);
    const row = (p: string) => t.find((r) => r.player === p)!;
    expect(row("a")).toMatchObject({ score: 1.5, wins: 1, draws: 1, losses: 0, games: 2 });
    expect(row("d")).toMatchObject({ score: 1.5, wins: 1, draws: 1, losses: 0 });
    expect(row("b")).toMatchObject({ score: 0, losses: 2, forfeits: 1 });
    expect(row("e")).toMatchObject({ score: 2, byes: 2, games: 0, buchholz: 0 });
    // a met b (0) and c (1): Buchholz 1; d met c (1) and b (0): 1. SB: a 1*0 + 0.5*1 = 0.5; d 0.5*1 + 1*0 = 0.5.
    expect(row("a").buchholz).toBe(1);
    expect(row("d").buchholz).toBe(1);
    expect(row("a").sonneborn_berger).toBe(0.5);
    // Equal on everything: entry order decides.
    expect(t.map((r) => r.player)).toEqual(["e", "a", "d", "c", "b"]);
    expect(t.map((r) => r.rank)).toEqual([1, 2, 3, 4, 5]);
    // c: met d (1.5) and a (1.5): Buchholz 3.
    expect(row("c").buchholz).toBe(3);
  });
});
