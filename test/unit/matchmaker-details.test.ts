// Matchmaker details pinned for mutation testing (npm run mutation -- matchmaker): owner concurrency within one
// pass, capacity notices, the wait estimate, recent-start pruning and pause; on the simulated world of
// test/helpers/matchmaker-world.ts.
import { describe, expect, it } from "vitest";
import { World } from "../helpers/matchmaker-world.ts";

describe("matchmaker details (pinned for mutation testing)", () => {
  it("starts an owner's bots up to its concurrency in one pass, not one fewer (starts are counted once)", () => {
    const w = new World({ config: { ownerConcurrency: 2 } });
    for (const n of ["o1", "o2", "o3"]) w.player(n, { owner: "o", waitedMs: 600_000 });
    for (const n of ["p1", "p2", "p3"]) w.player(n, { waitedMs: 600_000 });
    const starts = w.pass();
    expect(starts.flatMap((s) => s.seats).filter((p) => p.bot.owner === "o")).toHaveLength(2);
    // The third waits while two run.
    expect(w.pass(1_000)).toEqual([]);
  });

  it("estimates a queued bot's wait from its pacing and, with house bots online, the house wait", () => {
    const w = new World({ config: { matchIntervalMs: 300 }, houseWaitMs: 2_000 });
    const p = w.player("p");
    p.lastStartAt = w.now - 100;
    expect(w.mm.estimatedWaitS(p, w.now)).toBe(0.2);
    p.lastStartAt = w.now - 1_000;
    expect(w.mm.estimatedWaitS(p, w.now)).toBe(0);
    w.house("h1");
    expect(w.mm.estimatedWaitS(p, w.now)).toBe(2);
    const slow = new World({ config: { matchIntervalMs: 5_250 }, houseWaitMs: 2_000 });
    const q = slow.player("q");
    q.lastStartAt = slow.now;
    slow.house("h1");
    expect(slow.mm.estimatedWaitS(q, slow.now)).toBe(5.3);
  });

  it("counts a player's starts of the last hour as recent, and forgets older ones", () => {
    const w = new World();
    const p = w.player("p");
    w.player("other-owner-bot", { owner: "x" });
    p.starts.push(w.now - 3_600_001, w.now - 3_600_000, w.now - 10);
    w.pass();
    expect(p.starts.slice(0, 2)).toEqual([w.now - 3_600_000, w.now - 10]);
  });

  it("does nothing while paused", () => {
    const w = new World();
    w.player("a", { waitedMs: 600_000 });
    w.player("b", { waitedMs: 600_000 });
    w.mm.paused = true;
    expect(w.pass()).toEqual([]);
    w.mm.paused = false;
    expect(w.pass()).toHaveLength(1);
  });

  it("tells waiting players, not house bots, that the server is full, with the limit", () => {
    const w = new World({ config: { maxConcurrent: 1 } });
    w.house("h1");
    for (const n of ["a", "b", "c"]) w.player(n, { waitedMs: 600_000 });
    expect(w.pass()).toHaveLength(1);
    w.pass(1_000);
    const waiting = w.lobby
      .waiting("public")
      .filter((p) => !p.house)
      .map((p) => p.bot.id)
      .sort();
    expect(waiting.length).toBeGreaterThan(0);
    expect(w.audits.map((a) => a.subject).sort()).toEqual(waiting);
    expect(w.notices.map((n) => n.message)).toEqual(
      waiting.map(() => "the server runs 1 matches at most; still queued (capacity)"),
    );
  });
});
