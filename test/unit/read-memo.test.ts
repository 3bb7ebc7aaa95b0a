// The read memo of server/store/read-memo.ts (issue 38): an answer is kept for its generation only, a load that
// a write overtook is asked again, concurrent asks share one load, failures are not kept, and the rows it holds
// stay under its bound.
import { describe, expect, it } from "vitest";
import { ReadMemo } from "../../server/store/read-memo.ts";

describe("ReadMemo", () => {
  it("keeps an answer until the generation moves", async () => {
    const memo = new ReadMemo(100);
    let loads = 0;
    const load = async () => [++loads];
    expect(await memo.get("k", 1, load, (v) => v.length)).toEqual([1]);
    expect(await memo.get("k", 1, load, (v) => v.length)).toEqual([1]);
    expect(await memo.get("k", 2, load, (v) => v.length)).toEqual([2]);
    expect(loads).toBe(2);
  });

  it("shares one load between concurrent asks and does not keep a failure", async () => {
    const memo = new ReadMemo(100);
    let loads = 0;
    const [a, b] = await Promise.all([
      memo.get(
        "k",
        1,
        async () => ++loads,
        () => 1,
      ),
      memo.get(
        "k",
        1,
        async () => ++loads,
        () => 1,
      ),
    ]);
    expect([a, b, loads]).toEqual([1, 1, 1]);
    await expect(
      memo.get(
        "f",
        1,
        () => Promise.reject(new Error("down")),
        () => 1,
      ),
    ).rejects.toThrow("down");
    expect(
      await memo.get(
        "f",
        1,
        async () => "up",
        () => 1,
      ),
    ).toBe("up");
  });

  it("drops the least recently used answers past its bound", async () => {
    const memo = new ReadMemo(10);
    for (let i = 0; i < 5; i++)
      await memo.get(
        `k${i}`,
        1,
        async () => i,
        () => 4,
      );
    expect(memo.held).toBeLessThanOrEqual(10);
    let reloaded = false;
    await memo.get(
      "k0",
      1,
      async () => {
        reloaded = true;
        return 0;
      },
      () => 4,
    );
    expect(reloaded).toBe(true);
  });
});
