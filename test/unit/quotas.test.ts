// The quota counts of SPEC 8 against a store that honours the time window it is asked for: a quota may take
// effect up to 10 s early, never late. Property tests over random start histories (fast-check) compare the
// counts with the true number of starts in the window; example tests pin the house exemption, the per-owner
// sum, the cache age and the single refresh in flight.
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { QUOTA_CACHE_MS, QuotaCounts } from "../../server/matchmaker/quotas.ts";

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Seat {
  botId: string;
  owner: string;
  house: boolean;
}

interface StoredMatch {
  seats: Seat[];
  started: number;
  /** When storage shows it: a query that begins after this time counts it. */
  storedAt: number;
}

/**
 * The one store call QuotaCounts makes, answered as the SQL store does (starts at or after `since`, player
 * seats only), over the matches stored before the query began.
 */
class WindowStore {
  readonly matches: StoredMatch[] = [];
  queries: string[] = [];

  async startsSince(since: string) {
    const now = Date.now();
    const from = Date.parse(since);
    this.queries.push(since);
    const byBot = new Map<string, number>();
    const byOwner = new Map<string, number>();
    for (const m of this.matches) {
      if (m.storedAt >= now || m.started < from) continue;
      for (const s of m.seats) {
        if (s.house) continue;
        byBot.set(s.botId, (byBot.get(s.botId) ?? 0) + 1);
        byOwner.set(s.owner, (byOwner.get(s.owner) ?? 0) + 1);
      }
    }
    return { byBot, byOwner };
  }

  asStore(): ConstructorParameters<typeof QuotaCounts>[0] {
    return this;
  }
}

const BOTS: Seat[] = [
  { botId: "b1", owner: "o1", house: false },
  { botId: "b2", owner: "o1", house: false },
  { botId: "b3", owner: "o2", house: false },
  { botId: "h1", owner: "house", house: true },
];
const PLAYERS = BOTS.filter((b) => !b.house);
const OWNERS = ["o1", "o2"];

/** A match's two seats, from a pair of distinct indices into BOTS. */
const seatsOf = (x: number, y: number): Seat[] => [BOTS[x]!, BOTS[x === y ? (y + 1) % BOTS.length : y]!];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(T0);
});
afterEach(() => {
  vi.useRealTimers();
});

describe("QuotaCounts: never late, at most 10 s early (property)", () => {
  const pair = fc.tuple(fc.nat(BOTS.length - 1), fc.nat(BOTS.length - 1));
  // Steps land on the boundaries that matter (the cache age, the hour, the day) as well as anywhere.
  const dt = fc.oneof(
    fc.constantFrom(0, 1, QUOTA_CACHE_MS - 1, QUOTA_CACHE_MS, QUOTA_CACHE_MS + 1, HOUR - 1, HOUR, HOUR + 1),
    fc.constantFrom(DAY - QUOTA_CACHE_MS, DAY - 1, DAY, DAY + 1),
    fc.integer({ min: 0, max: 20 * 60_000 }),
  );
  const step = fc.oneof(
    fc.record({ kind: fc.constant("start" as const), dt, pair }),
    fc.record({ kind: fc.constant("store" as const), dt, which: fc.nat() }),
    fc.record({ kind: fc.constant("check" as const), dt }),
  );
  // Earlier history: starts up to two days back, each stored some time after it began but before T0.
  const history = fc.array(
    fc.record({ ago: fc.integer({ min: 1, max: 2 * DAY }), pair, storedAfter: fc.nat() }),
    { maxLength: 30 },
  );

  it("counts every start in the last hour (day), and none older than an hour (day) plus 10 s", async () => {
    await fc.assert(
      fc.asyncProperty(history, fc.array(step, { minLength: 1, maxLength: 40 }), async (past, steps) => {
        vi.setSystemTime(T0);
        const store = new WindowStore();
        for (const h of past) {
          const started = T0 - h.ago;
          store.matches.push({
            seats: seatsOf(...h.pair),
            started,
            storedAt: started + (h.storedAfter % h.ago),
          });
        }
        // Every start, stored or not, as the truth the counts are checked against.
        const starts: { seats: Seat[]; at: number }[] = store.matches.map((m) => ({
          seats: m.seats,
          at: m.started,
        }));
        const running: { id: string; seats: Seat[]; at: number }[] = [];
        const quotas = new QuotaCounts(store.asStore());
        await quotas.refresh(Date.now(), true);
        let n = 0;
        for (const s of steps) {
          vi.setSystemTime(Date.now() + s.dt);
          const now = Date.now();
          if (s.kind === "start") {
            const seats = seatsOf(...s.pair);
            const id = `m${n++}`;
            quotas.started(id, seats, now);
            running.push({ id, seats, at: now });
            starts.push({ seats, at: now });
          } else if (s.kind === "store" && running.length > 0) {
            const [m] = running.splice(s.which % running.length, 1);
            store.matches.push({ seats: m!.seats, started: m!.at, storedAt: now });
            quotas.stored(m!.id, now);
          } else {
            // The matchmaker refreshes on every pass before it reads the counts.
            await quotas.refresh(now);
            const count = (window: number, early: number, has: (s: Seat) => boolean) =>
              starts.filter((x) => now - x.at < window + early && x.seats.some((seat) => has(seat))).length;
            for (const p of PLAYERS) {
              const mine = (seat: Seat) => seat.botId === p.botId;
              const got = quotas.botLastHour(p.botId, now);
              expect(got).toBeGreaterThanOrEqual(count(HOUR, 0, mine));
              expect(got).toBeLessThanOrEqual(count(HOUR, QUOTA_CACHE_MS + 1, mine));
            }
            for (const owner of OWNERS) {
              // An owner's day counts player seats: two of the owner's bots in one match count twice.
              const seatsOfOwner = (window: number, early: number) =>
                starts
                  .filter((x) => now - x.at < window + early)
                  .reduce((sum, x) => sum + x.seats.filter((seat) => seat.owner === owner).length, 0);
              const got = quotas.ownerLastDay(owner, now);
              expect(got).toBeGreaterThanOrEqual(seatsOfOwner(DAY, 0));
              expect(got).toBeLessThanOrEqual(seatsOfOwner(DAY, QUOTA_CACHE_MS + 1));
            }
            expect(quotas.botLastHour("h1", now)).toBe(0);
            expect(quotas.ownerLastDay("house", now)).toBe(0);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe("QuotaCounts: examples", () => {
  const seat = (botId: string, owner: string, house = false): Seat => ({ botId, owner, house });

  it("asks storage for the last hour and the last day, measured from when the query starts", async () => {
    const store = new WindowStore();
    const quotas = new QuotaCounts(store.asStore());
    await quotas.refresh(Date.now(), true);
    expect(store.queries.sort()).toEqual(
      [new Date(T0 - HOUR).toISOString(), new Date(T0 - DAY).toISOString()].sort(),
    );
  });

  it("counts a stored start by bot for the hour and by owner for the day, house bots exempt", async () => {
    const store = new WindowStore();
    store.matches.push(
      { seats: [seat("a", "o"), seat("h", "house", true)], started: T0 - 2 * HOUR, storedAt: T0 - HOUR },
      { seats: [seat("a", "o"), seat("b", "o")], started: T0 - 30 * 60_000, storedAt: T0 - 60_000 },
      { seats: [seat("c", "p"), seat("b", "o")], started: T0 - 25 * HOUR, storedAt: T0 - 20 * HOUR },
    );
    const quotas = new QuotaCounts(store.asStore());
    await quotas.refresh(Date.now(), true);
    expect(quotas.botLastHour("a")).toBe(1);
    expect(quotas.botLastHour("b")).toBe(1);
    expect(quotas.botLastHour("c")).toBe(0);
    expect(quotas.botLastHour("h")).toBe(0);
    expect(quotas.ownerLastDay("o")).toBe(3);
    expect(quotas.ownerLastDay("p")).toBe(0);
    expect(quotas.ownerLastDay("house")).toBe(0);
  });

  it("counts this process's starts at once, until storage shows them, and only for an hour (a day)", async () => {
    const store = new WindowStore();
    const quotas = new QuotaCounts(store.asStore());
    await quotas.refresh(Date.now(), true);
    quotas.started("m1", [seat("a", "o"), seat("h", "house", true)]);
    quotas.started("m2", [seat("h", "house", true), seat("h2", "house", true)]);
    expect(quotas.botLastHour("a")).toBe(1);
    expect(quotas.ownerLastDay("o")).toBe(1);
    expect(quotas.botLastHour("h")).toBe(0);
    expect(quotas.ownerLastDay("house")).toBe(0);
    // A result for a match it never counted (house against house, or from before a restart) changes nothing.
    quotas.stored("m2");
    quotas.stored("unknown");
    expect(quotas.botLastHour("a")).toBe(1);
    // In flight for just under an hour, then exactly an hour: the hour's count lets go, the day's does not.
    expect(quotas.botLastHour("a", T0 + HOUR - 1)).toBe(1);
    expect(quotas.botLastHour("a", T0 + HOUR)).toBe(0);
    expect(quotas.ownerLastDay("o", T0 + DAY - 1)).toBe(1);
    expect(quotas.ownerLastDay("o", T0 + DAY)).toBe(0);
    // Stored; a refresh that began before the result was stored does not drop the local start.
    vi.setSystemTime(T0 + 5_000);
    quotas.stored("m1");
    store.matches.push({
      seats: [seat("a", "o"), seat("h", "house", true)],
      started: T0,
      storedAt: T0 + 5_000,
    });
    await quotas.refresh(Date.now(), true);
    expect(quotas.botLastHour("a")).toBe(1);
    vi.setSystemTime(T0 + 5_001);
    await quotas.refresh(Date.now(), true);
    expect(quotas.botLastHour("a")).toBe(1);
    expect(quotas.ownerLastDay("o")).toBe(1);
  });

  it("refreshes when the counts are 10 s old, not before, and forced at once", async () => {
    const store = new WindowStore();
    const quotas = new QuotaCounts(store.asStore());
    await quotas.refresh(Date.now());
    expect(store.queries).toHaveLength(2);
    vi.setSystemTime(T0 + QUOTA_CACHE_MS - 1);
    await quotas.refresh(Date.now());
    expect(store.queries).toHaveLength(2);
    await quotas.refresh(Date.now(), true);
    expect(store.queries).toHaveLength(4);
    vi.setSystemTime(T0 + 2 * QUOTA_CACHE_MS - 1);
    await quotas.refresh(Date.now());
    expect(store.queries).toHaveLength(6);
  });

  it("runs one refresh at a time: a second call waits for the one in flight", async () => {
    const store = new WindowStore();
    const quotas = new QuotaCounts(store.asStore());
    store.matches.push({ seats: [seat("a", "o"), seat("b", "p")], started: T0 - 1, storedAt: T0 - 1 });
    const first = quotas.refresh(Date.now(), true);
    const second = quotas.refresh(Date.now(), true);
    await second;
    expect(quotas.botLastHour("a")).toBe(1);
    await first;
    expect(store.queries).toHaveLength(2);
    await quotas.refresh(Date.now(), true);
    expect(store.queries).toHaveLength(4);
  });
});
