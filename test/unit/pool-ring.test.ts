// The front-to-worker ring (pool/ring.ts): entries come out whole and in order across the wrap at the ring's
// end, a full ring refuses an entry without writing any of it, a batch's controls ride with its bytes, and a
// thread blocked on the doorbell wakes for an entry and for a nudge.
import { Worker } from "node:worker_threads";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LinkWriter, readBatch, readRingBatch, ringPayload } from "../../pool/link.ts";
import { createRing, RingReader, RingWriter } from "../../pool/ring.ts";

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (seed + i) & 0xff);

describe("pool ring", () => {
  it("hands out every entry whole and in order, across the wrap, and refuses one that does not fit", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 90 }), fc.integer({ min: 0, max: 3 })), {
          maxLength: 200,
        }),
        (steps) => {
          const sab = createRing(256);
          const w = new RingWriter(sab);
          const r = new RingReader(sab);
          const model: Uint8Array[] = [];
          let seed = 0;
          for (const [size, reads] of steps) {
            const a = bytes(size, seed);
            const b = size % 3 === 0 ? null : bytes(size % 7, seed + 100);
            seed++;
            const want = b ? Uint8Array.from([...a, ...b]) : a;
            if (w.write(a, b)) model.push(want);
            else expect(model.length).toBeGreaterThan(0); // only a ring holding something is ever full
            for (let k = 0; k < reads; k++) {
              const got = r.next();
              const next = model.shift();
              if (next === undefined) expect(got).toBeNull();
              else expect(got && [...got]).toEqual([...next]);
            }
          }
          for (let got = r.next(); got; got = r.next()) expect([...got]).toEqual([...model.shift()!]);
          expect(model).toEqual([]);
          expect(r.empty).toBe(true);
        },
      ),
    );
  });

  it("refuses an entry that does not fit and writes none of it", () => {
    const sab = createRing(64);
    const w = new RingWriter(sab);
    const r = new RingReader(sab);
    expect(w.write(bytes(40, 1), null)).toBe(true);
    expect(w.write(bytes(20, 2), null)).toBe(false);
    expect([...r.next()!]).toEqual([...bytes(40, 1)]);
    expect(r.next()).toBeNull();
    // Now there is room, at the start of the ring.
    expect(w.write(bytes(20, 2), null)).toBe(true);
    expect([...r.next()!]).toEqual([...bytes(20, 2)]);
  });

  it("carries a batch's records and its controls as the port does", () => {
    const w = new LinkWriter(64);
    const turn = new TextEncoder().encode('{"type":"turn","tick":3}');
    w.control(5, { t: "start", ready: [true, false] });
    w.turns(5, 3, [{ raw: null, ms: 2, bytes: turn }, null], 2);
    w.control(6, { t: "peek", id: 9, since: 4 });
    const seen: unknown[] = [];
    const handlers = {
      control: (key: number, m: unknown) => seen.push([key, m]),
      turns: (key: number, tick: number, inputs: unknown[], expired: number) =>
        seen.push([key, tick, structuredClone(inputs), expired]),
    };
    const sab = createRing(1024);
    const [a, b] = ringPayload(w);
    expect(new RingWriter(sab).write(a, b)).toBe(true);
    readRingBatch(new RingReader(sab).next()!, handlers);
    const viaRing = seen.splice(0);
    readBatch(w.take(), handlers);
    expect(viaRing).toEqual(seen);
    expect(viaRing).toEqual([
      [5, { t: "start", ready: [true, false] }],
      [5, 3, [{ raw: { type: "turn", tick: 3 }, ms: 2 }, null], 2],
      [6, { t: "peek", id: 9, since: 4 }],
    ]);
  });

  it("wakes a thread blocked on the doorbell for an entry and for a nudge, and counts its wait", async () => {
    const sab = createRing(1024);
    // The thread waits up to 10 s each time, so only the doorbell can wake it within the test's time.
    const worker = new Worker(
      `
      const { parentPort, workerData } = require("node:worker_threads");
      const slots = new Int32Array(workerData, 0, 8);
      for (let i = 0; i < 2; i++) {
        const bell = Atomics.load(slots, 2);
        parentPort.postMessage("waiting");
        const how = Atomics.wait(slots, 2, bell, 10000);
        parentPort.postMessage(how);
      }`,
      { eval: true, workerData: sab },
    );
    const messages: string[] = [];
    const next = () =>
      new Promise<string>((resolve) => worker.once("message", (m: string) => resolve(m))).then((m) => {
        messages.push(m);
        return m;
      });
    const w = new RingWriter(sab);
    await next(); // waiting
    await new Promise((r) => setTimeout(r, 20));
    const woken = next();
    w.write(bytes(8, 0), null);
    expect(await woken).toBe("ok");
    await next(); // waiting again
    await new Promise((r) => setTimeout(r, 20));
    const nudged = next();
    w.nudge();
    expect(await nudged).toBe("ok");
    await worker.terminate();
    // The reader's own wait adds to the time the front subtracts from the worker's busy time.
    const r = new RingReader(sab);
    r.next();
    const t0 = performance.now();
    r.wait(15);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(10);
    expect(r.waitedMs).toBeGreaterThanOrEqual(10);
  });
});
