// The worker-tuning table's quantiles (test/bench/workers-table.ts) follow PromQL's histogram_quantile: over the
// increase between two reads of cumulative buckets, linear within the bucket the rank falls in.
import { describe, expect, it } from "vitest";
import { quantile } from "../bench/workers-table.ts";

const read = (pairs: [number, number][]) => new Map(pairs);

describe("histogram quantile over an increase", () => {
  it("interpolates within the bucket and ignores what was there before", () => {
    const before = read([
      [0.001, 50],
      [0.002, 50],
      [Number.POSITIVE_INFINITY, 50],
    ]);
    // 100 new samples: 40 at or below 1 ms, 60 between 1 and 2 ms.
    const after = read([
      [0.001, 90],
      [0.002, 150],
      [Number.POSITIVE_INFINITY, 150],
    ]);
    expect(quantile(0.2, before, after)).toBeCloseTo(0.0005, 9);
    expect(quantile(0.5, before, after)).toBeCloseTo(0.001 + (0.001 * 10) / 60, 9);
    expect(quantile(0.99, before, after)).toBeCloseTo(0.001 + (0.001 * 59) / 60, 9);
  });

  it("answers the highest finite bound above it, and NaN without samples", () => {
    const after = read([
      [0.001, 1],
      [Number.POSITIVE_INFINITY, 10],
    ]);
    expect(quantile(0.99, new Map(), after)).toBe(0.001);
    expect(quantile(0.5, after, after)).toBeNaN();
  });
});
