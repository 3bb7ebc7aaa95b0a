// The hits per key a cluster shares (server/kernel/hit-log.ts) and the sign-in budget's store that adds them to its
// own fixed window (server/accounts/rate-store.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { sharedRateStore } from "../../server/accounts/rate-store.ts";
import { HitLog } from "../../server/kernel/hit-log.ts";

const MINUTE = 60_000;

function incr(
  store: {
    incr: (k: string, d: (e: Error | null, r: { current: number; ttl: number }) => void, w: number) => void;
  },
  key: string,
) {
  let out = { current: -1, ttl: -1 };
  store.incr(key, (_e, r) => (out = r), MINUTE);
  return out;
}

describe("HitLog and the shared rate store", () => {
  beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it("counts other nodes' hits within the window only", () => {
    const log = new HitLog();
    log.hitsElsewhere("k", 3);
    vi.setSystemTime(1_000_000 + 30_000);
    log.hitsElsewhere("k", 1);
    expect(log.elsewhere("k", MINUTE)).toBe(4);
    vi.setSystemTime(1_000_000 + MINUTE);
    expect(log.elsewhere("k", MINUTE)).toBe(1);
    expect(log.elsewhere("other", MINUTE)).toBe(0);
  });

  it("tells each hit counted here to its listener", () => {
    const log = new HitLog();
    const told: string[] = [];
    log.tellHits((k) => told.push(k));
    const store = new (sharedRateStore(log))().child();
    incr(store, "1.2.3.4");
    incr(store, "1.2.3.4");
    expect(told).toEqual(["1.2.3.4", "1.2.3.4"]);
  });

  it("answers its own fixed window plus the other nodes' hits, and resets when the window has passed", () => {
    const log = new HitLog();
    const store = new (sharedRateStore(log))();
    expect(incr(store, "a")).toEqual({ current: 1, ttl: MINUTE });
    log.hitsElsewhere("a", 5);
    vi.setSystemTime(1_000_000 + 10_000);
    expect(incr(store, "a")).toEqual({ current: 2 + 5, ttl: MINUTE - 10_000 });
    let read = { current: -1, ttl: -1 };
    store.read("a", (_e, r) => (read = r), MINUTE);
    expect(read).toEqual({ current: 7, ttl: MINUTE - 10_000 });
    vi.setSystemTime(1_000_000 + MINUTE + 1);
    expect(incr(store, "a")).toEqual({ current: 1, ttl: MINUTE });
  });
});
