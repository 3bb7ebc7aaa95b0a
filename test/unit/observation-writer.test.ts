// The observation writer against JSON.stringify, byte for byte. Its JSON primitives first (strings with every
// kind of code unit, numbers of every form, plain values), then whole observations from thousands of match
// states reached by running the real engine with random seeds, maps, names, deadlines and turns, broken turns
// and server idles included, so that every event kind and observation branch is written.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeJson, JsonBytes, jsonStringByteLength, OUT_OF_ROOM } from "../../engine/json-bytes.ts";
import type { ObservationT } from "../../engine/protocol.ts";
import { prng } from "../helpers/prng.ts";
import { anyNumber, anyString, matchSetup, randomInput, randomMatch } from "../helpers/random-match.ts";

const utf8 = new TextEncoder();
const stringified = (v: unknown) => utf8.encode(JSON.stringify(v));
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

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

describe("ObservationWriter", () => {
  it("writes every observation of random matches exactly as JSON.stringify + TextEncoder do", () => {
    const buf = new Uint8Array(1 << 16);
    let states = 0;
    const seen = new Set<string>();
    fc.assert(
      fc.property(matchSetup, (g) => {
        const m = randomMatch(g);
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
      // A fixed seed: the coverage checked below must not depend on the draw.
      { numRuns: 60, seed: 20261125 },
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
