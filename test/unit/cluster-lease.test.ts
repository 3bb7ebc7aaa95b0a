// The cluster's pieces without NATS (issue 36): a KV lease against an in-memory bucket that keeps JetStream's
// rules (create only where absent, update only at the last revision, entries expire after the TTL), the
// matchmaker pairing only while its lease is held, and the msgpackr messages between nodes.
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  decodeBeat,
  decodeLease,
  decodeResult,
  decodeWrite,
  encodeBeat,
  encodeLease,
  encodeResult,
  encodeWrite,
  type NodeBeat,
} from "../../server/cluster/codec.ts";
import { KvLease, type LeaseBucket } from "../../server/cluster/kv-lease.ts";
import { ALWAYS_HELD } from "../../server/kernel/lease.ts";
import type { MatchRecord } from "../../server/store/types.ts";
import { World } from "../helpers/matchmaker-world.ts";

const TIMING = { ttlMs: 1000, renewMs: 250, attemptMs: 150, marginMs: 250 };
const log = pino({ level: "silent" });

/** JetStream KV's compare-and-set and max-age, on the (fake) clock. */
class FakeBucket implements LeaseBucket {
  seq = 0;
  entries = new Map<string, { rev: number; at: number; value: Uint8Array }>();
  down = false;
  deletes: { key: string; previousSeq: number | undefined }[] = [];
  private live(key: string) {
    const e = this.entries.get(key);
    if (e && Date.now() - e.at >= TIMING.ttlMs) this.entries.delete(key);
    return this.entries.get(key);
  }
  async create(key: string, value: Uint8Array) {
    if (this.down) throw new Error("TIMEOUT");
    if (this.live(key)) throw new Error("wrong last sequence: 1");
    this.entries.set(key, { rev: ++this.seq, at: Date.now(), value });
    return this.seq;
  }
  async update(key: string, value: Uint8Array, rev: number) {
    if (this.down) throw new Error("TIMEOUT");
    const e = this.live(key);
    if ((e?.rev ?? 0) !== rev) throw new Error(`wrong last sequence: ${e?.rev ?? 0}`);
    this.entries.set(key, { rev: ++this.seq, at: Date.now(), value });
    return this.seq;
  }
  async get(key: string) {
    const e = this.live(key);
    return e ? { value: e.value, operation: "PUT" } : null;
  }
  async delete(key: string, opts?: { previousSeq?: number }) {
    this.deletes.push({ key, previousSeq: opts?.previousSeq });
    if (this.live(key)?.rev === opts?.previousSeq) this.entries.delete(key);
  }
}

describe("a KV lease", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_700_000_000_000);
  });
  afterEach(() => vi.useRealTimers());

  const step = async (...ls: KvLease[]) => {
    for (const l of ls) await l.step();
  };
  const advance = async (ms: number, ...ls: KvLease[]) => {
    for (let t = 0; t < ms; t += 50) {
      vi.advanceTimersByTime(50);
      await step(...ls);
    }
  };

  it("is held by one node at a time, kept by renewing, and named to the others", async () => {
    const b = new FakeBucket();
    const a = new KvLease(b, "matchmaker.public", "a", log, TIMING);
    const c = new KvLease(b, "matchmaker.public", "c", log, TIMING);
    await step(a, c);
    expect([a.held(), c.held()]).toEqual([true, false]);
    expect(c.holder).toBe("a");
    await advance(5000, a, c);
    expect([a.held(), c.held()]).toEqual([true, false]);
    expect(decodeLease(b.entries.get("matchmaker.public")!.value)?.node).toBe("a");
  });

  it("moves to another node within the TTL and one attempt once its holder stops", async () => {
    const b = new FakeBucket();
    const a = new KvLease(b, "matchmaker.public", "a", log, TIMING);
    const c = new KvLease(b, "matchmaker.public", "c", log, TIMING);
    await step(a, c);
    let t = 0;
    while (!c.held()) {
      vi.advanceTimersByTime(50);
      t += 50;
      await step(c); // a's node is dead: it never steps again
    }
    expect(t).toBeLessThanOrEqual(TIMING.ttlMs + TIMING.attemptMs);
    expect(c.holder).toBe("c");
  });

  it("stops counting itself the holder before the entry can expire when NATS does not answer", async () => {
    const b = new FakeBucket();
    const a = new KvLease(b, "matchmaker.public", "a", log, TIMING);
    const c = new KvLease(b, "matchmaker.public", "c", log, TIMING);
    await step(a);
    b.down = true;
    let t = 0;
    while (a.held()) {
      vi.advanceTimersByTime(10);
      t += 10;
      await step(a);
    }
    expect(t).toBeLessThanOrEqual(TIMING.ttlMs - TIMING.marginMs);
    b.down = false;
    // The entry is still there when a lets go: c cannot have it yet; then it can, and a finds out at its renewal.
    await step(c);
    expect(c.held()).toBe(false);
    await advance(1500, a, c);
    expect([a.held(), c.held()].filter(Boolean)).toHaveLength(1);
  });

  it("is let go at once when someone else wrote the entry (compare-and-set failed)", async () => {
    const b = new FakeBucket();
    const a = new KvLease(b, "matchmaker.public", "a", log, TIMING);
    await step(a);
    b.entries.set("matchmaker.public", {
      rev: ++b.seq,
      at: Date.now(),
      value: encodeLease({ node: "x", name: "matchmaker.public", since: "" }),
    });
    await advance(300, a);
    expect(a.held()).toBe(false);
    expect(a.holder).toBe("x");
  });

  it("is given back with a delete at its own revision, so the next node need not wait for the TTL", async () => {
    const b = new FakeBucket();
    const a = new KvLease(b, "matchmaker.public", "a", log, TIMING);
    const c = new KvLease(b, "matchmaker.public", "c", log, TIMING);
    await step(a, c);
    const rev = b.entries.get("matchmaker.public")!.rev;
    await a.release();
    expect(b.deletes).toEqual([{ key: "matchmaker.public", previousSeq: rev }]);
    expect(a.held()).toBe(false);
    await advance(200, a, c);
    expect(c.held()).toBe(true);
    expect(a.held()).toBe(false); // a released lease is never taken again by its node
  });
});

describe("the matchmaker's lease", () => {
  it("is always held on a single server", () => {
    expect(new World().mm.lease).toBe(ALWAYS_HELD);
    expect(ALWAYS_HELD.held()).toBe(true);
  });

  it("gates every pass: no start while it is not held, starts again once it is and the quotas are read afresh", async () => {
    const w = new World();
    let held = false;
    w.mm.lease = { held: () => held };
    w.player("p1");
    w.player("p2");
    expect(w.pass()).toEqual([]);
    held = true;
    // Just taken: the quota counts are read from storage first (the last holder's starts are there).
    expect(w.pass()).toEqual([]);
    await new Promise((r) => setTimeout(r, 0));
    expect(w.pass()).toHaveLength(1);
  });
});

describe("messages between nodes", () => {
  const beat: NodeBeat = {
    node: "host-a1b2c3",
    release: "0.45.0",
    started_at: "2026-11-28T03:00:00.000Z",
    beat_at: "2026-11-28T03:00:01.000Z",
    sockets: { bot: 12, human: 1 },
    matches: 4,
    queued: 3,
    pool: { threads: 1, queued: 0 },
    leases: ["matchmaker.public"],
  };

  it("are msgpack, smaller than the same JSON, and read back equal", () => {
    const bytes = encodeBeat(beat);
    expect(bytes[0]).not.toBe("{".charCodeAt(0));
    expect(bytes.length).toBeLessThan(Buffer.byteLength(JSON.stringify(beat)));
    expect(decodeBeat(bytes)).toEqual(beat);
    const lease = { node: "n", name: "matchmaker.public", since: beat.started_at };
    expect(decodeLease(encodeLease(lease))).toEqual(lease);
  });

  it("that are not of the shape are refused, not trusted", () => {
    expect(decodeBeat(new TextEncoder().encode("not msgpack at all"))).toBeNull();
    expect(decodeBeat(encodeLease({ node: "n", name: "x", since: "" }))).toBeNull();
    expect(decodeBeat(encodeBeat({ ...beat, matches: -1 }))).toBeNull();
  });

  it("carry a committed result whole, and refuse one without its two seats", () => {
    const seat = (i: number) => ({
      fighter: i,
      bot_id: `b${i}`,
      name: `bot-${i}`,
      display_name: null,
      version: "v1",
      house: i === 1,
      avatar: null,
      rating_before: 1500,
      rating_after: i === 0 ? 1530 : 1470,
    });
    const match = {
      id: "m1",
      ladder_id: "public",
      mode: "ranked",
      seed: 7,
      map: "arena",
      started: "2026-11-28T03:00:00.000Z",
      ended: "2026-11-28T03:00:30.000Z",
      duration_ms: 30_000,
      final_tick: 300,
      reason: "elimination",
      winner_bot_id: "b0",
      voided: false,
      note: null,
      bots: [seat(0), seat(1)],
      stats: { stats_version: 3, fighters: [{ damage: 10 }, { damage: 2 }] },
      replay_file: "replays/m1.bin",
      pairing: null,
    } as unknown as MatchRecord;
    const bytes = encodeResult({ node: "n1", match });
    expect(bytes.length).toBeLessThan(Buffer.byteLength(JSON.stringify({ node: "n1", match })));
    expect(decodeResult(bytes)).toEqual({ node: "n1", match });
    expect(
      decodeResult(encodeResult({ node: "n1", match: { ...match, bots: [seat(0)] } as never })),
    ).toBeNull();
    expect(decodeResult(encodeBeat(beat))).toBeNull();
    expect(decodeWrite(encodeWrite({ node: "n1", table: "bots" }))).toEqual({ node: "n1", table: "bots" });
    expect(decodeWrite(encodeLease({ node: "n", name: "x", since: "" }))).toBeNull();
  });
});
