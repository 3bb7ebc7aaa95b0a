// The Bradley-Terry fit recovers known strengths, pins the house average, and gives standard errors that
// shrink with more games.
import { describe, expect, it } from "vitest";
import {
  expectedScore,
  fitBradleyTerry,
  leaderboardScore,
  type PairScore,
} from "../../server/ratings/bradley-terry.ts";

/** Exact expected pair scores for given true ratings, so the fit has a known answer. */
function pairsFor(truth: Record<string, number>, gamesPerPair: number): PairScore[] {
  const names = Object.keys(truth);
  const out: PairScore[] = [];
  for (let i = 0; i < names.length; i++) {
    for (let j = i + 1; j < names.length; j++) {
      const a = names[i]!;
      const b = names[j]!;
      out.push({ a, b, games: gamesPerPair, aScore: gamesPerPair * expectedScore(truth[a]!, truth[b]!) });
    }
  }
  return out;
}

describe("fitBradleyTerry", () => {
  const truth = { house1: 1400, house2: 1600, alice: 1800, bob: 1200, carol: 1500 };

  it("recovers the true ratings from many games, with the house average at 1500", () => {
    const fit = fitBradleyTerry(
      { players: Object.keys(truth), pairs: pairsFor(truth, 2000), anchors: ["house1", "house2"] },
      { priorSd: 5000 },
    );
    for (const [p, r] of Object.entries(truth)) expect(fit.rating.get(p)!).toBeCloseTo(r, 0);
    expect((fit.rating.get("house1")! + fit.rating.get("house2")!) / 2).toBeCloseTo(1500, 6);
  });

  it("gives smaller deviations with more games and keeps an unbeaten version finite", () => {
    const few = fitBradleyTerry({
      players: Object.keys(truth),
      pairs: pairsFor(truth, 5),
      anchors: ["house1", "house2"],
    });
    const many = fitBradleyTerry({
      players: Object.keys(truth),
      pairs: pairsFor(truth, 500),
      anchors: ["house1", "house2"],
    });
    expect(many.deviation.get("alice")!).toBeLessThan(few.deviation.get("alice")! / 3);
    const unbeaten = fitBradleyTerry({
      players: ["a", "b"],
      pairs: [{ a: "a", b: "b", games: 10, aScore: 10 }],
    });
    expect(Number.isFinite(unbeaten.rating.get("a")!)).toBe(true);
    expect(unbeaten.rating.get("a")!).toBeGreaterThan(unbeaten.rating.get("b")!);
  });

  it("converges in a few iterations from a warm start, and the large-ladder solver (conjugate gradients) agrees", () => {
    const input = { players: Object.keys(truth), pairs: pairsFor(truth, 100), anchors: ["house1", "house2"] };
    const cold = fitBradleyTerry(input);
    const warm = fitBradleyTerry({ ...input, warm: cold.rating });
    expect(warm.iterations).toBeLessThanOrEqual(2);
    const diag = fitBradleyTerry(input, { fullMatrixLimit: 0 });
    for (const p of input.players) expect(diag.rating.get(p)!).toBeCloseTo(cold.rating.get(p)!, 1);
  });

  it("computes the leaderboard score with the deviation floor of 25", () => {
    expect(leaderboardScore(1600.4, 10)).toBe(1550);
    expect(leaderboardScore(1600, 60)).toBe(1480);
  });
});
