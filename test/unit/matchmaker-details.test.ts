// Matchmaker details pinned for mutation testing (npm run mutation -- matchmaker): owner concurrency within one
// pass, capacity notices (the server's and the ladder's), the wait estimate, recent-start pruning and pause,
// the discovery debt carried between passes, the seat tie-break by seed, quota notices (wording, once per 5
// minutes, audit and log), house bots turned off per ladder, the long-queue `tested` lookup; on the simulated
// world of test/helpers/matchmaker-world.ts. The matchmaker's seed comes from node:crypto's randomInt, which
// this file replaces with a queue a test fills (a fixed default otherwise), so every plan is deterministic.
import type { Logger } from "pino";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { MAP_NAMES } from "../../engine/rules.ts";
import type { Participant } from "../../server/lobby/lobby.ts";
import { versionKey } from "../../server/ratings/book.ts";
import { pairName, type QuotaStore, quotaStore, StubBook, World } from "../helpers/matchmaker-world.ts";

const seeds = vi.hoisted(() => ({ next: [] as number[] }));
vi.mock("node:crypto", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:crypto")>();
  return { ...actual, randomInt: () => seeds.next.shift() ?? 1_000 };
});
beforeEach(() => {
  seeds.next = [];
});

/** A logger that records what the matchmaker logs (it calls only `info` and `error`). */
function recordingLog() {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) =>
    lines.push({ level, obj, msg });
  const log = { info: at("info"), error: at("error"), warn: at("warn"), debug: at("debug") };
  return { lines, log: log as unknown as Logger };
}

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

describe("capacity: the server's and the ladder's share", () => {
  it("starts no more than the ladder's share while the server has room, and says which limit is full", () => {
    // The server runs up to 10 (3 of them on other ladders); this ladder's share is 2.
    const w = new World({ config: { maxConcurrent: 10 }, ladderMax: 2, elsewhere: 3 });
    for (const n of ["a", "b", "c", "d", "e", "f"]) w.player(n, { waitedMs: 600_000 });
    expect(w.pass()).toHaveLength(2);
    expect(w.pass(1_000)).toEqual([]);
    expect(w.notices.map((n) => [n.bot, n.message])).toEqual(
      w.lobby
        .waiting("public")
        .map((p) => [p.bot.id, "this ladder runs 2 matches at most; still queued (capacity)"]),
    );
    // Once the server is full too, the server's limit is the one named.
    const full = new World({ config: { maxConcurrent: 10 }, ladderMax: 2, elsewhere: 10 });
    full.player("x");
    full.pass();
    expect(full.notices.map((n) => n.message)).toEqual([
      "the server runs 10 matches at most; still queued (capacity)",
    ]);
  });
});

describe("the discovery debt carried from pass to pass (one start in seven, SPEC 1.2 rule 3)", () => {
  let made = 0;
  /** `n` new players at one rating; their pairs have no games (under-tested) unless `tested`. */
  const newcomers = (w: World, n: number, tested = false): Participant[] => {
    const ps = Array.from({ length: n }, () => w.player(`n${made++}`));
    if (tested)
      for (let i = 0; i < ps.length; i++)
        for (let j = i + 1; j < ps.length; j++) (w.book as StubBook).asRated(w.key(ps[i]!), w.key(ps[j]!));
    return ps;
  };
  /** `k` passes with one new under-tested pair each: D for a discovery start, C for a competitive one. */
  const onePairPasses = (w: World, k: number) =>
    Array.from({ length: k }, () => {
      newcomers(w, 2);
      const starts = w.pass(1_000);
      expect(starts).toHaveLength(1);
      return starts[0]!.kind === "discovery" ? "D" : "C";
    }).join("");
  const world = () => new World({ book: new StubBook(), config: { maxConcurrent: 1_000 } });

  it("makes every seventh start of single-start passes a discovery start", () => {
    expect(onePairPasses(world(), 14)).toBe("CCCCCCDCCCCCCD");
  });

  it("carries the competitive starts a discovery start did not pay for into the next passes", () => {
    const w = world();
    // 9 starts at once: 1 reserved for discovery and 8 competitive, so 8 - 6 = 2 are owed after it.
    newcomers(w, 18);
    const starts = w.pass();
    expect(starts.map((s) => s.kind).filter((k) => k === "discovery")).toHaveLength(1);
    expect(starts).toHaveLength(9);
    expect(onePairPasses(w, 10)).toBe("CCCCDCCCCC");
  });

  it("forgives reserved slots that found no under-tested pair: at most one start's debt is carried", () => {
    const w = world();
    // 14 competitive starts among well-tested pairs: 2 slots reserved, neither used (nothing to discover).
    newcomers(w, 28, true);
    const starts = w.pass();
    expect(starts).toHaveLength(14);
    expect(starts.every((s) => s.kind === "competitive")).toBe(true);
    // The debt is capped at six starts: the next start is discovery, then six competitive ones again
    // (not a run of discovery starts paying off the fourteen).
    expect(onePairPasses(w, 9)).toBe("DCCCCCCDC");
  });
});

describe("seats: a tie in seat balance goes by the seed (SPEC 1.2 rule 6)", () => {
  const tie = (seed: number, balance: number) => {
    const w = new World();
    w.player("a");
    w.player("b");
    w.seatBalance.set("a", balance);
    w.seatBalance.set("b", balance);
    seeds.next = [seed];
    const [s] = w.pass();
    expect(s!.seed).toBe(seed);
    return s!.seats.map((p) => p.bot.id).join(",");
  };

  it("keeps the pair's order for an even seed and swaps it for an odd one", () => {
    expect(tie(4, 0)).toBe("a,b");
    expect(tie(7, 0)).toBe("b,a");
    expect(tie(10, 3)).toBe("a,b");
    expect(tie(1, -2)).toBe("b,a");
  });

  it("gives fighter 1 to the bot with more fighter-0 games, whatever the seed", () => {
    for (const seed of [2, 3]) {
      const w = new World();
      w.player("a");
      w.player("b");
      w.seatBalance.set("a", 1);
      seeds.next = [seed];
      expect(w.pass()[0]!.seats.map((p) => p.bot.id)).toEqual(["b", "a"]);
      expect([w.seatBalance.get("a"), w.seatBalance.get("b")]).toEqual([0, 1]);
    }
  });
});

describe("quota notices (SPEC 3.2, 8): wording, once per 5 minutes per reason, audit and log", () => {
  it("says which limit, with its number, and that the bot is still queued", async () => {
    const store = quotaStore({ q: 10 }, { busy: 50 });
    const w = new World({ config: { hourlyQuota: 10, dailyOwnerQuota: 50 }, store });
    await w.quotas.refresh(w.now, true);
    w.player("q", { waitedMs: 600_000 });
    w.player("d", { owner: "busy", waitedMs: 600_000 });
    expect(w.pass()).toEqual([]);
    expect(w.notices.sort((x, y) => (x.bot < y.bot ? -1 : 1))).toEqual([
      {
        bot: "d",
        code: "quota_exceeded",
        message: "at most 50 matches per day per owner; still queued (daily_owner_quota)",
      },
      {
        bot: "q",
        code: "quota_exceeded",
        message: "at most 10 matches per hour per bot; still queued (hourly_quota)",
      },
    ]);
    expect(w.audits.sort((x, y) => (x.subject < y.subject ? -1 : 1))).toEqual([
      {
        kind: "throttle",
        subject: "d",
        detail: { reason: "daily_owner_quota", message: "at most 50 matches per day per owner" },
      },
      {
        kind: "throttle",
        subject: "q",
        detail: { reason: "hourly_quota", message: "at most 10 matches per hour per bot" },
      },
    ]);
  });

  it("tells again exactly 5 minutes after the last notice, not a millisecond before", async () => {
    const w = new World({ config: { hourlyQuota: 10 }, store: quotaStore({ q: 10 }) });
    await w.quotas.refresh(w.now, true);
    w.player("q", { waitedMs: 600_000 });
    w.pass();
    expect(w.notices).toHaveLength(1);
    w.pass(299_999);
    expect(w.notices).toHaveLength(1);
    w.pass(1);
    expect(w.notices).toHaveLength(2);
    w.pass(299_999);
    expect(w.notices).toHaveLength(2);
    w.pass(1);
    expect(w.notices).toHaveLength(3);
    expect(w.audits).toHaveLength(3);
  });

  it("keeps a bot over owner concurrency out of the pass, so its would-be partner plays someone else", () => {
    const w = new World({ config: { ownerConcurrency: 1 } });
    w.player("o1", { owner: "o" });
    w.player("p");
    expect(w.pass().map(pairName)).toEqual(["o1-p"]);
    // o2 has waited longest (priority), but its owner already runs its one match.
    w.player("o2", { owner: "o", waitedMs: 600_000 });
    w.player("x");
    w.player("y");
    expect(w.pass(1_000).map(pairName)).toEqual(["x-y"]);
    expect(w.notices).toEqual([
      {
        bot: "o2",
        code: "quota_exceeded",
        message: "at most 1 matches at once per owner; still queued (owner_concurrency)",
      },
    ]);
  });

  it("audits and logs a throttle of a bot whose socket is gone (no notice to send)", async () => {
    const { lines, log } = recordingLog();
    const w = new World({ config: { hourlyQuota: 10 }, store: quotaStore({ q: 10 }), log });
    await w.quotas.refresh(w.now, true);
    const q = w.player("q", { waitedMs: 600_000 });
    q.conn = null;
    expect(() => w.pass()).not.toThrow();
    expect(w.notices).toEqual([]);
    expect(w.audits.map((a) => [a.subject, a.detail.reason])).toEqual([["q", "hourly_quota"]]);
    expect(lines).toEqual([
      { level: "info", obj: { bot: "q", reason: "hourly_quota" }, msg: "quota_exceeded" },
    ]);
  });

  it("logs a failed quota refresh and goes on pairing", async () => {
    const { lines, log } = recordingLog();
    const err = new Error("storage down");
    const store: QuotaStore = { startsSince: async () => Promise.reject(err) };
    const w = new World({ store, log });
    w.player("a");
    w.player("b");
    expect(w.pass()).toHaveLength(1);
    await new Promise((r) => setImmediate(r));
    expect(lines).toEqual([{ level: "error", obj: { err }, msg: "quota refresh failed" }]);
  });
});

describe("house bots", () => {
  it("offers none on a ladder whose manifest turns them off, and leaves them out of the wait estimate", () => {
    for (const on of [false, true]) {
      const w = new World({ houseWaitMs: 2_000, houseBots: () => on });
      w.house("h1");
      const p = w.player("p", { waitedMs: 600_000 });
      expect(w.mm.estimatedWaitS(p, w.now)).toBe(on ? 2 : 0);
      expect(w.pass().map(pairName)).toEqual(on ? ["h1-p"] : []);
    }
  });

  it("offers only house bots that are waiting", () => {
    const w = new World();
    const h = w.house("h1");
    w.player("p", { waitedMs: 600_000 });
    h.state = "idle";
    expect(w.pass()).toEqual([]);
    h.state = "waiting";
    expect(w.pass().map(pairName)).toEqual(["h1-p"]);
  });

  it("never counts a house bot's starts against its owner's concurrency, even for the owner's player bots", () => {
    // The house keeper also owns a player bot; concurrency 1. h1 plays x, and the keeper's player bot
    // plays y in the same pass. (Ratings keep the two pairs apart: 1000s and 2000s, window 400.)
    const book = new StubBook();
    const w = new World({ book, config: { ownerConcurrency: 1 } });
    const x = w.player("x");
    const k = w.player("k", { owner: "house" });
    const y = w.player("y");
    const h = w.house("h1");
    for (const [p, r] of [
      [x, 1000],
      [h, 1000],
      [k, 2000],
      [y, 2000],
    ] as const)
      book.rating.set(w.key(p), r);
    book.asRated(w.key(x), w.key(h));
    book.asRated(w.key(k), w.key(y));
    expect(w.pass().map(pairName).sort()).toEqual(["h1-x", "k-y"]);
  });
});

describe('a participant without a version is rated and mapped under versionKey(id, "")', () => {
  it("reads its rating, its pair's facts and its maps under the empty label", () => {
    const book = new StubBook();
    const w = new World({ book });
    const a = w.player("a");
    const b = w.player("b");
    a.version = null;
    b.version = null;
    const [ka, kb] = [versionKey("a", ""), versionKey("b", "")];
    // 700 apart and well tested: no competitive or discovery pair at first.
    book.rating.set(ka, 1000);
    book.rating.set(kb, 1700);
    book.asRated(ka, kb);
    expect(w.pass()).toEqual([]);
    // Even: paired, on the one map the pair has not played (the seed would pick another).
    book.rating.set(ka, 1700);
    book.asRated(ka, kb);
    const unplayed = MAP_NAMES[MAP_NAMES.length - 1]!;
    book.mapGames.set(JSON.stringify([ka, kb]), new Map(MAP_NAMES.map((m) => [m, m === unplayed ? 0 : 2])));
    seeds.next = [0];
    const [s] = w.pass(1_000);
    expect(s!.map).toBe(unplayed);
  });
});

describe("long queues: the pass offers pairs with a few contradicting games (the `tested` lookup)", () => {
  it("starts the far-apart contradicting pair that neither rating order nor waiting would find", () => {
    const book = new StubBook();
    const w = new World({ book, config: { maxConcurrent: 1_000 } });
    const rest = Array.from({ length: 70 }, (_, i) => {
      const p = w.player(`p${i}`, { waitedMs: 1_000 + 100 * i });
      book.rating.set(w.key(p), 1400 + 2 * i);
      return p;
    });
    // lo and hi have waited least and are 900 apart at the two ends of the rating order; lo won all
    // four games against hi, which the ratings give about 0.5 %.
    const lo = w.player("lo");
    const hi = w.player("hi");
    book.rating.set(w.key(lo), 1000);
    book.rating.set(w.key(hi), 1900);
    book.pair(w.key(lo), w.key(hi), 4, 4);
    // Each has a well-tested partner at its own rating, so the competitive matching and the fill-in place
    // them without the other: only the reserved slots, which ask the book for such pairs, bring them together.
    for (const [name, r, mate] of [
      ["lo2", 1000, lo],
      ["hi2", 1900, hi],
    ] as const) {
      const p = w.player(name);
      book.rating.set(w.key(p), r);
      book.asRated(w.key(p), w.key(mate));
    }
    // An opponent no longer queued is skipped.
    book.pair(w.key(lo), versionKey("gone", "v1"), 5, 5);
    expect(rest.length + 4).toBeGreaterThan(64);
    const starts = w.pass();
    expect(starts.filter((s) => pairName(s) === "hi-lo").map((s) => s.kind)).toEqual(["discovery"]);
  });
});
