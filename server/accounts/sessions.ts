// Whether an access token's session is still live, for the built-in identity provider. Every access token
// names its session; sign-out, a password change (the other sessions), a refresh-token reuse and account
// deletion end sessions. The answer is cached briefly in memory so an authenticated request costs no query; whoever ends
// sessions in this process drops the cached answers at once (forget), and on another server of the same
// database an ended session is refused within LIVE_CACHE_MS.
import type { IdentityStore } from "./identity-store.ts";

export const LIVE_CACHE_MS = 5_000;
const MAX_ENTRIES = 50_000;

export class SessionGate {
  private readonly live = new Map<string, { userId: string; at: number }>();
  private readonly ended = new Set<string>();

  constructor(private readonly identity: IdentityStore) {}

  async active(sessionId: string, userId: string): Promise<boolean> {
    if (this.ended.has(sessionId)) return false;
    const hit = this.live.get(sessionId);
    if (hit && hit.userId === userId && Date.now() - hit.at < LIVE_CACHE_MS) return true;
    const s = await this.identity.session(sessionId);
    if (!s || s.user_id !== userId || s.ended !== null) {
      this.live.delete(sessionId);
      if (s?.ended) this.remember(sessionId);
      return false;
    }
    if (this.live.size >= MAX_ENTRIES) this.live.clear();
    this.live.set(sessionId, { userId, at: Date.now() });
    return true;
  }

  /** Sessions ended in this process: refused at once, without waiting for the cache to expire. */
  forget(sessionIds: Iterable<string>): void {
    for (const id of sessionIds) this.remember(id);
  }

  /** Every cached session of a user (account deletion). */
  forgetUser(userId: string): void {
    for (const [id, e] of this.live) if (e.userId === userId) this.remember(id);
  }

  private remember(id: string): void {
    this.live.delete(id);
    // Ended sessions never come back; the set is only a shortcut, so dropping it when large is safe.
    if (this.ended.size >= MAX_ENTRIES) this.ended.clear();
    this.ended.add(id);
  }
}
