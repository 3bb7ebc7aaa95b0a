// The cluster's running-match counts the matchmaker's limits read (server/cluster/running-counts.ts): this node's
// own matches, the other nodes' from their last beats, and the placements a beat cannot show yet.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { NodeBeat } from "../../server/cluster/codec.ts";
import { ClusterRunning } from "../../server/cluster/running-counts.ts";

function beat(
  node: string,
  at: number,
  ladders: Record<string, number>,
  owners: Record<string, number>,
): NodeBeat {
  return {
    node,
    release: "test",
    started_at: new Date(0).toISOString(),
    beat_at: new Date(at).toISOString(),
    sockets: { bot: 0, human: 0 },
    matches: Object.values(ladders).reduce((a, b) => a + b, 0),
    queued: 0,
    pool: { threads: 1, queued: 0 },
    leases: [],
    running: { ladders, owners },
  };
}

describe("ClusterRunning", () => {
  let beats: NodeBeat[] = [];
  const local = {
    running: (l?: string) => (l === undefined || l === "public" ? 1 : 0),
    runningForOwner: () => 0,
  };
  beforeEach(() => {
    vi.useFakeTimers({ now: 100_000 });
    beats = [];
  });
  afterEach(() => vi.useRealTimers());

  it("adds the other nodes' beats to this node's own matches, skipping its own beat", () => {
    beats = [
      beat("me", 99_000, { public: 5 }, { ann: 5 }),
      beat("b", 99_000, { public: 2, club: 1 }, { ann: 1 }),
    ];
    const r = new ClusterRunning("me", () => beats, local);
    expect(r.running()).toBe(1 + 3);
    expect(r.running("public")).toBe(1 + 2);
    expect(r.running("club")).toBe(1);
    expect(r.runningForOwner("ann")).toBe(1);
    expect(r.runningForOwner("bob")).toBe(0);
    expect(r.capacity(10)).toBe(20);
  });

  it("counts a placement from its request until a beat of its node written after the answer", () => {
    beats = [beat("b", 99_000, {}, {})];
    const r = new ClusterRunning("me", () => beats, local);
    const settle = r.placing("b", "public", ["ann", "ann"]);
    expect(r.runningForOwner("ann")).toBe(1); // in flight, counted once however many of the owner's bots
    vi.setSystemTime(100_200);
    settle(true);
    expect(r.runningForOwner("ann")).toBe(1);
    beats = [beat("b", 100_100, {}, {})]; // written before the answer: may not show the match yet
    expect(r.running("public")).toBe(1 + 1);
    beats = [beat("b", 101_000, { public: 1 }, { ann: 1 })]; // shows it: counted once, from the beat
    expect(r.runningForOwner("ann")).toBe(1);
    expect(r.running("public")).toBe(1 + 1);
  });

  it("forgets a refused placement at once, and one placed here once started (its own figures show it)", () => {
    const r = new ClusterRunning("me", () => beats, local);
    r.placing("b", "public", ["ann"])(false);
    r.placing("me", "public", ["ann"])(true);
    expect(r.runningForOwner("ann")).toBe(0);
  });

  it("forgets an answered placement after ten seconds without a beat of its node", () => {
    const r = new ClusterRunning("me", () => beats, local);
    r.placing("gone", "public", ["ann"])(true);
    expect(r.runningForOwner("ann")).toBe(1);
    vi.setSystemTime(110_001);
    expect(r.runningForOwner("ann")).toBe(0);
  });
});
