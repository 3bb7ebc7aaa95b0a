// The replay recorder's bytes against what it wrote before it wrote bytes: each tick line against
// JSON.stringify of the line object built the old way (the state snapshot from the engine's accessors, the
// turns as `{raw}` or `{idle}`), and the whole replay (jsonl, gzip, lines) against those lines joined, over
// random matches with random inputs: garbage turns and values of every JSON form, refusals, idles,
// disqualifications of one seat and both, areas and pickups, and lines larger than the recorder's buffer.
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Engine } from "../../engine/host.ts";
import { JsonBytes, OUT_OF_ROOM, utf8ByteLength } from "../../engine/json-bytes.ts";
import { DEFAULT_DEADLINES, type TurnInput } from "../../engine/match.ts";
import type { GameEventT, ObservationT } from "../../engine/protocol.ts";
import type { ReplayInput, ReplayTick } from "../../engine/replay.ts";
import { prng } from "../helpers/prng.ts";
import { anyNumber, anyString, matchSetup, randomInput, randomMatch } from "../helpers/random-match.ts";

const utf8 = new TextEncoder();
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("JsonBytes.utf8", () => {
  it("copies text as TextEncoder encodes it, lone surrogates included, and counts its length exactly", () => {
    fc.assert(
      fc.property(anyString, fc.nat(8), (s, at) => {
        const want = utf8.encode(s);
        expect(utf8ByteLength(s)).toBe(want.length);
        const w = new JsonBytes();
        w.reset(new Uint8Array(at + want.length), at);
        w.utf8(s);
        expect(w.pos).toBe(at + want.length);
        expect(hex(w.buf.subarray(at))).toBe(hex(want));
        if (want.length > 0) {
          w.reset(new Uint8Array(at + want.length - 1), at);
          expect(() => w.utf8(s)).toThrow(OUT_OF_ROOM);
        }
      }),
      { numRuns: 3000 },
    );
  });
});

// ---- the old way: what Match.play recorded before the tick writer (engine/replay-tick-writer.ts)

function oldSnapshot(e: Engine) {
  return {
    fighters: [0, 1].map((i) => {
      const s = e.fighter(i);
      return { x: s.x, y: s.y, hp: s.hp, shield: s.shield, stunned: s.stunned, slowed: s.slowed };
    }),
    areas: e
      .areas()
      .map((a) => ({ owner: a.owner, center: [a.x, a.y], radius: a.radius, explodes_at: a.explodeTick })),
    pickups: e.pickups().map((p) => ({ kind: p.kind, tile: [p.x, p.y] })),
    zone: e.zone().radius,
  };
}

function oldTickLine(
  e: Engine,
  tick: number,
  turns: readonly ReplayInput[],
  events: readonly GameEventT[],
  disqualified: number,
): string {
  const recorded = turns.map((t) => ("idle" in t ? { idle: t.idle } : { raw: t.raw }));
  const line: ReplayTick = {
    type: "tick",
    tick,
    turns: recorded,
    state: oldSnapshot(e),
    events: [...events],
  };
  const dq = [0, 1].filter((f) => (disqualified & (1 << f)) !== 0);
  if (dq.length > 0) line.disqualified = dq;
  return JSON.stringify(line);
}

// ---- random matches

/** Values a bot may send, in every JSON form (and undefined and NaN, which a house bot's object may hold). */
const anyRaw = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  anyString,
  anyNumber,
  fc.constant(undefined),
  fc.dictionary(anyString, fc.oneof(anyNumber, anyString, fc.constant(undefined)), { maxKeys: 4 }),
  // Larger than the recorder's first buffer: a line that must grow it more than once.
  fc.constant(`big \ud800 ${"é😀x".repeat(20_000)}`),
);

/** A seat's input: a sensible or broken turn (randomInput), sometimes carrying or replaced by garbage, and with
 * probability `failing` one that counts as a failure, so seats (one or both) get disqualified. */
function input(
  r: () => number,
  o: ObservationT,
  texts: string[],
  garbage: unknown[],
  failing: number,
): TurnInput {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  if (r() < failing) return r() < 0.3 ? { idle: "timeout", ms: 5 } : { raw: pick(garbage), ms: 1 };
  const i = randomInput(r, o, texts);
  const roll = r();
  if ("raw" in i && roll < 0.1 && i.raw && typeof i.raw === "object") {
    return { raw: { ...(i.raw as object), [pick(texts)]: pick(garbage) }, ms: i.ms };
  }
  if (roll < 0.15) return { raw: pick(garbage), ms: i.ms };
  return i;
}

describe("ReplayRecorder", () => {
  it("writes every tick line, and the whole replay, exactly as JSON.stringify of the old line objects", () => {
    const seen = new Set<string>();
    let lines = 0;
    fc.assert(
      fc.property(
        matchSetup,
        fc.array(anyRaw, { minLength: 1, maxLength: 8 }),
        fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.7, noNaN: true })),
        // A failure limit of a few ticks, often, so that both seats also reach it on the same tick.
        fc.option(fc.integer({ min: 1, max: 3 })),
        (setup, garbage, failing, limit) => {
          const g =
            limit === null
              ? setup
              : {
                  ...setup,
                  deadlines: { ...(setup.deadlines ?? DEFAULT_DEADLINES), max_consecutive_failures: limit },
                };
          const m = randomMatch(g);
          const engine = (m as unknown as { engine: Engine }).engine; // the old snapshot read its accessors
          const rec = m.replay;
          // The header went through JSON.stringify as before; a round trip through JSON gives its old text.
          const old = [JSON.stringify(JSON.parse(rec.linesFrom(0)[0]!))];
          const tick = rec.tick.bind(rec);
          rec.tick = (t, turns, state, events, dq) => {
            const want = utf8.encode(`${oldTickLine(engine, t, turns, events, dq)}\n`);
            const before = rec.bytes().length;
            tick(t, turns, state, events, dq);
            const got = rec.bytes().subarray(before);
            if (hex(got) !== hex(want)) {
              // The first differing text makes a failure readable; the hex compare is the real check.
              expect(Buffer.from(got).toString()).toBe(Buffer.from(want).toString());
              expect(hex(got)).toBe(hex(want));
            }
            old.push(Buffer.from(want).toString().slice(0, -1));
            note(seen, turns, events, dq, engine);
            lines++;
          };
          const input_ = rec.input.bind(rec);
          rec.input = (line) => {
            old.push(JSON.stringify(line));
            input_(line);
          };
          const end = rec.end.bind(rec);
          rec.end = (line) => {
            old.push(JSON.stringify({ type: "end", ...line }));
            end(line);
          };

          const r = prng(g.inputSeed);
          for (let t = 0; t < g.ticks && !m.over; t++) {
            const obs = [m.observation(0), m.observation(1)];
            m.play([
              input(r, obs[0]!, g.texts, garbage, failing),
              input(r, obs[1]!, g.texts, garbage, failing),
            ]);
          }
          if (!m.over && r() < 0.3) m.disqualify([Math.floor(r() * 2)]);
          if (!m.over && r() < 0.3) m.abort("test");

          const jsonl = `${old.join("\n")}\n`;
          expect(rec.jsonl()).toBe(jsonl);
          expect(hex(rec.bytes())).toBe(hex(utf8.encode(jsonl)));
          expect(hex(rec.gzip())).toBe(hex(gzipSync(jsonl, { level: 6 })));
          expect(rec.lineCount).toBe(old.length);
          const since = Math.floor(r() * (old.length + 2));
          expect(rec.linesFrom(since)).toEqual(old.slice(since));
        },
      ),
      // A fixed seed: the coverage checked below (how many lines, which kinds) must not depend on the draw
      // (with a random seed a run now and then wrote fewer than 5,000 lines).
      { numRuns: 150, seed: 20261125 },
    );
    expect(lines).toBeGreaterThan(5000);
    expect([...seen].sort()).toEqual(
      [
        "idle timeout",
        "idle disconnected",
        "raw undefined",
        "raw text",
        "refused turn",
        "disqualified 1",
        "disqualified 2",
        "disqualified 3",
        "area",
        "pickup",
        "event shout",
        "event hit",
      ].sort(),
    );
  });
});

/** Which branches of the tick line this tick exercises. */
function note(
  seen: Set<string>,
  turns: readonly ReplayInput[],
  events: readonly GameEventT[],
  dq: number,
  e: Engine,
): void {
  for (const t of turns) {
    if ("idle" in t) seen.add(`idle ${t.idle}`);
    else if (t.raw === undefined) seen.add("raw undefined");
    else if (typeof t.raw === "string") seen.add("raw text");
  }
  for (const ev of events) {
    if (ev.type === "rejected" && ev.part === "turn") seen.add("refused turn");
    if (ev.type === "shout" || ev.type === "hit") seen.add(`event ${ev.type}`);
  }
  if (dq !== 0) seen.add(`disqualified ${dq}`);
  if (e.areas().length > 0) seen.add("area");
  if (e.pickups().length > 0) seen.add("pickup");
}
