// A running match's watchdog (match-runner.ts): while the worker owes an answer, it terminates the worker if the
// answer takes longer than the timeout. One lazy timer: arming only writes a time, and a timer that wakes with
// nothing owed stops, so a tick costs no timer of its own.
export class Watchdog {
  /** performance.now() since when the worker owes an answer; null when it owes none. */
  owedSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly timeoutMs: number,
    private readonly hung: () => void,
  ) {}

  arm(): void {
    this.owedSince = performance.now();
    if (!this.timer) this.sleep(this.timeoutMs);
  }

  disarm(): void {
    this.owedSince = null; // the pending timer finds nothing owed when it wakes, and stops
  }

  clear(): void {
    this.disarm();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private sleep(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.owedSince === null) return;
      const left = this.owedSince + this.timeoutMs - performance.now();
      if (left <= 0) this.hung();
      else this.sleep(left);
    }, ms);
    this.timer.unref();
  }
}
