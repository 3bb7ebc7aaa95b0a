// Why each ranked match was paired (issue 33, part 4): the real Matchmaker on the simulated world writes a
// pairing record with every start plan, one test per reason kind (competitive, discovery, contradiction
// testing, 60 s priority, opponent request). Each record's weight is the sum of its parts, its waits and
// window are the ones the rule used, its map reason matches the map chosen, and the match page's sentence
// names the reason.
import { describe, expect, it } from "vitest";
import { MAP_NAMES } from "../../engine/rules.ts";
import type { StartPlan } from "../../server/matchmaker/matchmaker.ts";
import { PairingRecord, pairingSentence } from "../../server/store/pairing-record.ts";
import { StubBook, World } from "../helpers/matchmaker-world.ts";

/** The record of a plan, checked against the API schema and for its sums. */
function recordOf(plan: StartPlan | undefined) {
  expect(plan).toBeDefined();
  const p = PairingRecord.parse(plan!.pairing);
  if (p.weight !== null) {
    const sum = Object.values(p.parts).reduce((s, v) => s + v, 0);
    expect(Math.abs(sum - p.weight)).toBeLessThan(0.05);
  }
  const names = plan!.seats.map((s) => s.bot.name) as [string, string];
  return { p, names, sentence: pairingSentence(p, names) };
}

describe("pairing records, one per reason", () => {
  it("competitive: a close pair, the window in force and each wait, fighter order kept", () => {
    const book = new StubBook();
    const w = new World({ book });
    const a = w.player("a", { waitedMs: 5_000 });
    const b = w.player("b", { waitedMs: 12_000 });
    book.rating.set(w.key(a), 1500);
    book.rating.set(w.key(b), 1600);
    book.asRated(w.key(a), w.key(b), 40);
    const [plan] = w.pass();
    const { p, names, sentence } = recordOf(plan);
    expect(p.reason).toBe("competitive");
    expect(p.rating_gap).toBe(100);
    // 400 + 20 per second of the shorter wait (5 s).
    expect(p.window).toBe(500);
    expect(p.pair_games).toBe(40);
    expect(p.parts.priority).toBe(0);
    expect(p.parts.wait).toBe(17);
    // Waits follow the seats (the seat balance may put either first).
    const waitOf = { a: 5_000, b: 12_000 };
    expect(p.waits_ms).toEqual(names.map((n) => waitOf[n as "a" | "b"]));
    // The forecast is fighter 0's: below half when fighter 0 is the lower-rated a.
    expect(p.forecast < 0.5).toBe(names[0] === "a");
    expect(p.map).toEqual({ reason: "least_played", games: 0, choices: MAP_NAMES.length });
    expect(sentence).toMatch(/competitive pairing: ratings 100 points apart, within the 500-point window/);
  });

  it("priority: a bot past 60 s outweighs the rest, and its part says by how much", () => {
    const book = new StubBook();
    const w = new World({ book });
    const old = w.player("old", { waitedMs: 75_000 });
    const x = w.player("x");
    const y = w.player("y");
    book.rating.set(w.key(old), 1200);
    book.rating.set(w.key(x), 1500);
    book.rating.set(w.key(y), 1500);
    for (const [p, q] of [
      [old, x],
      [old, y],
      [x, y],
    ] as const)
      book.asRated(w.key(p), w.key(q));
    const [plan] = w.pass();
    const { p, sentence } = recordOf(plan);
    expect(p.reason).toBe("priority");
    expect(p.parts.priority).toBe(1015);
    expect(p.waits_ms).toContain(75_000);
    expect(sentence).toMatch(/priority pairing: a bot had waited over 60 s/);
    expect(sentence).toMatch(/old had waited 75 s/);
  });

  it("discovery: an under-tested pair outside the window, filled in by discovery", () => {
    const book = new StubBook();
    const w = new World({ book });
    const a = w.player("a");
    const b = w.player("b");
    book.rating.set(w.key(a), 1000);
    book.rating.set(w.key(b), 1600);
    // 19 games going as rated: not established, not contradicting, still under-tested.
    book.asRated(w.key(a), w.key(b), 19);
    // Maps: every map played 4 or 5 times by the pair; two maps at 4.
    book.mapGames.set(
      JSON.stringify([w.key(a), w.key(b)]),
      new Map(MAP_NAMES.map((m, i) => [m, i < 2 ? 4 : 5])),
    );
    const [plan] = w.pass();
    expect(plan!.kind).toBe("discovery");
    const { p, sentence } = recordOf(plan);
    expect(p.reason).toBe("discovery");
    expect(p.parts.contradiction).toBe(0);
    expect(p.parts.untested).toBe(5);
    expect(p.parts.base).toBe(1);
    expect(p.map).toEqual({ reason: "least_played", games: 4, choices: 2 });
    expect(MAP_NAMES.slice(0, 2)).toContain(plan!.map);
    expect(sentence).toMatch(/discovery pairing: the two had played only 19 rated games together/);
    expect(sentence).toMatch(/played least together \(4 games\), picked by the seed among 2/);
  });

  it("contradiction: early results that disagree with the ratings ask for more games", () => {
    const book = new StubBook();
    const w = new World({ book });
    const a = w.player("a");
    const b = w.player("b");
    book.rating.set(w.key(a), 1000);
    book.rating.set(w.key(b), 1900);
    // 900 apart, yet a won all five: expected about 0.5 %.
    book.pair(w.key(a), w.key(b), 5, 5, 0.3);
    const [plan] = w.pass();
    const { p, sentence } = recordOf(plan);
    expect(p.reason).toBe("contradiction");
    expect(p.parts.contradiction).toBe(100);
    expect(p.pair_games).toBe(5);
    expect(p.rating_gap).toBe(900);
    expect(sentence).toMatch(/contradiction test: their 5 games together disagreed with their ratings/);
  });

  it("request: a bot that asked for a house opponent meets it, with no weight and its wait", () => {
    const w = new World({ requests: new Map([["p", "h1"]]), houseWaitMs: 60_000 });
    w.house("h1");
    w.house("h2");
    w.player("p", { waitedMs: 3_000 });
    const [plan] = w.pass();
    expect(w.served).toEqual(["p"]);
    const { p, names, sentence } = recordOf(plan);
    expect(p.reason).toBe("request");
    expect(p.weight).toBeNull();
    expect(p.window).toBeNull();
    expect(p.requested_by).toBe("p");
    expect(names).toContain("h1");
    expect(p.waits_ms[names.indexOf("p")]).toBe(3_000);
    expect(p.waits_ms[names.indexOf("h1")]).toBe(0);
    expect(sentence).toMatch(/opponent request: p asked to meet this house bot/);
  });
});
