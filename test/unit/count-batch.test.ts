// Counts per key summed for a moment before one message to the other nodes (server/cluster/count-batch.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { batchCounts } from "../../server/cluster/count-batch.ts";

describe("batchCounts", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("sends each key's sums per slot once, everyMs after the first count, then starts again", () => {
    const sent: [string, ...number[]][][] = [];
    const b = batchCounts(2, 100, (rows) => sent.push(rows));
    b.add("1.2.3.4");
    b.add("1.2.3.4", 1);
    b.add("1.2.3.4");
    b.add("5.6.7.8", 1);
    vi.advanceTimersByTime(99);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([
      [
        ["1.2.3.4", 2, 1],
        ["5.6.7.8", 0, 1],
      ],
    ]);
    vi.advanceTimersByTime(1_000);
    expect(sent).toHaveLength(1); // nothing counted: nothing sent
    b.add("1.2.3.4");
    vi.advanceTimersByTime(100);
    expect(sent[1]).toEqual([["1.2.3.4", 1, 0]]);
  });

  it("splits a flood over many keys into messages of at most 2,000 rows, and sends nothing once stopped", () => {
    const sent: number[] = [];
    const b = batchCounts(1, 100, (rows) => sent.push(rows.length));
    for (let i = 0; i < 4_500; i++) b.add(`k${i}`);
    vi.advanceTimersByTime(100);
    expect(sent).toEqual([2_000, 2_000, 500]);
    b.add("late");
    b.stop();
    vi.advanceTimersByTime(1_000);
    expect(sent).toHaveLength(3);
  });
});
