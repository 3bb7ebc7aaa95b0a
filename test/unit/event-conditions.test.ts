// The achievement condition vocabulary (docs/events.md) and the manifest's event rules: conditions evaluated
// over match facts (filters, counts, distinct opponents and maps, progress, evidence and the earned time), and
// manifests that break a rule refused with a message naming it.
import { describe, expect, it } from "vitest";
import { evaluate, type MatchFacts } from "../../server/events/definition.ts";
import { Condition } from "../../server/ladders/event-definition.ts";
import defaultManifest from "../../server/ladders/ladders.json" with { type: "json" };
import { ManifestError, parseManifest } from "../../server/ladders/manifest.ts";

const OFFICIAL = ["kiter", "brawler", "champion"];
let n = 0;
const fact = (over: Partial<MatchFacts> = {}): MatchFacts => ({
  match_id: `m${++n}`,
  ended: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
  bot_id: "b",
  bot_name: "bot",
  version: "v1",
  opponent: "kiter",
  opponent_house: true,
  map: "arena",
  result: "loss",
  reason: "last_standing",
  stats: { ticks: 100, damage_taken: 50, ricochet_hits: 0 },
  ...over,
});
const cond = (c: unknown) => Condition.parse(c);

describe("conditions over match facts", () => {
  it("counts only official opponents by default, any or named ones when asked", () => {
    const facts = [fact({ opponent: "someone", opponent_house: false }), fact()];
    expect(evaluate(cond({}), facts, OFFICIAL)).toMatchObject({ met: true, evidence: [facts[1]!.match_id] });
    expect(evaluate(cond({ opponent: "any", matches: 2 }), facts, OFFICIAL).met).toBe(true);
    expect(evaluate(cond({ opponent: ["brawler"] }), facts, OFFICIAL)).toMatchObject({
      met: false,
      progress: { current: 0, target: 1 },
      completedAt: null,
    });
  });
  it("filters by result, reason, map, version and stat ranges", () => {
    const win = fact({
      result: "win",
      map: "pillars",
      version: "v2",
      stats: { ticks: 80, damage_taken: 10, ricochet_hits: 2 },
    });
    const facts = [fact(), win];
    const c = cond({
      result: ["win"],
      reason: ["last_standing"],
      map: ["pillars"],
      version: ["v2"],
      stats: { damage_taken: { max: 20 }, ricochet_hits: { min: 1 } },
    });
    expect(evaluate(c, facts, OFFICIAL)).toMatchObject({
      met: true,
      evidence: [win.match_id],
      completedAt: win.ended,
    });
    expect(evaluate(cond({ stats: { healed: { min: 1 } } }), facts, OFFICIAL).met).toBe(false);
    expect(evaluate(cond({ result: ["draw"] }), facts, OFFICIAL).met).toBe(false);
  });
  it("needs the counts: matches, distinct opponents and maps, with progress toward the furthest behind", () => {
    const a = fact({ opponent: "kiter", map: "arena" });
    const b = fact({ opponent: "kiter", map: "pillars" });
    const c = fact({ opponent: "brawler", map: "arena" });
    const three = cond({ matches: 3 });
    expect(evaluate(three, [a, b], OFFICIAL)).toMatchObject({
      met: false,
      progress: { current: 2, target: 3 },
    });
    const r = evaluate(three, [c, b, a], OFFICIAL);
    expect(r).toMatchObject({
      met: true,
      evidence: [a.match_id, b.match_id, c.match_id],
      completedAt: c.ended,
    });
    const opp = cond({ distinct_opponents: 2 });
    expect(evaluate(opp, [a, b], OFFICIAL)).toMatchObject({
      met: false,
      progress: { current: 1, target: 2 },
    });
    expect(evaluate(opp, [a, b, c], OFFICIAL)).toMatchObject({
      met: true,
      evidence: [a.match_id, c.match_id],
      completedAt: c.ended,
    });
    // One target from the first match to the last, whichever count is furthest behind.
    const mixed = cond({ matches: 5, distinct_opponents: 3 });
    const kiters = [1, 2, 3, 4].map(() => fact({ opponent: "kiter" }));
    const seen = [0, 1, 2, 3, 4].map((k) => evaluate(mixed, kiters.slice(0, k), OFFICIAL).progress);
    expect(seen).toEqual([0, 1, 1, 1, 1].map((current) => ({ current, target: 5 })));
    expect(evaluate(cond({ distinct_opponents: 3 }), [], OFFICIAL).progress).toEqual({
      current: 0,
      target: 3,
    });
    expect(evaluate(cond({ distinct_opponents: 3 }), [a], OFFICIAL).progress).toEqual({
      current: 1,
      target: 3,
    });
    expect(evaluate(cond({ distinct_maps: 2 }), [a, c], OFFICIAL).met).toBe(false);
    expect(evaluate(cond({ distinct_maps: 2 }), [a, b], OFFICIAL).met).toBe(true);
  });
  it("refuses unknown words of the vocabulary", () => {
    expect(Condition.safeParse({ stats: { luck: { min: 1 } } }).success).toBe(false);
    expect(Condition.safeParse({ result: ["victory"] }).success).toBe(false);
    expect(Condition.safeParse({ stats: { ticks: {} } }).success).toBe(false);
    expect(Condition.safeParse({ stats: { ticks: { min: 5, max: 1 } } }).success).toBe(false);
    expect(Condition.safeParse({ when: "always" }).success).toBe(false);
  });
});

describe("events in the manifest", () => {
  const base = structuredClone(defaultManifest) as {
    ladders: Record<string, unknown>[];
    events: Record<string, unknown>[];
  };
  const bad = (change: (m: typeof base) => void, message: RegExp) => {
    const m = structuredClone(base);
    change(m);
    expect(() => parseManifest(m)).toThrow(ManifestError);
    expect(() => parseManifest(m)).toThrow(message);
  };
  it("ships a practice event on Public against the house bots", () => {
    const m = parseManifest(defaultManifest);
    const practice = m.events!.find((e) => e.id === "practice")!;
    expect(practice).toMatchObject({ ladder_id: "public", flag_mode: "testing" });
    expect(practice.achievements).toHaveLength(5);
    expect(practice.opponents.map((o) => o.name).sort()).toEqual([
      "brawler",
      "champion",
      "kiter",
      "ts-starter",
    ]);
  });
  it("refuses events that break a rule", () => {
    bad(
      (m) => (m.events[0]!.achievements = (m.events[0]!.achievements as unknown[]).slice(0, 4)),
      /five achievements/,
    );
    bad((m) => (m.events[0]!.ladder_id = "nowhere"), /no ladder "nowhere"/);
    bad((m) => (m.events[0]!.closes_at = null), /needs its own opens_at and closes_at/);
    bad((m) => m.events.push(structuredClone(m.events[0]!)), /defined twice/);
    bad((m) => (m.events[0]!.timezone = "Mars/Olympus"), /IANA zone/);
    bad((m) => (m.events[0]!.submission_url = "http://example.com"), /HTTPS/);
    bad(
      (m) => (m.events[0]!.opponents = (m.events[0]!.opponents as unknown[]).slice(0, 1)),
      /not one of the event's opponents/,
    );
    bad((m) => {
      m.ladders.push({
        id: "cup",
        name: "Cup",
        opens_at: "2027-01-01T00:00:00Z",
        closes_at: "2027-01-02T00:00:00Z",
      });
      m.events[0]!.ladder_id = "cup";
    }, /shares that ladder's window/);
    bad((m) => {
      m.ladders.push({ id: "cup", name: "Cup" });
      Object.assign(m.events[0]!, { ladder_id: "cup", opens_at: null, closes_at: null });
    }, /needs opens_at and closes_at/);
  });
});
