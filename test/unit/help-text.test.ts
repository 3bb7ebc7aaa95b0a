// `--help` (server/config.ts helpText): every flag's default is stated at most once, and a flag whose help
// gives its default in words ("cores - 1") is not followed by the machine value as a second default.
import { describe, expect, it } from "vitest";
import { helpText } from "../../server/config.ts";

describe("--help", () => {
  const lines = helpText()
    .split("\n")
    .filter((l) => l.startsWith("  --"));

  it("states each default at most once", () => {
    expect(lines.length).toBeGreaterThan(10);
    for (const l of lines) expect(l.match(/\(default\b/g)?.length ?? 0, l).toBeLessThanOrEqual(1);
  });

  it("keeps the worded default of --workers and the stated default of a flag without one", () => {
    const workers = lines.find((l) => l.startsWith("  --workers "));
    expect(workers).toMatch(/\(default: cores - 1, at least 1\)$/);
    expect(lines.some((l) => /\(default [^)]+\)$/.test(l) && !/default:/.test(l))).toBe(true);
  });
});
