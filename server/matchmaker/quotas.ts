// Match-start quotas (SPEC 8): per bot per hour and per owner per day, house bots exempt. Counts come from
// storage, cached for at most 10 s, plus every start this process made that storage may not show yet, so a
// quota may bite up to 10 s early, never late.
import type { MatchStore } from "../results/match-store.ts";

export const QUOTA_CACHE_MS = 10_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

interface LocalStart {
  botId: string;
  owner: string;
  at: number;
  /** When its result was stored; it then shows in storage counts taken after this time. */
  storedAt: number | null;
}

export class QuotaCounts {
  private hourByBot = new Map<string, number>();
  private dayByOwner = new Map<string, number>();
  private refreshedAt = 0;
  private refreshing: Promise<void> | null = null;
  private readonly local = new Map<string, LocalStart[]>();

  /** Counts starts on one ladder when `ladderId` is given (each ladder's quotas are its own). */
  constructor(
    private readonly store: Pick<MatchStore, "startsSince">,
    private readonly ladderId?: string,
  ) {}

  /** Refreshes from storage when the cache is older than 10 s (never concurrently). */
  async refresh(now = Date.now(), force = false): Promise<void> {
    if (!force && now - this.refreshedAt < QUOTA_CACHE_MS) return;
    this.refreshing ??= (async () => {
      const queryStarted = Date.now();
      const [hour, day] = await Promise.all([
        this.store.startsSince(new Date(queryStarted - HOUR_MS).toISOString(), this.ladderId),
        this.store.startsSince(new Date(queryStarted - DAY_MS).toISOString(), this.ladderId),
      ]);
      this.hourByBot = hour.byBot;
      this.dayByOwner = day.byOwner;
      this.refreshedAt = queryStarted;
      // Starts stored before the query began are now in the storage counts.
      for (const [id, starts] of this.local) {
        const keep = starts.filter((s) => s.storedAt === null || s.storedAt >= queryStarted);
        if (keep.length === 0) this.local.delete(id);
        else this.local.set(id, keep);
      }
    })().finally(() => {
      this.refreshing = null;
    });
    await this.refreshing;
  }

  started(matchId: string, bots: { botId: string; owner: string; house: boolean }[], now = Date.now()): void {
    const players = bots
      .filter((b) => !b.house)
      .map((b) => ({ botId: b.botId, owner: b.owner, at: now, storedAt: null }));
    if (players.length > 0) this.local.set(matchId, players);
  }

  stored(matchId: string, now = Date.now()): void {
    for (const s of this.local.get(matchId) ?? []) s.storedAt = now;
  }

  botLastHour(botId: string, now = Date.now()): number {
    let n = this.hourByBot.get(botId) ?? 0;
    for (const starts of this.local.values())
      for (const s of starts) if (s.botId === botId && now - s.at < HOUR_MS) n++;
    return n;
  }

  ownerLastDay(owner: string, now = Date.now()): number {
    let n = this.dayByOwner.get(owner) ?? 0;
    for (const starts of this.local.values())
      for (const s of starts) if (s.owner === owner && now - s.at < DAY_MS) n++;
    return n;
  }
}
