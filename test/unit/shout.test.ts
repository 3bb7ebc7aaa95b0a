import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cleanShout, SHOUT_MAX_LENGTH } from "../../engine/shout.ts";

const INVISIBLE_OR_CONTROL = /[\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF\u00AD\p{Cc}]/u;

function okText(raw: unknown): string {
  const result = cleanShout(raw);
  if (!result.ok) throw new Error(`expected ok for ${JSON.stringify(raw)}, got ${result.detail}`);
  return result.text;
}

describe("cleanShout", () => {
  it("passes plain text unchanged", () => {
    expect(cleanShout("gg, nice dodge! 3-2 :)")).toEqual({ ok: true, text: "gg, nice dodge! 3-2 :)" });
  });

  it("keeps visible emoji", () => {
    expect(okText("gg 😀👍")).toBe("gg 😀👍");
  });

  it("accepts exactly the limit and refuses one more, counting code points", () => {
    expect(SHOUT_MAX_LENGTH).toBe(40);
    expect(okText("a".repeat(40))).toBe("a".repeat(40));
    // 40 astral emoji are 80 UTF-16 units but 40 code points.
    expect(okText("😀".repeat(40))).toBe("😀".repeat(40));
    for (const raw of ["a".repeat(41), "😀".repeat(41), "x".repeat(100_000)]) {
      const result = cleanShout(raw);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.reason).toBe("bad_text");
        expect(result.detail).toContain("40");
      }
    }
  });

  it("refuses text that only grows past the limit through normalisation", () => {
    // U+FDFA is one code point that NFKC expands to 18.
    expect(cleanShout("\uFDFA\uFDFA\uFDFA")).toEqual({
      ok: false,
      reason: "bad_text",
      detail: "shout is too long after normalisation (over 40 characters)",
    });
  });

  it("refuses non-strings", () => {
    for (const raw of [undefined, null, 42, {}, ["hi"], true]) {
      expect(cleanShout(raw)).toEqual({ ok: false, reason: "bad_text", detail: "shout must be a string" });
    }
  });

  it("refuses blank and invisible-only text", () => {
    for (const raw of [
      "",
      "   ",
      " \t\n\r ",
      "\u200B\u200C\u200D\uFEFF",
      "\u2060\u00AD\u202E\u2066",
      "\u3164\u2800",
    ]) {
      expect(cleanShout(raw)).toEqual({
        ok: false,
        reason: "bad_text",
        detail: "shout is empty after cleaning",
      });
    }
  });

  it("removes zero-width and bidi characters inside words", () => {
    expect(okText("he\u200Bl\u200Dlo wo\uFEFFr\u00ADld")).toBe("hello world");
    expect(okText("abc\u202Edef\u202C")).toBe("abcdef");
    expect(okText("a\u0007b\u009Fc")).toBe("abc");
  });

  it("folds lookalike letters to their Latin skeleton", () => {
    // Cyrillic р (U+0440) and а (U+0430) mixed with Latin.
    expect(okText("\u0440\u0430ypal login")).toBe("paypal login");
    expect(okText("ｐａｙｐａｌ")).toBe("paypal");
    expect(okText("𝐩𝐚𝐲𝐩𝐚𝐥")).toBe("paypal");
  });

  it("collapses whitespace runs and trims", () => {
    expect(okText("  go \t\n  left\u3000\u00A0 now  ")).toBe("go left now");
  });

  it("masks profanity with one asterisk per character", () => {
    expect(okText("you are a shithead")).toBe("you are a ****head");
    expect(okText("fuck this map")).toBe("**** this map");
    // obscenity matches the stretched word; the mask still covers all seven letters.
    expect(okText("fuuuuck")).toBe("*******");
  });

  it("masks profanity disguised with lookalikes", () => {
    // Cyrillic ѕ (U+0455) and і (U+0456).
    expect(okText("you are a \u0455h\u0456thead")).toBe("you are a ****head");
    expect(okText("ｓｈｉｔ happens")).toBe("**** happens");
  });

  it("is deterministic", () => {
    const raw = "ｆｕｃｋ \u0440\u0430ypal\u200B  ok";
    expect(cleanShout(raw)).toEqual(cleanShout(raw));
  });

  it("never throws and always returns clean text (property)", () => {
    // Characters chosen to hit every cleaning step: invisibles, controls, lone surrogates, lookalikes,
    // expanding compatibility forms, spaces and profanity fragments.
    const tricky = fc.constantFrom(
      "\u200B",
      "\u200D",
      "\u2060",
      "\uFEFF",
      "\u00AD",
      "\u202E",
      "\u2067",
      "\uFE0F",
      "\u{E0041}",
      "\u{E0100}",
      "\u0000",
      "\u0085",
      "\t",
      "\n",
      "\uD800",
      "\uDC00",
      "\u3000",
      "\u2800",
      "\u0301",
      "\uFDFA",
      "\u2469",
      "\u0430",
      "ｆ",
      "𝐚",
      "shit",
      "fuck",
      " ",
      "a",
      "😀",
    );
    const input = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.string({ unit: "binary", maxLength: 60 }),
      fc.string({ unit: "grapheme", maxLength: 45 }),
      fc.string({ unit: tricky, maxLength: 45 }),
      fc.anything(),
    );
    fc.assert(
      fc.property(input, (raw) => {
        const result = cleanShout(raw);
        if (!result.ok) {
          expect(result.reason).toBe("bad_text");
          expect(result.detail.length).toBeGreaterThan(0);
          return;
        }
        const { text } = result;
        expect(text.length).toBeGreaterThan(0);
        expect([...text].length).toBeLessThanOrEqual(SHOUT_MAX_LENGTH);
        expect(text).not.toMatch(INVISIBLE_OR_CONTROL);
        expect(text).not.toMatch(/\p{Cs}/u);
        expect(text).toBe(text.trim());
        expect(text).not.toContain("  ");
        expect(cleanShout(raw)).toEqual(result);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("cleanShout keeps other scripts readable", () => {
  it("leaves words written wholly in one non-Latin script alone", () => {
    expect(cleanShout("Привет мир")).toEqual({ ok: true, text: "Привет мир" });
    expect(cleanShout("नमस्ते")).toEqual({ ok: true, text: "नमस्ते" });
  });
  it("folds a word that mixes Latin with lookalikes from another script", () => {
    expect(cleanShout("рaypal login")).toEqual({ ok: true, text: "paypal login" });
  });
});
