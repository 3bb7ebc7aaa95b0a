// The one input rule (server/kernel/input.ts) on its own: what it finds in a parsed value, and how a body is
// read against its schema. The live sweep over every route is test/server/hostile-input.test.ts.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiError } from "../../server/errors.ts";
import { inputProblem, MAX_JSON_DEPTH, parseInput, unstorableText } from "../../server/kernel/input.ts";

const nested = (depth: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

describe("inputProblem", () => {
  it("finds U+0000 and lone surrogates in values and in field names, at any depth", () => {
    expect(inputProblem({ a: "fine", b: ["ok", { c: "😀" }] }, "the body")).toBeNull();
    expect(inputProblem({ a: "x\u0000" }, "the body")).toBe("the body.a must not contain U+0000");
    expect(inputProblem({ a: [{ b: "\ud800" }] }, "the body")).toBe(
      "the body.a[0].b must be well-formed Unicode (no lone surrogates)",
    );
    expect(inputProblem({ a: { "k\udc00": 1 } }, "the body")).toContain("a field name in the body.a");
    expect(inputProblem({ id: "\u0000" }, "the path")).toBe("the path.id must not contain U+0000");
  });

  it("refuses numbers beyond a double and nesting past the limit, without recursion", () => {
    expect(inputProblem({ n: Number.POSITIVE_INFINITY }, "the body")).toBe(
      "the body.n must be a finite number",
    );
    expect(inputProblem({ n: 1e308, m: -1e308 }, "the body")).toBeNull();
    expect(inputProblem(nested(MAX_JSON_DEPTH), "the body")).toBeNull();
    expect(inputProblem(nested(MAX_JSON_DEPTH + 1), "the body")).toContain("nested more than");
    // Far deeper than any call stack: found by walking, not by recursing.
    expect(inputProblem(nested(200_000), "the body")).toContain("nested more than");
  });

  it("tells surrogate pairs (well-formed) from lone ones", () => {
    expect(unstorableText("🤖")).toBeNull();
    expect(unstorableText("🤖".slice(0, 1))).not.toBeNull();
    expect(unstorableText("🤖".slice(1))).not.toBeNull();
  });
});

describe("parseInput", () => {
  const Body = z.object({ name: z.string(), label: z.string().optional() });

  it("reads an absent body as {}, but not a JSON null", () => {
    expect(parseInput(z.object({ label: z.string().optional() }), undefined)).toEqual({});
    expect(() => parseInput(z.object({ label: z.string().optional() }), null)).toThrow(ApiError);
  });

  it("refuses a body's unknown fields, naming them, and ignores a query's", () => {
    const refused = (() => {
      try {
        parseInput(Body, { name: "x", nmae: "y", zz: 1 });
      } catch (err) {
        return err as ApiError;
      }
      return null;
    })();
    expect(refused?.status).toBe(400);
    expect(refused?.code).toBe("bad_request");
    expect(refused?.message).toBe('unknown fields "nmae", "zz"; the fields are name, label');
    expect(parseInput(Body, { name: "x", utm: "y" }, undefined, "ignore")).toEqual({ name: "x" });
  });

  it("gives a schema failure the operation's own error", () => {
    const invalid = (m: string) => new ApiError(400, "invalid_bot", m);
    expect(() => parseInput(Body, { name: 5 }, invalid)).toThrow(
      expect.objectContaining({ code: "invalid_bot" }),
    );
  });
});
