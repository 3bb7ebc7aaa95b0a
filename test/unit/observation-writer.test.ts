// The observation writer against JSON.stringify, byte for byte. Its JSON primitives first (strings with every
// kind of code unit, numbers of every form, plain values), then whole observations from thousands of match
// states reached by running the real engine with random seeds, maps, names, deadlines and turns, broken turns
// and server idles included, so that every event kind and observation branch is written.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeJson, JsonBytes, jsonStringByteLength, OUT_OF_ROOM } from "../../engine/json-bytes.ts";
import { DEFAULT_DEADLINES, Match, type TurnInput } from "../../engine/match.ts";
import type { DeadlinesT, ObservationT } from "../../engine/protocol.ts";
import { DIRECTIONS, MAP_NAMES, RULES } from "../../engine/rules.ts";
import { prng } from "../helpers/prng.ts";

const utf8 = new TextEncoder();
const stringified = (v: unknown) => utf8.encode(JSON.stringify(v));
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** Any UTF-16 code unit (lone surrogates included), any code point, and the characters JSON must escape. */
const unit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  fc.constantFrom('"', "\\", "/", "\n", "\r", "\t", "\b", "\f", "\u0000", "\u001f", "\u007f", "\u2028"),
  fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff", "😀", "é", "€", "a"),
);
const anyString = fc.string({ unit, maxLength: 40 });

/** Number forms JSON.stringify writes differently: -0, exponents both ways, int32 edges, fractions. */
const anyNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(-0, 2 ** 31, -(2 ** 31), 2 ** 31 - 1, 1e21, 1e-7, 123e-20, 5e-324, Number.MAX_VALUE),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.1 + 0.2, -1.5),
);

describe("JsonBytes", () => {
  it("writes strings as JSON.stringify and TextEncoder do, and counts their length exactly", () => {
    fc.assert(
      fc.property(anyString, (s) => {
        const bytes = encodeJson((w) => w.string(s));
        expect(hex(bytes)).toBe(hex(stringified(s)));
        expect(jsonStringByteLength(s)).toBe(bytes.length);
      }),
      { numRuns: 3000 },
    );
  });

  it("writes numbers as JSON.stringify does", () => {
    fc.assert(
      fc.property(anyNumber, (x) => {
        expect(Buffer.from(encodeJson((w) => w.number(x))).toString()).toBe(JSON.stringify(x));
      }),
      { numRuns: 5000 },
    );
  });

  it("writes plain JSON values as JSON.stringify does (key order, undefined members, nesting)", () => {
    const value = fc
      .jsonValue({ maxDepth: 3 })
      .chain((v) =>
        fc.oneof(
          fc.constant(v),
          fc.dictionary(anyString, fc.oneof(anyNumber, anyString, fc.constant(undefined))),
        ),
      );
    fc.assert(
      fc.property(value, (v) => {
        expect(hex(encodeJson((w) => w.value(v)))).toBe(hex(stringified(v)));
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses to write past its buffer, exactly at the length needed", () => {
    fc.assert(
      fc.property(fc.oneof(anyString, anyNumber, fc.jsonValue({ maxDepth: 2 })), fc.nat(8), (v, at) => {
        const need = stringified(v).length;
        const w = new JsonBytes();
        const tight = new Uint8Array(at + need);
        w.reset(tight, at);
        w.value(v);
        expect(w.pos).toBe(at + need);
        const short = new Uint8Array(at + need - 1);
        w.reset(short, at);
        expect(() => w.value(v)).toThrow(OUT_OF_ROOM);
      }),
      { numRuns: 2000 },
    );
  });
});

// ---- whole observations from running matches

const deadlines: fc.Arbitrary<DeadlinesT> = fc.record({
  startup_ms: fc.constant(10_000),
  // Non-integers and extremes reach tick_ms and budget_ms_left in every number form.
  tick_ms: fc.oneof(fc.constant(1000), fc.integer({ min: 0, max: 5000 }), fc.double({ min: 0, max: 1e22 })),
  match_budget_ms: fc.oneof(
    fc.constant(300_000),
    fc.integer({ min: 0, max: 20_000 }),
    fc.double({ min: 0, max: 5000, noNaN: true }),
    fc.constantFrom(1e-7, 1e21, 0.5),
  ),
  max_consecutive_failures: fc.integer({ min: 1, max: 30 }),
  reconnect_grace_ms: fc.constant(10_000),
});

const matchSetup = fc.record({
  seed: fc.integer(),
  map: fc.constantFrom(...MAP_NAMES),
  matchId: anyString,
  names: fc.tuple(anyString, anyString),
  displayNames: fc.tuple(anyString, anyString),
  deadlines: fc.option(deadlines, { freq: 2 }),
  /** A quicker or harmless zone, so that matches also reach the zone's smallest radius alive. */
  zone: fc.option(
    fc.record({
      start_tick: fc.integer({ min: 0, max: 130 }),
      interval: fc.integer({ min: 1, max: 12 }),
      min_radius: fc.integer({ min: 0, max: 4 }),
      damage: fc.integer({ min: 0, max: 6 }),
    }),
    { freq: 2 },
  ),
  /** Text a broken or chatty bot puts in its turns: shouts, unknown directions and attacks, non-JSON. */
  texts: fc.array(anyString, { minLength: 1, maxLength: 6 }),
  inputSeed: fc.integer(),
  ticks: fc.integer({ min: 1, max: 400 }),
});

/** One seat's input for this tick: mostly sensible turns from its observation, with every kind of breakage. */
function randomInput(r: () => number, o: ObservationT, texts: string[]): TurnInput {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const ms = r() < 0.05 ? r() * 20_000 : r() * 40;
  const roll = r();
  if (roll < 0.04) return { idle: r() < 0.5 ? "timeout" : "disconnected", ms };
  if (roll < 0.06) return { raw: pick(texts), ms }; // text that did not parse
  if (roll < 0.08) return { raw: pick([null, 7, [1, 2], { type: pick(texts) }, { type: "turn" }]), ms };
  if (roll < 0.1) return { raw: { type: "turn", tick: o.tick + 1 }, ms };
  const t: Record<string, unknown> = { type: "turn", tick: o.tick };
  const m = r();
  if (m < 0.5 && o.moves.length > 0) t.move = pick(o.moves).dir;
  else if (m < 0.7 && o.dashes.length > 0) t.dash = pick(o.dashes).dir;
  else if (m < 0.75) t.move = pick(texts);
  else if (m < 0.78) t.move = pick(DIRECTIONS);
  if (m < 0.02) t.dash = pick(DIRECTIONS); // move and dash together
  const opp = o.opponents[0]!;
  const a = r();
  const target = opp.visible && r() < 0.8 ? [opp.x, opp.y] : [Math.floor(r() * 23) - 1, Math.floor(r() * 21)];
  if (a < 0.25) t.attack = { name: "ranged", target };
  else if (a < 0.4) t.attack = { name: "frostburst", target };
  else if (a < 0.55) t.attack = { name: "repulsor" };
  else if (a < 0.58) t.attack = { name: pick(texts), target };
  else if (a < 0.6) t.attack = pick(["ranged", null, { name: "ranged", target: "3,4" }]);
  if (r() < 0.08) t.shout = r() < 0.9 ? pick(texts) : 42;
  return { raw: t, ms };
}

describe("ObservationWriter", () => {
  it("writes every observation of random matches exactly as JSON.stringify + TextEncoder do", () => {
    const buf = new Uint8Array(1 << 16);
    let states = 0;
    const seen = new Set<string>();
    fc.assert(
      fc.property(matchSetup, (g) => {
        const m = new Match({
          matchId: g.matchId,
          seed: g.seed,
          map: g.map,
          deadlines: g.deadlines ?? DEFAULT_DEADLINES,
          rules: g.zone
            ? ({ ...RULES, zone: { ...RULES.zone, ...g.zone } } as unknown as typeof RULES)
            : RULES,
          fighters: [
            { name: g.names[0], display_name: g.displayNames[0], version: "1" },
            { name: g.names[1], display_name: g.displayNames[1], version: "1" },
          ],
        });
        const r = prng(g.inputSeed);
        const check = (f: number): ObservationT => {
          const o = m.observation(f);
          const want = stringified(o);
          const at = Math.floor(r() * 64);
          const end = m.writeObservation(f, buf, at);
          expect(end - at).toBe(want.length);
          if (hex(buf.subarray(at, end)) !== hex(want)) {
            // The first differing text makes a failure readable; the hex compare above is the real check.
            expect(Buffer.from(buf.subarray(at, end)).toString()).toBe(Buffer.from(want).toString());
          }
          if (r() < 0.02) expect(m.writeObservation(f, new Uint8Array(at + want.length - 1), at)).toBe(-1);
          states++;
          note(seen, o);
          return o;
        };
        for (let t = 0; t < g.ticks && !m.over; t++) {
          const obs = [check(0), check(1)];
          m.play([randomInput(r, obs[0]!, g.texts), randomInput(r, obs[1]!, g.texts)]);
        }
        check(0);
        check(1);
      }),
      { numRuns: 60 },
    );
    expect(states).toBeGreaterThan(5000);
    // The matches reached every branch the writer has, so the byte equality above covers all of them.
    expect([...seen].sort()).toEqual(
      [
        ...[
          "move",
          "attack",
          "hit",
          "rejected",
          "shout",
          "area_spawn",
          "area_explode",
          "zone_damage",
          "zone_shrink",
          "repulse",
          "pickup",
          "pickup_spawn",
          "status",
          "death",
        ].map((e) => `event ${e}`),
        "opponent visible",
        "last_seen",
        "area",
        "danger zone",
        "danger frostburst",
        "pickup",
        "zone at its minimum",
        "tick_ms not an integer",
        "budget spent",
        "no moves",
        "dash",
      ].sort(),
    );
  });
});

/** Which branches of the observation this state exercises. */
function note(seen: Set<string>, o: ObservationT): void {
  for (const e of o.events) seen.add(`event ${e.type}`);
  const opp = o.opponents[0]!;
  if (opp.visible) seen.add("opponent visible");
  if (opp.last_seen) seen.add("last_seen");
  if (o.areas.length > 0) seen.add("area");
  for (const d of o.danger) seen.add(`danger ${d.source}`);
  if (o.pickups.length > 0) seen.add("pickup");
  if (o.zone.next_radius === null) seen.add("zone at its minimum");
  if (!Number.isInteger(o.tick_ms)) seen.add("tick_ms not an integer");
  if (o.budget_ms_left < 0) seen.add("budget spent");
  if (o.moves.length === 0) seen.add("no moves");
  if (o.dashes.length > 0) seen.add("dash");
}
