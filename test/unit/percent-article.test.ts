// The featured upset's label (server/spectate/service.ts): "an 18 %", not "a 18 %": the article follows how
// the number is read aloud.
import { describe, expect, it } from "vitest";
import { percentWithArticle } from "../../server/spectate/service.ts";

describe("percentWithArticle", () => {
  it("says 'an' before eight, eleven, eighteen and the eighties, 'a' otherwise", () => {
    const an = [8, 11, 18, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89];
    for (let p = 0; p <= 100; p++) {
      expect(percentWithArticle(p), String(p)).toBe(`${an.includes(p) ? "an" : "a"} ${p}\u00a0%`);
    }
  });
});
