// The live path's per-hop trace (pool/trace.ts, issue 39), on when the process starts with ARENA_TRACE=1 (the
// benchmark's traced ladder): a match played through a real pool worker leaves, for each tick, the front's and
// the worker's steps in path order on one clock, the worker's rows reaching the front when the match ends.
// Without the variable nothing is stamped (the production path). Order only: no timing is asserted.
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_DEADLINES } from "../../engine/match.ts";
import type { MatchPool } from "../../pool/pool.ts";
import type { MatchSetup } from "../../pool/protocol.ts";

const setup = (id: string): MatchSetup => ({
  matchId: id,
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
});

/** Plays a whole match through `pool`, replying to every observation at once; resolves with its key. */
async function playOne(pool: MatchPool, id: string): Promise<number> {
  const c = pool.start(setup(id));
  c.onMessage((m) => {
    if (m.t === "hello") c.send({ t: "start", ready: [true, true] });
    else if (m.t === "tick") {
      const bytes = new TextEncoder().encode(JSON.stringify({ type: "turn", tick: m.tick }));
      c.send({ t: "tick", tick: m.tick, inputs: [{ raw: null, ms: 1, bytes }, null] });
    }
  });
  await c.done;
  return c.key;
}

let pool: MatchPool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe("the live path trace", () => {
  it("stamps every pool step of every tick, in path order, on one clock across the threads", async () => {
    vi.stubEnv("ARENA_TRACE", "1");
    vi.resetModules();
    const { MatchPool } = await import("../../pool/pool.ts");
    const { traceRows, Hop, tracing } = await import("../../pool/trace.ts");
    expect(tracing).toBe(true);
    pool = new MatchPool({ workers: 1 });
    const key = await playOne(pool, "trace-on");
    // The worker's rows cross on a BroadcastChannel after the match's end.
    let rows: number[][] = [];
    for (let i = 0; i < 200 && !rows.some((r) => !Number.isNaN(r[2 + Hop.workerReceived]!)); i++) {
      await new Promise((r) => setTimeout(r, 10));
      rows.push(...traceRows());
    }
    // Tick 0's observations answer no turns: no row is stamped for a tick before it (key - 1's last tick).
    expect(rows.filter((r) => r[1] === 2 ** 20 - 1)).toEqual([]);
    rows = rows.filter((r) => r[0] === key);
    const byTick = new Map<number, number[]>();
    for (const r of rows) {
      const row = byTick.get(r[1]!) ?? Array(r.length - 2).fill(Number.NaN);
      r.slice(2).forEach((v, h) => {
        if (!Number.isNaN(v)) row[h] = v;
      });
      byTick.set(r[1]!, row);
    }
    // Every tick but the last (which ends the match: no observations) has the whole pool path. The steps one
    // thread takes are in order, and each thread's first step after a hand-over comes after the other thread's
    // step before it; a postMessage may return after its receiver has woken, so `posted` and `workerPosted`
    // are only after what their own thread did before them.
    const ticks = [...byTick.keys()].sort((a, b) => a - b);
    expect(ticks.length).toBeGreaterThan(20);
    const isAfter = (row: number[], later: number, earlier: number) =>
      expect(row[later], `${later} after ${earlier}`).toBeGreaterThanOrEqual(row[earlier]!);
    for (const t of ticks.slice(0, -1)) {
      const row = byTick.get(t)!;
      for (const h of [
        Hop.queued,
        Hop.posted,
        Hop.workerReceived,
        Hop.stepped,
        Hop.written,
        Hop.workerPosted,
        Hop.received,
      ])
        expect(Number.isFinite(row[h])).toBe(true);
      isAfter(row, Hop.posted, Hop.queued);
      isAfter(row, Hop.workerReceived, Hop.queued);
      isAfter(row, Hop.stepped, Hop.workerReceived);
      isAfter(row, Hop.written, Hop.stepped);
      isAfter(row, Hop.workerPosted, Hop.written);
      isAfter(row, Hop.received, Hop.written);
    }
  });

  it("stamps nothing without ARENA_TRACE", async () => {
    vi.stubEnv("ARENA_TRACE", "");
    vi.resetModules();
    const { MatchPool } = await import("../../pool/pool.ts");
    const { traceRows, tracing } = await import("../../pool/trace.ts");
    expect(tracing).toBe(false);
    pool = new MatchPool({ workers: 1 });
    await playOne(pool, "trace-off");
    await new Promise((r) => setTimeout(r, 100));
    expect(traceRows()).toEqual([]);
  });
});
