// Bad turns get the SPEC's refusals, part by part, and the match always goes on.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TurnInput } from "../../engine/match.ts";
import type { GameEventT } from "../../engine/protocol.ts";
import { verifyReplay } from "../../engine/verify.ts";
import { scenario } from "../helpers/scenario.ts";

const refusals = (events: GameEventT[], by: number) =>
  events
    .filter((e) => e.type === "rejected" && e.by === by)
    .map((e) => e.type === "rejected" && [e.part, e.reason]);

describe("turn validation", () => {
  it("refuses a whole message that is not a turn with part `turn`, reason `schema`", () => {
    for (const raw of ["not json", [1, 2], null, 42, { type: "ping" }, { type: "turn" }, { tick: 0 }]) {
      const s = scenario({ a: [5, 10], b: [12, 10] });
      const inputs: TurnInput[] = [];
      inputs[s.A] = { raw, ms: 1 };
      inputs[s.B] = { raw: { type: "turn", tick: 0 }, ms: 1 };
      const ev = s.m.play(inputs as [TurnInput, TurnInput]);
      expect(refusals(ev, s.A)).toEqual([["turn", "schema"]]);
      expect(s.m.stats().fighters[s.A]).toMatchObject({
        refused_turns: 1,
        refused_turns_by_reason: { schema: 1 },
      });
    }
  });

  it("refuses a turn for another tick and says which tick it is", () => {
    const s = scenario({ a: [5, 10], b: [12, 10] });
    s.play();
    const ev = s.play({ tick: 0 } as never);
    expect(ev.find((e) => e.type === "rejected")).toMatchObject({
      part: "turn",
      reason: "schema",
      detail: "turn.tick is 0, this tick is 1",
    });
  });

  it("refuses an unknown attack without cancelling the movement", () => {
    const s = scenario({ a: [5, 10], b: [12, 10] });
    const ev = s.play({ move: "N", attack: { name: "lightning", target: [12, 10] } });
    expect(refusals(ev, s.A)).toEqual([["attack", "unknown_attack"]]);
    expect(s.m.observation(s.A).self).toMatchObject({ x: 5, y: 9 });
  });

  it("refuses move and dash together as `conflicting_moves` but still attacks", () => {
    const s = scenario({ a: [5, 10], b: [12, 10] });
    const ev = s.play({ move: "N", dash: "S", attack: { name: "ranged", target: [12, 10] } });
    expect(refusals(ev, s.A)).toEqual([
      ["move", "conflicting_moves"],
      ["dash", "conflicting_moves"],
    ]);
    expect(ev.some((e) => e.type === "hit" && e.by === s.A)).toBe(true);
  });

  it("refuses out-of-range and malformed targets and unknown directions with `schema`", () => {
    for (const target of [[30, 5], [-1, 0], [1.5, 2], "12,10", [1], null]) {
      const s = scenario({ a: [5, 10], b: [12, 10] });
      const ev = s.play({ attack: { name: "ranged", target } as never });
      expect(refusals(ev, s.A)).toEqual([["attack", "schema"]]);
    }
    const s = scenario({ a: [5, 10], b: [12, 10] });
    expect(refusals(s.play({ move: "UP" } as never), s.A)).toEqual([["move", "schema"]]);
  });

  it("refuses oversize, blank and non-string shouts with `bad_text`", () => {
    for (const shout of ["x".repeat(41), "   ", "\u200b", 7]) {
      const s = scenario({ a: [5, 10], b: [12, 10] });
      expect(refusals(s.play({ shout } as never), s.A)).toEqual([["shout", "bad_text"]]);
    }
  });

  it("disqualifies after ten consecutive failed ticks; a good turn resets the count", () => {
    const s = scenario({ a: [5, 10], b: [15, 10], walls: [[10, 10]] });
    const send = (raw: unknown) => {
      const inputs: TurnInput[] = [];
      inputs[s.A] = raw === "timeout" ? { idle: "timeout", ms: 1000 } : { raw, ms: 1 };
      inputs[s.B] = { raw: { type: "turn", tick: s.m.tick }, ms: 1 };
      s.m.play(inputs as [TurnInput, TurnInput]);
    };
    for (let i = 0; i < 9; i++) send("timeout");
    send({ type: "turn", tick: s.m.tick });
    for (let i = 0; i < 9; i++) send(i % 2 ? "garbage" : "timeout");
    expect(s.m.over).toBe(false);
    send({ type: "ping" });
    expect(s.m.result).toEqual({ winner: s.B, reason: "disqualified", finalTick: 20 });
    const st = s.m.stats().fighters[s.A]!;
    expect(st.disqualified).toBe(true);
    expect(st.server_idles).toEqual({ timeout: 14 });
    expect(st.refused_turns).toBe(5);
  });

  it("counts disconnected runs once each", () => {
    const s = scenario({ a: [5, 10], b: [15, 10] });
    const idle = (reason: "disconnected" | "timeout") => {
      const inputs: TurnInput[] = [];
      inputs[s.A] = { idle: reason, ms: 0 };
      inputs[s.B] = { raw: { type: "turn", tick: s.m.tick }, ms: 1 };
      s.m.play(inputs as [TurnInput, TurnInput]);
    };
    idle("disconnected");
    idle("disconnected");
    idle("timeout");
    idle("disconnected");
    expect(s.m.stats().fighters[s.A]).toMatchObject({
      disconnects: 2,
      server_idles: { disconnected: 3, timeout: 1 },
    });
  });
});

describe("random input never breaks a match", () => {
  const anyTurn = fc.oneof(
    fc.jsonValue(),
    fc.string(),
    fc.record(
      {
        type: fc.constantFrom("turn", "turn", "turn", "queue", "ping"),
        tick: fc.oneof(fc.nat(400), fc.double()),
        move: fc.oneof(fc.constantFrom("N", "NE", "E", "SE", "S", "SW", "W", "NW"), fc.string()),
        dash: fc.constantFrom("N", "E", "S", "W", "up"),
        attack: fc.record(
          {
            name: fc.constantFrom("ranged", "frostburst", "repulsor", "nuke"),
            target: fc.oneof(
              fc.tuple(fc.integer({ min: -3, max: 25 }), fc.integer({ min: -3, max: 25 })),
              fc.jsonValue(),
            ),
          },
          { requiredKeys: [] },
        ),
        shout: fc.string({ maxLength: 50 }),
      },
      { requiredKeys: [] },
    ),
  );

  it("plays to the end, keeps stats consistent and verifies, whatever the bots send", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(anyTurn, anyTurn), { minLength: 5, maxLength: 60 }),
        fc.integer(),
        (turns, seed) => {
          const s = scenario({ a: [5, 10], b: [9, 10], seed });
          for (const [a, b] of turns) {
            if (s.m.over) break;
            // Keep the tick right half the time so valid-looking turns reach the engine.
            const fix = (t: unknown) =>
              t &&
              typeof t === "object" &&
              !Array.isArray(t) &&
              (t as { tick?: unknown }).tick !== undefined &&
              seed % 2 === 0
                ? { ...t, tick: s.m.tick }
                : t;
            const inputs: TurnInput[] = [];
            inputs[s.A] = { raw: fix(a), ms: 1 };
            inputs[s.B] = { raw: fix(b), ms: 1 };
            s.m.play(inputs as [TurnInput, TurnInput]);
          }
          if (!s.m.over) s.m.forfeit([s.B]);
          const st = s.m.stats();
          for (const f of st.fighters) expect(f.hp).toBeLessThanOrEqual(100);
          expect(verifyReplay(s.m.replay.gzip())).toMatchObject({ ok: true });
        },
      ),
      { numRuns: 150 },
    );
  });
});
