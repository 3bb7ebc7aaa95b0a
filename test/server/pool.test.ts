// The match pool on its own: several matches share a worker, and kill() ends a match whether its task runs
// (the worker is terminated and replaced) or still waits for a worker (it aborts itself when it starts, so
// no task is left behind holding a slot).
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_DEADLINES } from "../../engine/match.ts";
import { MatchPool } from "../../pool/pool.ts";
import type { FromWorker, MatchSetup } from "../../pool/protocol.ts";

let n = 0;
function setup(): MatchSetup {
  return {
    matchId: `pool-test-${n++}`,
    seed: 7,
    map: "arena-21",
    mode: "ranked",
    ladderId: "public",
    deadlines: DEFAULT_DEADLINES,
    fighters: [
      { name: "remote", display_name: "remote", version: "v1" },
      { name: "kiter", display_name: "Kiter", version: "1.0.0" },
    ],
    seats: [{ kind: "remote" }, { kind: "house", name: "kiter" }],
  };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > 10_000) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let pool: MatchPool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

describe("MatchPool", () => {
  it("runs many matches on one worker at once", async () => {
    pool = new MatchPool({ workers: 1 });
    const channels = [0, 1, 2, 3].map(() => pool!.start(setup()));
    const hellos = await Promise.all(
      channels.map(
        (c) => new Promise<FromWorker>((resolve) => c.onMessage((m) => m.t === "hello" && resolve(m))),
      ),
    );
    expect(new Set(hellos.map((h) => (h as { thread: number }).thread)).size).toBe(1);
    for (const c of channels) c.kill("test over");
    for (const c of channels) await expect(c.done).rejects.toThrow("test over");
  });

  it.each([
    ["by the ring", undefined],
    ["by the ring and, when it is full, by the port", 512],
  ])(
    "plays many matches on one worker to their end, each tick once and in order (%s)",
    async (_, ringBytes) => {
      pool = new MatchPool({ workers: 1, ringBytes });
      const matches = Array.from({ length: 12 }, () => pool!.start(setup()));
      const ticks: number[][] = matches.map(() => []);
      const ended = matches.map((c, i) => {
        c.onMessage((m) => {
          if (m.t === "hello") c.send({ t: "start", ready: [true, true] });
          else if (m.t === "tick") {
            ticks[i]!.push(m.tick);
            // An instant reply, as the socket tier hands it on: the bytes as they came.
            const bytes = new TextEncoder().encode(JSON.stringify({ type: "turn", tick: m.tick }));
            c.send({ t: "tick", tick: m.tick, inputs: [{ raw: null, ms: 1, bytes }, null] });
          }
        });
        return c.done;
      });
      // Their ticks share the link's batches: none is lost, repeated or held back.
      const outcomes = await Promise.all(ended);
      for (const [i, o] of outcomes.entries()) {
        expect(o.finalTick).toBeGreaterThan(0);
        // Ticks 0 to finalTick - 1 were each observed (the last one played ended the match).
        expect(ticks[i]).toEqual(Array.from({ length: o.finalTick }, (_, k) => k));
      }
      // A small ring overflows under twelve matches' batches, and a large one never does.
      if (ringBytes) expect(pool.portBatches).toBeGreaterThan(0);
      else expect(pool.portBatches).toBe(0);
    },
  );

  it("keeps one match's messages in order when a batch goes by the port and the next would fit the ring", async () => {
    // A turn too big for a 512-byte ring goes by the port; the peek sent right after it is small. The worker must
    // play the tick before it answers the peek, so the peek's lines end with that tick's line, as they do when
    // both go by the ring.
    const linesAfterBigTurn = async (ringBytes: number | undefined) => {
      pool = new MatchPool({ workers: 1, ringBytes });
      const c = pool.start(setup());
      const lines = new Promise<string[]>((resolve) => {
        c.onMessage((m) => {
          if (m.t === "hello") c.send({ t: "start", ready: [true, true] });
          else if (m.t === "tick" && m.tick < 3) {
            const turn = { type: "turn", tick: m.tick, shout: m.tick === 2 ? "x".repeat(600) : undefined };
            const bytes = new TextEncoder().encode(JSON.stringify(turn));
            c.send({ t: "tick", tick: m.tick, inputs: [{ raw: null, ms: 1, bytes }, null] });
            if (m.tick === 2) c.send({ t: "peek", id: 1, since: 0 });
          } else if (m.t === "peek") resolve(m.lines);
        });
      });
      const got = await lines;
      const viaPort = pool.portBatches;
      c.kill("test over");
      await c.done.catch(() => {});
      await pool.close();
      pool = null;
      return { got, viaPort };
    };
    const ring = await linesAfterBigTurn(undefined);
    const small = await linesAfterBigTurn(512);
    expect(ring.viaPort).toBe(0);
    expect(small.viaPort).toBeGreaterThan(0);
    expect(small.got.length).toBe(ring.got.length);
    expect(JSON.parse(small.got.at(-1)!).tick).toBe(2);
  });

  it("kill() ends a queued match at once, and its task aborts itself when it starts", async () => {
    pool = new MatchPool({ workers: 1, matchesPerWorker: 1 });
    const piscina = (pool as unknown as { piscina: { completed: number; queueSize: number } }).piscina;
    const a = pool.start(setup());
    await new Promise<void>((resolve) => a.onMessage((m) => m.t === "hello" && resolve()));
    const b = pool.start(setup());
    const seenByB: FromWorker[] = [];
    b.onMessage((m) => seenByB.push(m));
    expect(piscina.queueSize).toBe(1);
    b.kill("gave up waiting");
    await expect(b.done).rejects.toThrow("gave up waiting");
    // Killing the running match terminates its worker; the replacement then starts b, which aborts.
    a.kill("worker stopped answering");
    await expect(a.done).rejects.toThrow("worker stopped answering");
    await until(() => piscina.completed === 2 && piscina.queueSize === 0, "b's task ran and ended");
    // b's channel was killed: nothing it sent on starting reached the runner.
    expect(seenByB).toEqual([]);
    expect(pool.threads).toBe(1);
  });
});
