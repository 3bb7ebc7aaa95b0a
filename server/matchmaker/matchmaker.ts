// A first matchmaker, good enough to play (the full one of SPEC 1.2 replaces the pairing rule, not this
// module's boundaries). Each pass pairs waiting bots oldest first: with another waiting player bot when one
// is compatible, otherwise, after a short wait, with a house bot. Hard exclusions are never overridden:
// same owner, house versus house, the rematch hold, capacity and the per-bot and per-owner limits.
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { Lobby, Participant } from "../ladder/lobby.ts";

export const REMATCH_HOLD_MS = 10_000;
const QUOTA_NOTICE_MS = 5 * 60_000;
const HOUR_MS = 3_600_000;

export interface MatchmakerDeps {
  lobby: Lobby;
  config: Config;
  log: Logger;
  running(): number;
  runningForOwner(owner: string): number;
  start(a: Participant, b: Participant): void;
  /** How long a player waits for another player before a house bot is offered. */
  houseWaitMs: number;
}

export class Matchmaker {
  private readonly d: MatchmakerDeps;
  paused = false;

  constructor(d: MatchmakerDeps) {
    this.d = d;
  }

  /** Seconds until this participant could start, as far as pacing and house availability tell. */
  estimatedWaitS(p: Participant, now = Date.now()): number {
    const pacing = Math.max(0, p.lastStartAt + this.d.config.matchIntervalMs - now);
    const house = this.d.lobby.all().some((h) => h.house) ? this.d.houseWaitMs : 0;
    return Math.round(Math.max(pacing, house) / 100) / 10;
  }

  pass(now = Date.now()): void {
    if (this.paused) return;
    const { lobby, config } = this.d;
    const waiting = lobby.waiting("public").filter((p) => !p.house);
    const houses = lobby.all().filter((p) => p.house && p.state === "waiting");
    const paired = new Set<string>();
    for (const p of waiting) {
      if (paired.has(p.bot.id)) continue;
      if (this.d.running() >= config.maxConcurrent) {
        this.notice(p, "capacity", `the server runs ${config.maxConcurrent} matches at most`, now);
        continue;
      }
      if (!this.mayStart(p, now)) continue;
      const partner =
        waiting.find(
          (q) =>
            q !== p && !paired.has(q.bot.id) && this.compatible(p, q, now) && this.mayStart(q, now, false),
        ) ?? (now - p.queuedAt >= this.d.houseWaitMs ? this.pickHouse(p, houses, now) : undefined);
      if (!partner) continue;
      paired.add(p.bot.id);
      paired.add(partner.bot.id);
      this.d.start(p, partner);
    }
  }

  private compatible(a: Participant, b: Participant, now: number): boolean {
    if (a.bot.id === b.bot.id) return false;
    if (a.house && b.house) return false;
    if (a.bot.owner === b.bot.owner) return false;
    const met = a.lastMet.get(b.bot.id) ?? b.lastMet.get(a.bot.id);
    return met === undefined || now - met >= REMATCH_HOLD_MS;
  }

  private pickHouse(p: Participant, houses: Participant[], now: number): Participant | undefined {
    return houses
      .filter((h) => this.compatible(p, h, now))
      .sort((x, y) => (p.lastMet.get(x.bot.id) ?? 0) - (p.lastMet.get(y.bot.id) ?? 0))[0];
  }

  /** Checks the per-bot and per-owner limits; `notify` sends quota_exceeded for a blocked bot. */
  private mayStart(p: Participant, now: number, notify = true): boolean {
    const { config } = this.d;
    if (p.house) return true;
    if (now - p.lastStartAt < config.matchIntervalMs) return false; // pacing, not a quota
    while (p.starts.length > 0 && now - p.starts[0]! > HOUR_MS) p.starts.shift();
    if (p.starts.length >= config.hourlyQuota) {
      if (notify)
        this.notice(p, "hourly_quota", `at most ${config.hourlyQuota} matches per hour per bot`, now);
      return false;
    }
    if (this.d.runningForOwner(p.bot.owner) >= config.ownerConcurrency) {
      if (notify)
        this.notice(
          p,
          "owner_concurrency",
          `at most ${config.ownerConcurrency} matches at once per owner`,
          now,
        );
      return false;
    }
    return true;
  }

  /** quota_exceeded at most once per 5 minutes per reason (SPEC 3.2); the bot stays queued. */
  private notice(p: Participant, reason: string, message: string, now: number): void {
    const last = p.quotaNotices.get(reason);
    if (last !== undefined && now - last < QUOTA_NOTICE_MS) return;
    p.quotaNotices.set(reason, now);
    p.conn?.error("quota_exceeded", `${message}; still queued (${reason})`);
    this.d.log.info({ bot: p.bot.name, reason }, "quota_exceeded");
  }
}
