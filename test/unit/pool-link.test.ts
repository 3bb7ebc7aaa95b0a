// The worker link's byte layout (pool/link.ts): what the front writes is what the worker reads, in order,
// across growth of the buffer, for every kind of input and for observations written in place.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TurnInput } from "../../engine/match.ts";
import { LinkWriter, parseMessage, readBatch, type SeatInput } from "../../pool/link.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

type Seen =
  | { c: number; m: unknown }
  | { t: number; tick: number; inputs: (TurnInput | null)[]; expired: number }
  | { o: number; tick: number; obs: (string | null)[]; deadlines: number[] };

function read(batch: unknown[]): Seen[] {
  const seen: Seen[] = [];
  readBatch(batch, {
    control: (key, m) => seen.push({ c: key, m }),
    turns: (key, tick, inputs, expired) =>
      seen.push({ t: key, tick, inputs: inputs.map((i) => (i ? { ...i } : null)), expired }),
    observe: (key, tick, obs, deadlines) =>
      seen.push({ o: key, tick, obs: obs.map((b) => (b ? dec.decode(b) : null)), deadlines: [...deadlines] }),
  });
  return seen;
}

/** Structured clone and transfer, as postMessage does, so a test sees what the other thread sees. */
function post(batch: [ArrayBuffer, ...unknown[]]): unknown[] {
  return structuredClone(batch, { transfer: [batch[0]] });
}

describe("worker link bytes", () => {
  it("carries turns exactly as the socket read them, and parses them as the socket tier does", () => {
    const w = new LinkWriter(64);
    const turn = '{"type":"turn","tick":7,"move":"N","shout":"héllo ✓"}';
    w.turns(
      3,
      7,
      [
        { raw: null, ms: 1.5, bytes: enc.encode(turn) },
        { idle: "timeout", ms: 250 },
      ],
      0,
    );
    w.turns(
      4,
      9,
      [
        { raw: "not json", ms: 2 },
        { raw: null, ms: 3 },
      ],
      2,
    );
    w.turns(5, 1, [{ raw: { type: "turn", tick: 1 }, ms: 0 }, null], 3);
    w.turns(
      6,
      2,
      [
        { idle: "disconnected", ms: 100 },
        { raw: 5, ms: 0.25 },
      ],
      1,
    );
    expect(read(post(w.take()))).toEqual([
      {
        t: 3,
        tick: 7,
        inputs: [
          { raw: JSON.parse(turn), ms: 1.5 },
          { idle: "timeout", ms: 250 },
        ],
        expired: 0,
      },
      // Text that is not JSON stays text; a binary frame (raw null without bytes) stays null.
      {
        t: 4,
        tick: 9,
        inputs: [
          { raw: "not json", ms: 2 },
          { raw: null, ms: 3 },
        ],
        expired: 2,
      },
      { t: 5, tick: 1, inputs: [{ raw: { type: "turn", tick: 1 }, ms: 0 }, null], expired: 3 },
      {
        t: 6,
        tick: 2,
        inputs: [
          { idle: "disconnected", ms: 100 },
          { raw: 5, ms: 0.25 },
        ],
        expired: 1,
      },
    ]);
  });

  it("keeps controls in their place among the ticks", () => {
    const w = new LinkWriter(16);
    w.control(1, { t: "start", ready: [true, false] });
    w.turns(1, 0, [{ idle: "timeout", ms: 1 }, null], 0);
    w.control(2, { t: "peek", id: 4, since: 0 });
    w.control(1, { t: "abort", why: "x" });
    const seen = read(post(w.take()));
    expect(seen.map((s) => ("c" in s ? `c${s.c}` : "t" in s ? `t${s.t}` : "o"))).toEqual([
      "c1",
      "t1",
      "c2",
      "c1",
    ]);
    expect(seen[2]).toEqual({ c: 2, m: { t: "peek", id: 4, since: 0 } });
    expect(w.empty).toBe(true);
  });

  it("writes observations in place, growing the buffer when one does not fit", () => {
    const w = new LinkWriter(32);
    const texts = ['{"type":"observation","tick":1}', "x".repeat(5000), '{"é":"✓"}'];
    let calls = 0;
    const writer = (text: string) => (_f: number, out: Uint8Array, at: number) => {
      calls++;
      const b = enc.encode(text);
      if (at + b.length > out.length) return -1;
      out.set(b, at);
      return at + b.length;
    };
    w.observe(1, 1, 250, 249.5, writer(texts[0]!), true, false);
    w.observe(2, 8, 10, 20, writer(texts[1]!), true, true);
    w.observe(3, 9, 0, 0, writer(texts[2]!), false, true);
    expect(read(post(w.take()))).toEqual([
      { o: 1, tick: 1, obs: [texts[0], null], deadlines: [250, 249.5] },
      { o: 2, tick: 8, obs: [texts[1], texts[1]], deadlines: [10, 20] },
      { o: 3, tick: 9, obs: [null, texts[2]], deadlines: [0, 0] },
    ]);
    expect(calls).toBeGreaterThan(4); // the long one did not fit at first
  });

  it("round-trips any sequence of records", () => {
    const input: fc.Arbitrary<SeatInput | null> = fc.oneof(
      fc.constant(null),
      fc.record({
        idle: fc.constantFrom("timeout" as const, "disconnected" as const),
        ms: fc.double({ noNaN: true }),
      }),
      fc.record({ raw: fc.jsonValue(), ms: fc.double({ min: 0, max: 1e6, noNaN: true }) }),
      fc.string().map((s) => ({ raw: null, ms: 1, bytes: enc.encode(s) })),
    );
    const record = fc.oneof(
      fc.record({ kind: fc.constant("c" as const), key: fc.nat(), m: fc.jsonValue() }),
      fc.record({
        kind: fc.constant("t" as const),
        key: fc.nat(),
        tick: fc.nat(),
        inputs: fc.tuple(input, input),
        expired: fc.integer({ min: 0, max: 3 }),
      }),
      fc.record({
        kind: fc.constant("o" as const),
        key: fc.nat(),
        tick: fc.nat(),
        obs: fc.tuple(fc.option(fc.string()), fc.option(fc.string())),
        d: fc.tuple(fc.nat(), fc.nat()),
      }),
    );
    fc.assert(
      fc.property(fc.array(record, { maxLength: 30 }), fc.integer({ min: 8, max: 256 }), (recs, size) => {
        const w = new LinkWriter(size);
        const expected: Seen[] = [];
        for (const r of recs) {
          if (r.kind === "c") {
            w.control(r.key, r.m);
            expected.push({ c: r.key, m: r.m });
          } else if (r.kind === "t") {
            w.turns(r.key, r.tick, r.inputs, r.expired);
            const want = r.inputs.map((i): TurnInput | null => {
              if (i === null) return null;
              if ("idle" in i) return { idle: i.idle, ms: i.ms };
              if (i.bytes) return { raw: parseMessage(i.bytes), ms: i.ms };
              // Without bytes the value travels as its JSON text (-0 becomes 0, as in JSON).
              return { raw: i.raw === null ? null : JSON.parse(JSON.stringify(i.raw)), ms: i.ms };
            });
            expected.push({ t: r.key, tick: r.tick, inputs: want, expired: r.expired });
          } else {
            const text = (f: number) => r.obs[f] ?? "";
            w.observe(
              r.key,
              r.tick,
              r.d[0],
              r.d[1],
              (f, out, at) => {
                const b = enc.encode(text(f));
                if (at + b.length > out.length) return -1;
                out.set(b, at);
                return at + b.length;
              },
              r.obs[0] !== null,
              r.obs[1] !== null,
            );
            expected.push({ o: r.key, tick: r.tick, obs: [r.obs[0], r.obs[1]], deadlines: [...r.d] });
          }
        }
        expect(read(post(w.take()))).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });
});
