// The store behind the sign-in routes' budget per client address (--auth-rate-limit, @fastify/rate-limit's `store`
// option): the plugin's own fixed window per key, counted here, plus the hits other nodes of a cluster counted in
// the last window (HitLog), so that an address has one budget in the cluster. A single server's count is the
// plugin's default store's: the first hit opens a window of `timeWindow`, the count resets when it has passed.
import type { HitLog } from "../kernel/hit-log.ts";

type Done = (err: Error | null, res: { current: number; ttl: number }) => void;

/** Keys whose window is over are forgotten once there are more than this many. */
const SWEEP_AT = 10_000;

export function sharedRateStore(hits: HitLog) {
  return class SharedRateStore {
    private readonly windows = new Map<string, { count: number; start: number }>();

    incr(key: string, done: Done, timeWindow: number): void {
      const now = Date.now();
      let w = this.windows.get(key);
      if (!w || now - w.start >= timeWindow) {
        w = { count: 0, start: now };
        this.windows.set(key, w);
        if (this.windows.size > SWEEP_AT) this.sweep(now, timeWindow);
      }
      w.count++;
      hits.hit(key);
      done(null, {
        current: w.count + hits.elsewhere(key, timeWindow, now),
        ttl: timeWindow - (now - w.start),
      });
    }

    read(key: string, done: Done, timeWindow: number): void {
      const now = Date.now();
      const w = this.windows.get(key);
      const live = w && now - w.start < timeWindow;
      done(null, {
        current: (live ? w.count : 0) + hits.elsewhere(key, timeWindow, now),
        ttl: live ? timeWindow - (now - w.start) : 0,
      });
    }

    child(): SharedRateStore {
      return new SharedRateStore();
    }

    private sweep(now: number, timeWindow: number): void {
      for (const [key, w] of this.windows) if (now - w.start >= timeWindow) this.windows.delete(key);
    }
  };
}
