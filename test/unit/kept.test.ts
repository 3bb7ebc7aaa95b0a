// Answers kept by their inputs (server/kernel/kept.ts, issue 38): made again when an input is another object or
// another value, kept otherwise; inputs are held by number, so a replaced input is not kept alive; the bound
// drops the least recently used.
import { describe, expect, it } from "vitest";
import { identity, Kept } from "../../server/kernel/kept.ts";

describe("Kept", () => {
  it("makes an answer again only when an input is another object or value", () => {
    const kept = new Kept<{ n: number }>(10);
    let made = 0;
    const make = () => ({ n: ++made });
    const board = Object.freeze([1, 2, 3]);
    const a = kept.get("k", [board, "x", 1], make);
    expect(kept.get("k", [board, "x", 1], make)).toBe(a);
    // An equal but other object is another input.
    const b = kept.get("k", [[1, 2, 3], "x", 1], make);
    expect(b).not.toBe(a);
    expect(kept.get("k", [board, "y", 1], make).n).toBe(3);
    expect(kept.get("k", [board, "y", 2], make).n).toBe(4);
    expect(kept.get("k", [board, "y"], make).n).toBe(5);
    // Another key has an answer of its own.
    expect(kept.get("other", [board, "y"], make).n).toBe(6);
    expect(kept.get("k", [board, "y"], make).n).toBe(5);
  });

  it("names each object by a number of its own", () => {
    const a = {};
    const b = {};
    expect(identity(a)).toBe(identity(a));
    expect(identity(a)).not.toBe(identity(b));
  });

  it("drops the least recently used answers past its bound", () => {
    const kept = new Kept<string>(10, (s) => s.length);
    let made = 0;
    const make = (text: string) => () => {
      made++;
      return text;
    };
    kept.get("a", [], make("aaaa"));
    kept.get("b", [], make("bbbb"));
    kept.get("a", [], make("aaaa")); // a is now the most recently used
    kept.get("c", [], make("cccc")); // 12 > 10: b goes
    expect(kept.total).toBe(8);
    expect(made).toBe(3);
    kept.get("a", [], make("aaaa"));
    expect(made).toBe(3);
    kept.get("b", [], make("bbbb"));
    expect(made).toBe(4);
    // An answer larger than the bound is kept alone.
    kept.get("big", [], make("x".repeat(20)));
    expect(kept.total).toBe(20);
  });
});
