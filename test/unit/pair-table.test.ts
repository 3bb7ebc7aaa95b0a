// The rating book's pair index (server/ratings/pair-table.ts) against a Map model: every pair added is found
// under its own slot after any number of rehashes, a pair never added is not, and each version's list holds its
// pairs in the order they were added (the order the matchmaker's opponents come in).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PairLists, PairTable } from "../../server/ratings/pair-table.ts";

describe("the rating book's pair index", () => {
  it("finds every pair added, and no other, through rehashes; lists each version's pairs oldest first", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(3_000), fc.nat(3_000)), { minLength: 1, maxLength: 3_000 }),
        fc.array(fc.tuple(fc.nat(3_000), fc.nat(3_000)), { maxLength: 200 }),
        (adds, probes) => {
          const table = new PairTable();
          const lists = new PairLists();
          const model = new Map<string, number>();
          const listed = new Map<number, number[]>();
          for (const [x, y] of adds) {
            if (x === y) continue;
            const [lo, hi] = x < y ? [x, y] : [y, x];
            if (model.has(`${lo},${hi}`)) continue;
            const slot = model.size;
            model.set(`${lo},${hi}`, slot);
            table.add(lo, hi, slot);
            lists.append(slot, lo, hi);
            for (const v of [lo, hi]) listed.set(v, [...(listed.get(v) ?? []), slot]);
          }
          for (const [key, slot] of model) {
            const [lo, hi] = key.split(",").map(Number) as [number, number];
            expect(table.get(lo, hi)).toBe(slot);
          }
          for (const [lo, hi] of probes) expect(table.get(lo, hi)).toBe(model.get(`${lo},${hi}`) ?? -1);
          for (const [v, slots] of listed) expect([...lists.of(v)]).toEqual(slots);
          expect([...lists.of(3_001)]).toEqual([]);
          expect([...lists.of(1 << 20)]).toEqual([]);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps the largest indices it allows apart (lo * 2^26 + hi is exact)", () => {
    const table = new PairTable();
    const top = 2 ** 26 - 1;
    table.add(top - 1, top, 7);
    table.add(0, top, 8);
    table.add(top, 0, 9);
    expect([table.get(top - 1, top), table.get(0, top), table.get(top, 0), table.get(top, top - 1)]).toEqual([
      7, 8, 9, -1,
    ]);
    expect(() => table.add(2 ** 26, 0, 10)).toThrow(/too many versions/);
  });
});
