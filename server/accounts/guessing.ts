// Password guessing slowed per account, on top of the per-address request limit: after a few failed
// sign-ins for one email (registered or not, so the answer tells nothing), each further attempt must wait a
// doubling delay, refused with 429 without looking at the password. It is a delay, never a lockout: the
// failures fade after a quiet quarter of an hour, and the identity provider lets the owner through from an
// address where they signed in recently. Kept in memory: a restart forgets it. In a cluster each node tells the
// others of its attempts and successes (server/cluster/shared-hits.ts), so one email has one count: sign-ins
// spread over the nodes by a load balancer get no more guesses.
export interface GuessPolicy {
  /** Failures allowed before any delay. */
  free: number;
  baseMs: number;
  maxMs: number;
  /** Failures are forgotten after this long without one. */
  forgetMs: number;
}

export const GUESS_POLICY: GuessPolicy = { free: 5, baseMs: 1_000, maxMs: 60_000, forgetMs: 15 * 60_000 };
const MAX_ENTRIES = 100_000;

export class GuessThrottle {
  private readonly accounts = new Map<string, { attempts: number; last: number; until: number }>();
  private told: ((email: string, what: "attempt" | "succeeded") => void) | null = null;

  constructor(private readonly policy: GuessPolicy = GUESS_POLICY) {}

  /** Milliseconds until the next attempt at this email is looked at; 0 when it may go ahead now. */
  wait(email: string, now = Date.now()): number {
    const e = this.entry(email.toLowerCase(), now);
    return e ? Math.max(0, e.until - now) : 0;
  }

  /**
   * Counts an attempt before its password is checked (call it in the same turn as wait()), so attempts sent
   * all at once cannot slip through together; a right password takes it back (succeeded).
   */
  attempt(email: string, now = Date.now()): void {
    const key = email.toLowerCase();
    this.count(key, now);
    this.told?.(key, "attempt");
  }

  succeeded(email: string): void {
    const key = email.toLowerCase();
    this.takeBack(key);
    this.told?.(key, "succeeded");
  }

  /** Cluster mode: told of each attempt and success counted on this node (by lowercase email). */
  tellGuesses(listener: (email: string, what: "attempt" | "succeeded") => void): void {
    this.told = listener;
  }

  /** Attempts and successes another node counted at `email`, now: as if they had been made here. */
  guessedElsewhere(email: string, attempts: number, successes: number, now = Date.now()): void {
    const key = email.toLowerCase();
    for (let i = 0; i < attempts; i++) this.count(key, now);
    for (let i = 0; i < successes; i++) this.takeBack(key);
  }

  private count(key: string, now: number): void {
    const e = this.entry(key, now) ?? { attempts: 0, last: now, until: 0 };
    e.attempts++;
    e.last = now;
    // From the free-th attempt on, the next one waits: base, then doubling up to the cap.
    const over = e.attempts - this.policy.free + 1;
    if (over > 0) e.until = now + Math.min(this.policy.maxMs, this.policy.baseMs * 2 ** (over - 1));
    this.accounts.delete(key); // re-insert: the map's order is then oldest activity first
    this.accounts.set(key, e);
    if (this.accounts.size > MAX_ENTRIES) {
      const oldest = this.accounts.keys().next().value;
      if (oldest !== undefined) this.accounts.delete(oldest);
    }
  }

  private takeBack(key: string): void {
    const e = this.accounts.get(key);
    if (!e) return;
    e.attempts = Math.max(0, e.attempts - 1);
    // Below the free attempts there is no delay: the one this attempt set is lifted.
    if (e.attempts < this.policy.free) e.until = 0;
  }

  private entry(key: string, now: number) {
    const e = this.accounts.get(key);
    if (e && now - e.last > this.policy.forgetMs) {
      this.accounts.delete(key);
      return undefined;
    }
    return e;
  }
}
