// SPEC 1.2's pairing rules at each number it states: the rating window (400, 20 per second of the shorter
// wait, 1200 cap), the established matchup (20 games, 25-75 %, map quality 0.5), priority after 60 s, the
// 10 s rematch hold, discovery's preference for the least-tested pair, and each weight term (waiting, fewer
// recent games, settling new versions, under-tested). Choices between equal alternatives are checked in
// every candidate order, so that a rule cannot pass on the order the candidates happen to arrive in.
import { describe, expect, it } from "vitest";
import {
  type Candidate,
  choosePairs,
  contradicts,
  DENSE_LIMIT,
  type PairFacts,
  type Pairing,
  type PairingInput,
  ratingWindow,
  smoothedForecast,
} from "../../server/matchmaker/pairing.ts";
import { expectedScore } from "../../server/ratings/bradley-terry.ts";

const cand = (id: string, rating: number, over: Partial<Candidate> = {}): Candidate => ({
  id,
  owner: `owner-${id}`,
  house: false,
  rating,
  ratedGames: 50,
  waitedMs: 0,
  recentGames: 0,
  ...over,
});

/** `games` games between a and b that went exactly as their ratings predict. */
const asRated = (a: Candidate, b: Candidate, games = 40): PairFacts => ({
  games,
  score: games * expectedScore(a.rating, b.rating),
  mapQuality: 1,
  lastMetAt: null,
});

/** Facts by unordered pair of ids ("a-b"), as rated over 40 games for any pair not listed. */
const factsBy =
  (special: Record<string, (a: Candidate, b: Candidate) => PairFacts>) =>
  (a: Candidate, b: Candidate): PairFacts => {
    const key = [a.id, b.id].sort().join("-");
    return special[key]?.(a, b) ?? asRated(a, b);
  };

const key = (p: Pairing) => `${[p.a.id, p.b.id].sort().join("-")}:${p.kind}`;
const run = (input: Partial<PairingInput> & Pick<PairingInput, "candidates">) =>
  choosePairs({ now: 0, facts: (a, b) => asRated(a, b), discoveryDue: false, ...input });
const chosen = (input: Partial<PairingInput> & Pick<PairingInput, "candidates">) =>
  run(input).map(key).sort();

function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) =>
    permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]),
  );
}

/** The same choice whatever order the candidates arrive in. */
function inEveryOrder(
  candidates: readonly Candidate[],
  input: Partial<PairingInput>,
  expected: string[],
): void {
  for (const order of permutations(candidates)) {
    expect(chosen({ ...input, candidates: order }), order.map((c) => c.id).join(",")).toEqual(expected);
  }
}

describe("the rating window (SPEC 1.2 rule 4)", () => {
  it("is 400 at no wait: a gap of 400 pairs, 401 does not", () => {
    expect(chosen({ candidates: [cand("a", 1000), cand("b", 1400)] })).toEqual(["a-b:competitive"]);
    expect(chosen({ candidates: [cand("a", 1000), cand("b", 1401)] })).toEqual([]);
  });

  it("widens by 20 per second of the shorter wait", () => {
    const a = cand("a", 1000, { waitedMs: 10_000 });
    const b = (rating: number) => cand("b", rating, { waitedMs: 25_000 });
    expect(ratingWindow(a, b(0))).toBe(600);
    expect(ratingWindow(b(0), a)).toBe(600);
    expect(chosen({ candidates: [a, b(1600)] })).toEqual(["a-b:competitive"]);
    expect(chosen({ candidates: [a, b(1601)] })).toEqual([]);
  });

  it("counts a house bot's wait as its partner's (a house bot is always there)", () => {
    const house = cand("h", 1600, { house: true, waitedMs: 0 });
    const player = cand("p", 1000, { waitedMs: 10_000 });
    expect(ratingWindow(house, player)).toBe(600);
    expect(ratingWindow(player, house)).toBe(600);
    expect(ratingWindow({ ...house, waitedMs: 50_000 }, player)).toBe(600);
    expect(chosen({ candidates: [house, player] })).toEqual(["h-p:competitive"]);
    expect(chosen({ candidates: [{ ...house, rating: 1601 }, player] })).toEqual([]);
  });

  it("is capped at 1200: a gap of 1200 pairs after a long wait, 1201 never does", () => {
    const a = cand("a", 1000, { waitedMs: 100_000 });
    const b = (rating: number) => cand("b", rating, { waitedMs: 100_000 });
    expect(ratingWindow(a, b(0))).toBe(1200);
    expect(ratingWindow({ ...a, waitedMs: 39_999 }, b(0))).toBeCloseTo(1199.98, 6);
    expect(chosen({ candidates: [a, b(2200)] })).toEqual(["a-b:competitive"]);
    expect(chosen({ candidates: [a, b(2201)] })).toEqual([]);
  });
});

describe("an established matchup passes the initial window within the cap (SPEC 1.2 rule 4)", () => {
  const lo = cand("lo", 1000);
  const hi = (rating = 1600) => cand("hi", rating);
  /** Facts giving lo a smoothed forecast of exactly `p` against hi after `games` games. */
  const forecastOf = (p: number, games: number, mapQuality = 1, over = 0) => {
    const prior = expectedScore(lo.rating, hi().rating);
    const score = p * (games + 20) - 20 * prior + over;
    return (a: Candidate): PairFacts => ({
      games,
      score: a.id === "lo" ? score : games - score,
      mapQuality,
      lastMetAt: null,
    });
  };
  const pairs = (facts: (a: Candidate, b: Candidate) => PairFacts, rating = 1600) =>
    chosen({ candidates: [lo, hi(rating)], facts });

  it("at 20 games, not at 19", () => {
    expect(smoothedForecast(lo, hi(), forecastOf(0.5, 20)(lo))).toBeCloseTo(0.5, 12);
    expect(pairs(forecastOf(0.5, 20))).toEqual(["hi-lo:competitive"]);
    // With 19 games the pair is under-tested: only discovery, which ignores ratings, may pair it.
    expect(pairs(forecastOf(0.5, 19))).toEqual(["hi-lo:discovery"]);
  });

  it("at a predicted score of exactly 25 % and 75 %, not below or above", () => {
    expect(smoothedForecast(lo, hi(), forecastOf(0.25, 20)(lo))).toBe(0.25);
    expect(pairs(forecastOf(0.25, 20))).toEqual(["hi-lo:competitive"]);
    expect(pairs(forecastOf(0.25, 20, 1, -0.01))).toEqual([]);
    expect(smoothedForecast(lo, hi(), forecastOf(0.75, 60)(lo))).toBe(0.75);
    expect(pairs(forecastOf(0.75, 60))).toEqual(["hi-lo:competitive"]);
    expect(pairs(forecastOf(0.75, 60, 1, 0.01))).toEqual([]);
  });

  it("at an average map quality of exactly 0.5, not below", () => {
    expect(pairs(forecastOf(0.5, 40, 0.5))).toEqual(["hi-lo:competitive"]);
    expect(pairs(forecastOf(0.5, 40, 0.49))).toEqual([]);
  });

  it("within the cap: a gap of 1200 passes, 1201 does not", () => {
    expect(pairs(forecastOf(0.5, 40), 2200)).toEqual(["hi-lo:competitive"]);
    expect(pairs(forecastOf(0.5, 40), 2201)).toEqual([]);
  });
});

describe("priority after 60 s (SPEC 1.2 rule 4)", () => {
  // q and r are an even pair; p (r's owner's) is a poor match for q (400 apart). Without priority q-r
  // weighs more.
  const trio = (pWait: number) => [
    cand("p", 1100, { waitedMs: pWait, owner: "pr" }),
    cand("q", 1500),
    cand("r", 1500, { owner: "pr" }),
  ];

  it("starts at 60 s of waiting, not a millisecond before", () => {
    expect(chosen({ candidates: trio(59_999) })).toEqual(["q-r:competitive"]);
    expect(chosen({ candidates: trio(60_000) })).toEqual(["p-q:competitive"]);
  });

  it("orders the bots waiting over 60 s: the longest waiting first", () => {
    // o1 and o2 (one owner) both passed 60 s; x can take one. Their waits saturate the waiting term
    // (capped at 120 s for the pair), so only the priority's own ordering separates them.
    const cs = [
      cand("o1", 1500, { waitedMs: 100_000, owner: "o" }),
      cand("o2", 1500, { waitedMs: 70_000, owner: "o" }),
      cand("x", 1500, { waitedMs: 60_000 }),
    ];
    inEveryOrder(cs, {}, ["o1-x:competitive"]);
    // The older bot goes first even when the younger's matchup is better (but the pass must place both).
    const better = [
      cand("o1", 1500, { waitedMs: 100_000, owner: "o" }),
      cand("o2", 1600, { waitedMs: 70_000, owner: "o" }),
      cand("x", 1600, { waitedMs: 60_000 }),
    ];
    inEveryOrder(better, {}, ["o1-x:competitive"]);
  });

  it("outweighs any quality: two long waiters are both placed rather than one perfect pair", () => {
    const cs = [
      cand("a", 1100, { waitedMs: 61_000 }),
      cand("b", 1500),
      cand("c", 1500),
      cand("d", 1900, { waitedMs: 61_000 }),
    ];
    inEveryOrder(cs, {}, ["a-b:competitive", "c-d:competitive"]);
  });
});

describe("the weight terms (SPEC 1.2 rule 1)", () => {
  // x chooses between y and z (one owner, so y and z cannot meet each other).
  const pick = (x: Partial<Candidate>, y: Partial<Candidate>, z: Partial<Candidate>, input = {}) =>
    [
      [cand("x", 1500, x), cand("y", 1500, { owner: "yz", ...y }), cand("z", 1500, { owner: "yz", ...z })],
      input,
    ] as const;

  it("prefers the longer wait", () => {
    inEveryOrder(...pick({}, { waitedMs: 20_000 }, { waitedMs: 10_000 }), ["x-y:competitive"]);
    inEveryOrder(...pick({ waitedMs: 5_000 }, { waitedMs: 1_000 }, { waitedMs: 3_000 }), ["x-z:competitive"]);
  });

  it("prefers fewer recent games", () => {
    inEveryOrder(...pick({ recentGames: 2 }, { recentGames: 0 }, { recentGames: 3 }), ["x-y:competitive"]);
    inEveryOrder(...pick({ recentGames: 0 }, { recentGames: 5 }, { recentGames: 1 }), ["x-z:competitive"]);
  });

  it("settles new versions (under 30 rated games) against established ones", () => {
    // An established x prefers the new version; 29 games is new, 30 is established.
    inEveryOrder(...pick({ ratedGames: 30 }, { ratedGames: 29 }, { ratedGames: 30 }), ["x-y:competitive"]);
    inEveryOrder(...pick({ ratedGames: 100 }, { ratedGames: 30 }, { ratedGames: 0 }), ["x-z:competitive"]);
    // A new x prefers the established one.
    inEveryOrder(...pick({ ratedGames: 29 }, { ratedGames: 29 }, { ratedGames: 30 }), ["x-z:competitive"]);
    inEveryOrder(...pick({ ratedGames: 0 }, { ratedGames: 31 }, { ratedGames: 10 }), ["x-y:competitive"]);
  });

  it("prefers the under-tested pair, less so as it nears 20 games, and not at all past 20", () => {
    const games = (xy: number, xz: number) =>
      factsBy({ "x-y": (a, b) => asRated(a, b, xy), "x-z": (a, b) => asRated(a, b, xz) });
    inEveryOrder(...pick({}, {}, {}, { facts: games(5, 15) }), ["x-y:competitive"]);
    inEveryOrder(...pick({}, {}, {}, { facts: games(19, 0) }), ["x-z:competitive"]);
    // Past 20 games the term is zero: a small other difference (a recent game) decides.
    inEveryOrder(...pick({}, { recentGames: 1 }, {}, { facts: games(20, 40) }), ["x-z:competitive"]);
    inEveryOrder(...pick({}, {}, { recentGames: 1 }, { facts: games(40, 20) }), ["x-y:competitive"]);
  });
});

describe("exclusions (SPEC 1.2 rule 5)", () => {
  it("holds a rematch for 10 s: at 9,999 ms after the last match no pair, at 10,000 ms a pair", () => {
    const met = (lastMetAt: number) => () => ({ ...asRated(cand("a", 1500), cand("b", 1500)), lastMetAt });
    const cs = [cand("a", 1500), cand("b", 1500)];
    expect(chosen({ now: 20_000, candidates: cs, facts: met(10_001), discoveryDue: true })).toEqual([]);
    expect(chosen({ now: 20_000, candidates: cs, facts: met(10_000) })).toEqual(["a-b:competitive"]);
    expect(chosen({ now: 20_000, candidates: cs, facts: met(30_000), discoveryDue: true })).toEqual([]);
  });

  it("pairs a house bot with a player, and players of different owners", () => {
    expect(
      chosen({ candidates: [cand("h", 1500, { house: true, owner: "house" }), cand("p", 1500)] }),
    ).toEqual(["h-p:competitive"]);
    expect(
      chosen({
        candidates: [
          cand("h1", 1500, { house: true, owner: "h1" }),
          cand("h2", 1500, { house: true, owner: "h2" }),
        ],
        discoveryDue: true,
        facts: () => asRated(cand("a", 1500), cand("b", 1500), 0),
      }),
    ).toEqual([]);
  });

  it("never pairs one owner's bots, even for discovery", () => {
    const cs = [cand("a", 1500, { owner: "o" }), cand("b", 1500, { owner: "o" })];
    expect(chosen({ candidates: cs, discoveryDue: true, facts: (a, b) => asRated(a, b, 0) })).toEqual([]);
  });

  it("applies the caller's extra exclusion to both kinds", () => {
    const cs = [cand("a", 1500), cand("b", 1500)];
    const input = {
      candidates: cs,
      discoveryDue: true,
      facts: (a: Candidate, b: Candidate) => asRated(a, b, 0),
    };
    expect(chosen({ ...input, allowed: () => false })).toEqual([]);
    expect(chosen({ ...input, allowed: () => true })).toEqual(["a-b:discovery"]);
  });
});

describe("discovery (SPEC 1.2 rule 3)", () => {
  const four = [cand("a", 1500), cand("b", 1500), cand("c", 1500), cand("d", 1500)];

  it("reserves the slot for the least-tested pair, whatever the candidates' order", () => {
    const facts = factsBy({ "a-b": (a, b) => asRated(a, b, 2), "c-d": (a, b) => asRated(a, b, 10) });
    inEveryOrder(four, { facts, discoveryDue: true }, ["a-b:discovery", "c-d:competitive"]);
    const other = factsBy({ "a-b": (a, b) => asRated(a, b, 10), "c-d": (a, b) => asRated(a, b, 2) });
    inEveryOrder(four, { facts: other, discoveryDue: true }, ["a-b:competitive", "c-d:discovery"]);
  });

  it("among equally tested pairs, the longer waiting", () => {
    const facts = factsBy({ "a-b": (a, b) => asRated(a, b, 5), "c-d": (a, b) => asRated(a, b, 5) });
    const waited = four.map((c) => (c.id === "c" ? { ...c, waitedMs: 3_000 } : c));
    inEveryOrder(waited, { facts, discoveryDue: true }, ["a-b:competitive", "c-d:discovery"]);
  });

  it("puts a pair whose early results contradict the ratings first, until 20 games", () => {
    // c-d: 5 games, all won by c though the ratings say even; a-b never met.
    const facts = factsBy({
      "a-b": (a, b) => asRated(a, b, 0),
      "c-d": (a) => ({ games: 5, score: a.id === "c" ? 5 : 0, mapQuality: 1, lastMetAt: null }),
    });
    inEveryOrder(four, { facts, discoveryDue: true }, ["a-b:competitive", "c-d:discovery"]);
  });

  it("reserves the slot even where a competitive matching would pair otherwise", () => {
    // a-b and c-d are far apart and never met; a-c and b-d are competitive and well tested.
    const cs = [cand("a", 1000), cand("b", 2000), cand("c", 1100), cand("d", 1900)];
    const facts = factsBy({
      "a-b": (a, b) => asRated(a, b, 0),
      "c-d": (a, b) => asRated(a, b, 0),
      "a-d": (a, b) => asRated(a, b, 0),
      "b-c": (a, b) => asRated(a, b, 0),
    });
    expect(chosen({ candidates: cs, facts })).toEqual(["a-c:competitive", "b-d:competitive"]);
    const reserved = run({ candidates: cs, facts, discoveryDue: true });
    expect(reserved.map(key)).toHaveLength(2);
    expect(reserved[0]!.kind).toBe("discovery");
    expect(reserved.filter((p) => p.kind === "competitive")).toEqual([]);
    expect(run({ candidates: cs, facts, discoverySlots: 2 }).map((p) => p.kind)).toEqual([
      "discovery",
      "discovery",
    ]);
    // discoverySlots overrides discoveryDue, zero included.
    expect(chosen({ candidates: cs, facts, discoveryDue: true, discoverySlots: 0 })).toEqual([
      "a-c:competitive",
      "b-d:competitive",
    ]);
  });

  it("takes no more reserved starts than slots, each bot in one pair", () => {
    const six = ["a", "b", "c", "d", "e", "f"].map((id) => cand(id, 1500));
    const never = (a: Candidate, b: Candidate) => asRated(a, b, 0);
    const one = run({ candidates: six, facts: never, discoverySlots: 1 });
    expect(one.map((p) => p.kind)).toEqual(["discovery", "competitive", "competitive"]);
    const two = run({ candidates: six, facts: never, discoverySlots: 2 });
    expect(two.map((p) => p.kind)).toEqual(["discovery", "discovery", "competitive"]);
    const ids = two.flatMap((p) => [p.a.id, p.b.id]);
    expect(new Set(ids).size).toBe(6);
    const many = run({ candidates: six, facts: never, discoverySlots: 5 });
    expect(many.map((p) => p.kind)).toEqual(["discovery", "discovery", "discovery"]);
  });

  it("can contradict the ratings only from 3 games and until 20, by more than 25 points of score", () => {
    const a = cand("a", 1500);
    const b = cand("b", 1500);
    const f = (games: number, score: number): PairFacts => ({ games, score, mapQuality: 1, lastMetAt: null });
    expect(contradicts(a, b, f(2, 2))).toBe(false);
    expect(contradicts(a, b, f(3, 3))).toBe(true);
    expect(contradicts(a, b, f(3, 0))).toBe(true);
    expect(contradicts(a, b, f(19, 19))).toBe(true);
    expect(contradicts(a, b, f(20, 20))).toBe(false);
    expect(contradicts(a, b, f(4, 3))).toBe(false); // exactly 0.25 off
    expect(contradicts(a, b, f(4, 3.04))).toBe(true);
    expect(contradicts(a, b, f(4, 2))).toBe(false);
    expect(contradicts(cand("a", 1900), b, f(10, 9))).toBe(false); // as a 400-point favourite should
  });
});

describe("the order of the starts", () => {
  it("reserved discovery first, then competitive, then fill-in, each in the candidates' order", () => {
    // g-h: reserved discovery (never met, waiting longest); c-d and a-b competitive; e-f too far apart
    // for a competitive match and never met: fill-in.
    const cs = [
      cand("c", 2000),
      cand("a", 1000),
      cand("b", 1010),
      cand("g", 4000, { waitedMs: 5_000 }),
      cand("e", 3000),
      cand("d", 2010),
      cand("h", 4010, { waitedMs: 5_000 }),
      cand("f", 5000),
    ];
    const facts = factsBy({ "g-h": (a, b) => asRated(a, b, 0), "e-f": (a, b) => asRated(a, b, 0) });
    expect(run({ candidates: cs, facts, discoveryDue: true }).map(key)).toEqual([
      "g-h:discovery",
      "c-d:competitive",
      "a-b:competitive",
      "e-f:discovery",
    ]);
  });
});

describe("what the pass looks at", () => {
  it("never asks for the facts of an excluded pair (one owner, two house bots)", () => {
    const cs = [
      cand("a", 1500, { owner: "o" }),
      cand("b", 1500, { owner: "o" }),
      cand("h1", 1500, { house: true, owner: "h1" }),
      cand("h2", 1500, { house: true, owner: "h2" }),
    ];
    const asked: string[] = [];
    run({
      candidates: cs,
      discoveryDue: true,
      facts: (a, b) => {
        asked.push([a.id, b.id].sort().join("-"));
        return asRated(a, b, 0);
      },
    });
    expect(asked.sort()).toEqual(["a-h1", "a-h2", "b-h1", "b-h2"]);
  });

  it("fill-in prefers more pairs when the weights tie: a path a-b-c-d pairs a-b and c-d, not b-c", () => {
    // Nothing is competitive (500 points apart at no wait); b-c never met (weight 100 + 1), a-b and c-d
    // have 10 games each (50 + 1 each): two pairs weigh 102, one pair 101.
    const cs = [cand("a", 1000), cand("b", 1500), cand("c", 2000), cand("d", 2500)];
    const facts = factsBy({
      "b-c": (a, b) => asRated(a, b, 0),
      "a-b": (a, b) => asRated(a, b, 10),
      "c-d": (a, b) => asRated(a, b, 10),
    });
    inEveryOrder(cs, { facts }, ["a-b:discovery", "c-d:discovery"]);
  });
});

/**
 * A queue of n bots, q0..q(n-1) at rating 1500 + i, the higher rated waiting longer (q(n-1) waited n
 * seconds): the waiting order is the reverse of the rating order.
 */
const queue = (n: number) =>
  Array.from({ length: n }, (_, i) => cand(`q${i}`, 1500 + i, { waitedMs: 1_000 * (i + 1) }));
const idsOf = (ps: Pairing[]) => ps.map(key).sort();

describe("queues up to DENSE_LIMIT are matched exactly", () => {
  it("at 64 bots, one matching over the whole queue finds a pair 63 places apart in rating", () => {
    const cs = queue(DENSE_LIMIT);
    // q0 may meet anyone, nobody else meets; q0-q63 weighs most (q63 waited longest), but q63 is 63 places
    // away in rating order, beyond any block of neighbours.
    const allowed = (a: Candidate, b: Candidate) => a.id === "q0" || b.id === "q0";
    const pairs = run({ candidates: cs, allowed });
    expect(idsOf(pairs)).toEqual(["q0-q63:competitive"]);
  });

  it("at 64 bots, the reserved slot is chosen among every pair", () => {
    const cs = queue(DENSE_LIMIT);
    const facts = factsBy({ "q40-q60": (a, b) => asRated(a, b, 0) });
    const pairs = run({ candidates: cs, facts, discoveryDue: true });
    expect(key(pairs[0]!)).toBe("q40-q60:discovery");
  });
});

describe("long queues: blocks and discovery options (above DENSE_LIMIT)", () => {
  const n = 100;
  const cs = queue(n);

  it("carries a block's unpaired bots into the next block, and never a paired one", () => {
    // q10 can only meet q20 (the next block); q20 could also meet q40 (the block after), but is taken by then.
    const ok = new Set(["q10-q20", "q20-q40"]);
    const allowed = (a: Candidate, b: Candidate) => ok.has([a.id, b.id].sort().join("-"));
    expect(idsOf(run({ candidates: cs, allowed }))).toEqual(["q10-q20:competitive"]);
  });

  it("offers the reserved slot to pairs among the 16 longest waiting", () => {
    // q99 waited longest, q84 is the 16th longest waiting.
    const facts = factsBy({ "q84-q99": (a, b) => asRated(a, b, 0) });
    expect(run({ candidates: cs, facts, discoveryDue: true }).map(key)[0]).toBe("q84-q99:discovery");
  });

  it("and to each of the next longest waiting with its next four (2 per slot beyond the 16)", () => {
    // The 17th and 21st longest waiting, with three slots (16 + 2 x 3 = 22 looked at).
    const facts = factsBy({ "q79-q83": (a, b) => asRated(a, b, 0) });
    const pairs = run({ candidates: cs, facts, discoverySlots: 3 });
    expect(pairs.filter((p) => p.kind === "discovery").map(key)).toEqual(["q79-q83:discovery"]);
  });

  it("and to rating neighbours", () => {
    const facts = factsBy({ "q70-q71": (a, b) => asRated(a, b, 0) });
    expect(run({ candidates: cs, facts, discoveryDue: true }).map(key)[0]).toBe("q70-q71:discovery");
  });

  it("and to pairs that may contradict the ratings, asking for those with 3 to 19 games", () => {
    const facts = factsBy({
      "q50-q90": (a) => ({ games: 5, score: a.id === "q50" ? 0 : 5, mapQuality: 1, lastMetAt: null }),
    });
    const asked: [string, number, number][] = [];
    const tested = (a: Candidate, min: number, max: number) => {
      asked.push([a.id, min, max]);
      if (a.id === "q50") return ["q90", "not-queued"];
      if (a.id === "q90") return ["q50"];
      return [];
    };
    expect(run({ candidates: cs, facts, discoveryDue: true, tested }).map(key)[0]).toBe("q50-q90:discovery");
    expect(asked).toHaveLength(n);
    for (const [, min, max] of asked) expect([min, max]).toEqual([3, 19]);
  });
});
