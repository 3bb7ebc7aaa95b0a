// Hits per key in a sliding window that cluster mode shares between nodes (issue 36, part 4): the sign-in routes'
// budget per client address and the per-account throttles. Each node counts its own hits as it did; a HitLog
// keeps the other nodes' (told by server/cluster/shared-hits.ts) so that a limit counts the whole cluster's, and
// tells its own to whoever listens. A single server has no listener and nothing elsewhere: it counts as before.

/** Other nodes' hits are kept this long at most, whatever window asks (the longest limit is an hour). */
const KEEP_MS = 3_600_000;

export class HitLog {
  private readonly elsewhereAt = new Map<string, number[]>();
  private told: ((key: string) => void) | null = null;

  /** Cluster mode: told of each hit counted on this node. */
  tellHits(listener: (key: string) => void): void {
    this.told = listener;
  }

  /** A hit counted here. */
  hit(key: string): void {
    this.told?.(key);
  }

  /** `n` hits another node counted, now. */
  hitsElsewhere(key: string, n: number, now = Date.now()): void {
    const times = this.elsewhereAt.get(key) ?? [];
    for (let i = 0; i < n; i++) times.push(now);
    this.elsewhereAt.set(key, times);
    if (this.elsewhereAt.size > 10_000) this.sweep(now);
  }

  /** Other nodes' hits of `key` within the last `windowMs` (a key is always asked with the same window). */
  elsewhere(key: string, windowMs: number, now = Date.now()): number {
    const times = this.elsewhereAt.get(key);
    if (!times) return 0;
    const live = times.filter((t) => now - t < windowMs);
    if (live.length === 0) this.elsewhereAt.delete(key);
    else if (live.length !== times.length) this.elsewhereAt.set(key, live);
    return live.length;
  }

  private sweep(now: number): void {
    for (const [key, times] of this.elsewhereAt)
      if (times.every((t) => now - t >= KEEP_MS)) this.elsewhereAt.delete(key);
  }
}
