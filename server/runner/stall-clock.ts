// The front process's own stalls, so a bot is never charged for them: while the event loop is blocked (a
// garbage-collection pause, a burst of synchronous work, a slow disk), a bot's reply sits unread in the socket
// buffer and the deadline timer cannot fire on time. A cheap heartbeat notes each gap in the loop longer than
// expected; the runner subtracts the stalled time inside a tick's window from the reply time it charges and
// pushes that tick's deadline back by it.
import { performance } from "node:perf_hooks";

const CAPACITY = 64;

export class StallClock {
  /** Recent stalls as [start, end) in performance.now() ms, a ring of CAPACITY pairs. */
  private readonly ring = new Float64Array(2 * CAPACITY);
  private next = 0;
  private count = 0;
  private last = performance.now();
  private readonly timer: NodeJS.Timeout;
  /** A gap in the heartbeat above interval + slack counts as a stall (timers are never exactly on time). */
  private readonly limit: number;

  constructor(
    private readonly intervalMs = 10,
    slackMs = 15,
  ) {
    this.limit = intervalMs + slackMs;
    this.timer = setInterval(() => this.beat(), intervalMs);
    this.timer.unref();
  }

  private beat(): void {
    const now = performance.now();
    if (now - this.last > this.limit) this.record(this.last + this.intervalMs, now);
    this.last = now;
  }

  private record(start: number, end: number): void {
    this.ring[2 * this.next] = start;
    this.ring[2 * this.next + 1] = end;
    this.next = (this.next + 1) % CAPACITY;
    this.count = Math.min(this.count + 1, CAPACITY);
  }

  /**
   * Milliseconds of [from, to] the event loop spent stalled, counting a stall still under way (the heartbeat
   * has not run since before it began: the caller runs first in the turn that ends it).
   */
  stalledWithin(from: number, to: number): number {
    let total = 0;
    for (let k = 0; k < this.count; k++) {
      const a = Math.max(from, this.ring[2 * k]!);
      const b = Math.min(to, this.ring[2 * k + 1]!);
      if (b > a) total += b - a;
    }
    if (to - this.last > this.limit) {
      const a = Math.max(from, this.last + this.intervalMs);
      if (to > a) total += to - a;
    }
    return total;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
