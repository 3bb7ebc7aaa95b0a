// The settlement's choice of pairs (server/settlement/pairs.ts): rank neighbours only, the pair whose 95 %
// rank intervals overlap most first, then the pair with fewer settlement games together, then the higher
// ranked; and how many ranks two intervals share.
import { describe, expect, it } from "vitest";
import { neighbourPairs, overlap } from "../../server/settlement/pairs.ts";

const row = (rank: number) => ({ rank, name: `b${rank}` });

describe("settlement pairs", () => {
  it("counts the ranks two intervals share", () => {
    expect(overlap({ low: 1, high: 3 }, { low: 2, high: 5 })).toBe(2);
    expect(overlap({ low: 1, high: 2 }, { low: 3, high: 4 })).toBe(0);
    expect(overlap({ low: 2, high: 2 }, { low: 1, high: 4 })).toBe(1);
    expect(overlap(null, { low: 1, high: 4 })).toBe(0);
  });

  it("pairs only rank neighbours, the most overlapping first", () => {
    const order = [1, 2, 3, 4, 5].map(row);
    const intervals: Record<string, { low: number; high: number }> = {
      b1: { low: 1, high: 1 },
      b2: { low: 2, high: 3 },
      b3: { low: 2, high: 5 },
      b4: { low: 3, high: 5 },
      b5: { low: 5, high: 5 },
    };
    const pairs = neighbourPairs(
      order,
      (r) => intervals[r.name]!,
      () => 0,
    );
    expect(pairs.map((p) => [p.a.name, p.b.name, p.overlap])).toEqual([
      ["b3", "b4", 3],
      ["b2", "b3", 2],
      ["b4", "b5", 1],
      ["b1", "b2", 0],
    ]);
    for (const p of pairs) expect(p.b.rank - p.a.rank).toBe(1);
  });

  it("breaks ties by fewer settlement games together, then by rank", () => {
    const order = [1, 2, 3, 4].map(row);
    const same = () => ({ low: 1, high: 4 });
    const games = (a: string, b: string) => (a === "b1" && b === "b2" ? 3 : a === "b2" && b === "b3" ? 1 : 1);
    expect(neighbourPairs(order, same, games).map((p) => p.a.name)).toEqual(["b2", "b3", "b1"]);
    expect(neighbourPairs(order, same, () => 0).map((p) => p.a.name)).toEqual(["b1", "b2", "b3"]);
    expect(neighbourPairs([row(1)], same, () => 0)).toEqual([]);
  });
});
