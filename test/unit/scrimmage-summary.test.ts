// The batch-test summary (server/scrimmages/summary.ts): the Wilson score interval against published values,
// its bounds at 0 and n wins, draws counted half, voided games left out, and grouping by a key.
import { describe, expect, it } from "vitest";
import { tally, tallyBy, wilson } from "../../server/scrimmages/summary.ts";

describe("Wilson interval", () => {
  it("matches published values", () => {
    // 5 of 10: 0.2366 to 0.7634; 0 of 10: 0 to 0.2775; 1 of 10: 0.0179 to 0.4042 (z = 1.96).
    const half = wilson(0.5, 10);
    expect(half.low).toBeCloseTo(0.2366, 4);
    expect(half.high).toBeCloseTo(0.7634, 4);
    const none = wilson(0, 10);
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.2775, 4);
    const one = wilson(0.1, 10);
    expect(one.low).toBeCloseTo(0.0179, 4);
    expect(one.high).toBeCloseTo(0.4042, 4);
  });

  it("is never empty at the ends and narrows as games add up", () => {
    const all = wilson(1, 4);
    expect(all.high).toBe(1);
    expect(all.low).toBeGreaterThan(0.4);
    expect(all.low).toBeLessThan(1);
    const few = wilson(0.6, 10);
    const many = wilson(0.6, 1000);
    expect(many.high - many.low).toBeLessThan((few.high - few.low) / 5);
  });
});

describe("tally", () => {
  it("counts a draw half and leaves voided games out of the score", () => {
    const t = tally(["win", "draw", "loss", "void", "win"]);
    expect(t).toMatchObject({ games: 5, wins: 2, losses: 1, draws: 1, voided: 1, score: 0.625 });
    const w = wilson(0.625, 4);
    expect(t.low).toBeCloseTo(w.low, 4);
    expect(t.high).toBeCloseTo(w.high, 4);
  });

  it("has no score before a game counts", () => {
    expect(tally(["void"])).toMatchObject({ games: 1, voided: 1, score: null, low: null, high: null });
    expect(tally([]).score).toBeNull();
  });

  it("groups by a key in first-seen order", () => {
    const games = [
      { o: "kiter", r: "win" as const },
      { o: "brawler", r: "loss" as const },
      { o: "kiter", r: "draw" as const },
    ];
    const by = tallyBy(
      games,
      (g) => g.o,
      (g) => g.r,
    );
    expect(Object.keys(by)).toEqual(["kiter", "brawler"]);
    expect(by.kiter).toMatchObject({ games: 2, wins: 1, draws: 1, score: 0.75 });
    expect(by.brawler).toMatchObject({ games: 1, losses: 1, score: 0 });
  });
});
