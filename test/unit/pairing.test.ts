// The pairing rule: maximum-weight matching with the SPEC's window, priority, discovery and exclusions.
import { describe, expect, it } from "vitest";
import {
  type Candidate,
  choosePairs,
  type PairFacts,
  ratingWindow,
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
const known = (games = 40, score = games / 2): PairFacts => ({
  games,
  score,
  mapQuality: 1,
  lastMetAt: null,
});
/** Forty games that went as the ratings predict. */
const asRated = (a: Candidate, b: Candidate): PairFacts => known(40, 40 * expectedScore(a.rating, b.rating));
const names = (ps: ReturnType<typeof choosePairs>) => ps.map((p) => [p.a.id, p.b.id].sort().join("-")).sort();

describe("choosePairs", () => {
  it("pairs close ratings and maximises total weight over the whole queue", () => {
    const c = [cand("a", 1500), cand("b", 1510), cand("c", 1800), cand("d", 1790)];
    expect(names(choosePairs({ now: 0, candidates: c, facts: () => known(), discoveryDue: false }))).toEqual([
      "a-b",
      "c-d",
    ]);
  });

  it("keeps pairs outside the window apart until the shorter wait widens it", () => {
    const far = [cand("a", 1000), cand("b", 1700)];
    expect(choosePairs({ now: 0, candidates: far, facts: asRated, discoveryDue: false })).toEqual([]);
    const waited = far.map((x) => ({ ...x, waitedMs: 16_000 }));
    expect(ratingWindow(waited[0]!, waited[1]!)).toBe(720);
    expect(names(choosePairs({ now: 0, candidates: waited, facts: asRated, discoveryDue: false }))).toEqual([
      "a-b",
    ]);
    expect(ratingWindow({ ...waited[0]!, waitedMs: 1e6 }, { ...waited[1]!, waitedMs: 1e6 })).toBe(1200);
  });

  it("lets an established, even matchup pass the initial window within the cap", () => {
    const c = [cand("a", 1000), cand("b", 1600)];
    const even = (): PairFacts => ({ games: 200, score: 100, mapQuality: 0.8, lastMetAt: null });
    expect(names(choosePairs({ now: 0, candidates: c, facts: even, discoveryDue: false }))).toEqual(["a-b"]);
  });

  it("never pairs same owner, house with house, or bots inside the rematch hold", () => {
    const c = [
      cand("a", 1500, { owner: "x" }),
      cand("b", 1500, { owner: "x" }),
      cand("h1", 1500, { house: true, owner: "house" }),
      cand("h2", 1500, { house: true, owner: "house" }),
    ];
    const pairs = choosePairs({ now: 0, candidates: c, facts: () => known(), discoveryDue: false });
    for (const p of pairs) {
      expect(p.a.owner).not.toBe(p.b.owner);
      expect(p.a.house && p.b.house).toBe(false);
    }
    const held = choosePairs({
      now: 5_000,
      candidates: [cand("a", 1500), cand("b", 1500)],
      facts: () => ({ ...known(), lastMetAt: 0 }),
      discoveryDue: true,
    });
    expect(held).toEqual([]);
  });

  it("gives the oldest waiting bot priority after 60 seconds", () => {
    const c = [cand("old", 1500, { waitedMs: 61_000 }), cand("x", 1500), cand("y", 1500)];
    const pairs = choosePairs({ now: 0, candidates: c, facts: () => known(), discoveryDue: false });
    expect(pairs.flatMap((p) => [p.a.id, p.b.id])).toContain("old");
  });

  it("reserves the discovery slot for the least-tested pair, ignoring ratings, and fills in with discovery", () => {
    const c = [cand("a", 1000), cand("b", 2000), cand("c", 1500), cand("d", 1510)];
    const facts = (x: Candidate, y: Candidate) =>
      [x.id, y.id].sort().join("") === "ab" ? known(0) : asRated(x, y);
    const pairs = choosePairs({ now: 0, candidates: c, facts, discoveryDue: true });
    expect(pairs.find((p) => p.kind === "discovery")).toMatchObject({ a: { id: "a" }, b: { id: "b" } });
    expect(names(pairs)).toEqual(["a-b", "c-d"]);
    // Without the slot, the far pair still meets through fill-in since nothing competitive can place it.
    const fill = choosePairs({ now: 0, candidates: c, facts, discoveryDue: false });
    expect(fill.find((p) => p.kind === "discovery")).toMatchObject({ a: { id: "a" }, b: { id: "b" } });
  });
});
