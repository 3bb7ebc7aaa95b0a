// A feature declares its own live limits (issue 32: "its settings keys"): the settings service built with the
// feature list knows their defaults, checks overrides against their bounds, lets a ladder set only the ones
// marked for ladders, and lists them for the console after the core's, in the feature list's order.
import { describe, expect, it } from "vitest";
import { testConfig } from "../../server/config.ts";
import { ApiError } from "../../server/errors.ts";
import { FEATURES } from "../../server/features.ts";
import { featureLimits } from "../../server/kernel/feature.ts";
import { defaultLimits, Settings } from "../../server/kernel/settings.ts";

const bad = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return (e as ApiError).message;
  }
  throw new Error("accepted");
};

describe("feature-declared limits", () => {
  const core = defaultLimits(testConfig({}));

  it("the scrimmages feature's limits come from its declaration, after the core's", () => {
    const s = new Settings(core, featureLimits(FEATURES));
    expect(s.defaults.scrimmagesAtOncePerOwner).toBe(2);
    expect(s.defaults.scrimmagesPerHourPerOwner).toBe(120);
    const names = Object.keys(s.specs);
    expect(names.slice(0, Object.keys(core).length)).toEqual(Object.keys(core));
    expect(names.slice(-2)).toEqual(["scrimmagesAtOncePerOwner", "scrimmagesPerHourPerOwner"]);
    expect(s.ladderLimits).not.toContain("scrimmagesAtOncePerOwner");
  });

  it("checks a feature's limit against its bounds, and keeps it off ladders unless it says so", () => {
    const features = {
      widgetsPerDay: { min: 1, max: 10, unit: null, about: "widgets", default: 3 },
      widgetDelayMs: { min: 0, max: 1000, unit: "ms", about: "delay", default: 5, ladder: true },
    } as const;
    const s = new Settings(core, features);
    expect(s.limits()).toMatchObject({ widgetsPerDay: 3, widgetDelayMs: 5 });
    expect(s.validate({ global: { widgetsPerDay: 10 } }, ["public"]).global).toEqual({ widgetsPerDay: 10 });
    expect(bad(() => s.validate({ global: { widgetsPerDay: 11 } }, ["public"]))).toContain(
      "global.widgetsPerDay",
    );
    expect(bad(() => s.validate({ ladders: { public: { widgetsPerDay: 2 } } }, ["public"]))).toContain(
      "ladders.public",
    );
    const o = s.validate({ ladders: { public: { widgetDelayMs: 7 } } }, ["public"]);
    s.apply({ revision: 1, overrides: o, updated: null, updated_by: null });
    expect(s.limits("public")).toMatchObject({ widgetDelayMs: 7, widgetsPerDay: 3 });
    expect(s.limits()).toMatchObject({ widgetDelayMs: 5 });
  });

  it("refuses a limit declared twice (a feature may not redefine the core's)", () => {
    expect(
      () => new Settings(core, { tick_ms: { min: 1, max: 2, unit: "ms", about: "again", default: 1 } }),
    ).toThrow(/declared twice/);
  });
});
