// One budget for unauthenticated WebSocket upgrades across all addresses (--upgrades-per-second). A storm of
// made-up tokens spread over many addresses stays under every per-address budget, yet each of its upgrades
// costs a handshake, a token hash and an error frame; 5,000 of them stalled the whole server for seconds
// (issue 31). Every upgrade to /bot or /human takes a unit before any work; a bot whose token checks out
// gives it back, so only upgrades that never authenticate (or are still being checked) spend the budget, and
// a burst of bots reconnecting after a restart passes. Beyond it the upgrade is answered `503 server_busy`
// with Retry-After, which the protocol's clients retry with backoff (SPEC 7.2). A token bucket: it holds up
// to one second's worth and refills continuously.

export class UpgradeBudget {
  private tokens: number;
  private at: number;

  /** `perSecond` 0: no budget. */
  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = perSecond;
    this.at = now();
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.at) * this.perSecond) / 1000);
    this.at = now;
  }

  /** Spends one unit: null when the upgrade may go on, else the seconds to wait. */
  take(): number | null {
    if (this.perSecond === 0) return null;
    this.refill();
    if (this.tokens >= 1) {
      this.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - this.tokens) / this.perSecond));
  }

  /** An upgrade authenticated: its unit comes back. */
  give(): void {
    if (this.perSecond === 0) return;
    this.refill();
    this.tokens = Math.min(this.perSecond, this.tokens + 1);
  }
}

/** The refusal written on the raw socket instead of the upgrade. */
export function serverBusy(retryAfterS: number): string {
  const body = JSON.stringify({
    error: `the server is busy with other connection attempts; retry in ${retryAfterS} s`,
    code: "server_busy",
  });
  return (
    "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\n" +
    `Retry-After: ${retryAfterS}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
