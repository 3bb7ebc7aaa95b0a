// Per-address budgets on the WebSocket doors (/bot and /human): connects, and failed bot-token checks. An
// address over either budget is answered `429 rate_limited` with Retry-After before the upgrade, which costs
// the server one small write and no token check, so a flood of made-up tokens costs its sender rather than
// the running matches. Token buckets: a budget of N per minute holds up to N and refills continuously.
// Behind a reverse proxy every client shares the proxy's address: raise the budgets there (docs/operations.md).

class Buckets {
  private readonly level = new Map<string, { tokens: number; at: number }>();
  private readonly perMs: number;

  constructor(private readonly perMinute: number) {
    this.perMs = perMinute / 60_000;
  }

  private refill(addr: string, now: number): { tokens: number; at: number } {
    const b = this.level.get(addr);
    if (!b) return { tokens: this.perMinute, at: now };
    b.tokens = Math.min(this.perMinute, b.tokens + (now - b.at) * this.perMs);
    b.at = now;
    return b;
  }

  /** Spends one unit; false (spending nothing) when none is left. */
  take(addr: string, now: number): boolean {
    const b = this.refill(addr, now);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    this.level.set(addr, b);
    this.sweep(now);
    return true;
  }

  /** Spends one unit even when none is left (a failure has happened; it counts). */
  charge(addr: string, now: number): void {
    const b = this.refill(addr, now);
    b.tokens = Math.max(-this.perMinute, b.tokens - 1);
    this.level.set(addr, b);
    this.sweep(now);
  }

  /** Seconds until one unit is back (0 when there is one now). */
  waitS(addr: string, now: number): number {
    const b = this.refill(addr, now);
    return b.tokens >= 1 ? 0 : Math.ceil((1 - b.tokens) / this.perMs / 1000);
  }

  // Forget addresses whose bucket is full again, so many one-off addresses do not grow the map for good.
  private sweep(now: number): void {
    if (this.level.size < 10_000) return;
    for (const [addr, b] of this.level)
      if (b.tokens + (now - b.at) * this.perMs >= this.perMinute) this.level.delete(addr);
  }
}

/** A unit spent from an address's budget: a connect let through, or a failed token check. */
export type Spend = "connect" | "failure";

export class AddressLimits {
  private readonly connects: Buckets;
  private readonly failures: Buckets;
  private told: ((addr: string, spend: Spend) => void) | null = null;

  constructor(
    limits: { connectsPerMinute: number; authFailuresPerMinute: number },
    private readonly now: () => number = Date.now,
  ) {
    this.connects = new Buckets(limits.connectsPerMinute);
    this.failures = new Buckets(limits.authFailuresPerMinute);
  }

  /** A connect from `addr`: null when it may go on, else the seconds it should wait. */
  admit(addr: string): number | null {
    const now = this.now();
    const failWait = this.failures.waitS(addr, now);
    if (failWait > 0) return failWait;
    if (!this.connects.take(addr, now)) return Math.max(1, this.connects.waitS(addr, now));
    this.told?.(addr, "connect");
    return null;
  }

  /** A bot-token check from `addr` failed (missing or unknown token). */
  failed(addr: string): void {
    this.failures.charge(addr, this.now());
    this.told?.(addr, "failure");
  }

  /**
   * Cluster mode: told of each unit this node spends, so that the other nodes charge it too and an address has
   * one budget in the whole cluster, not one per node (server/cluster/shared-budgets.ts).
   */
  tellSpends(listener: (addr: string, spend: Spend) => void): void {
    this.told = listener;
  }

  /** Units another node of the cluster spent for `addr`: charged here as if spent here. */
  spentElsewhere(addr: string, connects: number, failures: number): void {
    const now = this.now();
    for (let i = 0; i < connects; i++) this.connects.charge(addr, now);
    for (let i = 0; i < failures; i++) this.failures.charge(addr, now);
  }
}

/** The refusal written on the raw socket instead of the upgrade. */
export function tooManyConnects(retryAfterS: number): string {
  const body = JSON.stringify({
    error: `too many connection attempts from this address; retry in ${retryAfterS} s`,
    code: "rate_limited",
  });
  return (
    "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n" +
    `Retry-After: ${retryAfterS}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
