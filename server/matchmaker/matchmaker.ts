// The matchmaker of SPEC 1.2: a periodic pass over the whole queue. It applies the hard limits (capacity,
// pacing, quotas, owner concurrency) to each waiting bot, hands the eligible ones and the house bots to the
// pairing rule (maximum-weight matching, pairing.ts), then plans each start: the pair's least-played map
// (the seed breaks ties) and fighter ids that reduce each bot's accumulated seat imbalance.
import { randomInt } from "node:crypto";
import type { Logger } from "pino";
import { MAP_NAMES } from "../../engine/rules.ts";
import type { Config } from "../config.ts";
import type { Lobby, Participant } from "../ladder/lobby.ts";
import { type RatingBook, versionKey } from "../ratings/book.ts";
import { type Candidate, choosePairs, REMATCH_HOLD_MS } from "./pairing.ts";
import type { QuotaCounts } from "./quotas.ts";

export { REMATCH_HOLD_MS };

const QUOTA_NOTICE_MS = 5 * 60_000;
/** One ranked start in DISCOVERY_EVERY is reserved for discovery. */
export const DISCOVERY_EVERY = 7;

export interface StartPlan {
  /** Fighter 0 then fighter 1. */
  seats: [Participant, Participant];
  map: string;
  seed: number;
  kind: "competitive" | "discovery";
}

export interface MatchmakerDeps {
  lobby: Lobby;
  config: Config;
  log: Logger;
  ratings: RatingBook;
  quotas: QuotaCounts;
  /** Fighter-0 games minus fighter-1 games per bot; updated here on each start. */
  seatBalance: Map<string, number>;
  running(): number;
  runningForOwner(owner: string): number;
  start(plan: StartPlan): void;
  audit(kind: string, subject: string, detail: Record<string, unknown>): void;
  /** How long a player waits for another player before a house bot is offered. */
  houseWaitMs: number;
}

export class Matchmaker {
  private readonly d: MatchmakerDeps;
  private sinceDiscovery = 0;
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
    const { lobby, config, ratings } = this.d;
    void this.d.quotas.refresh(now).catch((err) => this.d.log.error({ err }, "quota refresh failed"));
    let running = this.d.running();
    if (running >= config.maxConcurrent) {
      for (const p of lobby.waiting("public"))
        if (!p.house)
          this.notice(p, "capacity", `the server runs ${config.maxConcurrent} matches at most`, now);
      return;
    }
    const players = lobby.waiting("public").filter((p) => !p.house && this.mayStart(p, now));
    if (players.length === 0) return;
    const houses = lobby.all().filter((p) => p.house && p.state === "waiting");
    const byId = new Map<string, { p: Participant; key: string }>();
    const idOfKey = new Map<string, string>();
    const candidates: Candidate[] = [...players, ...houses].map((p) => {
      const key = versionKey(p.bot.id, p.version ?? "");
      byId.set(p.bot.id, { p, key });
      idOfKey.set(key, p.bot.id);
      const r = ratings.get(key);
      while (p.starts.length > 0 && now - p.starts[0]! > 3_600_000) p.starts.shift();
      return {
        id: p.bot.id,
        owner: p.bot.owner,
        house: p.bot.house,
        rating: r.rating,
        ratedGames: r.games,
        waitedMs: p.house ? 0 : now - p.queuedAt,
        recentGames: p.starts.length,
      };
    });
    // One ranked start in seven is discovery. A pass may start many matches at once, so it reserves as
    // many discovery slots as the starts it could make would owe (at most one per pair of candidates
    // with a player in it, and no more than the free capacity).
    const mostStarts = Math.min(
      Math.floor(candidates.length / 2),
      players.length,
      config.maxConcurrent - running,
    );
    const slots = Math.floor((this.sinceDiscovery + mostStarts) / DISCOVERY_EVERY);
    const pairs = choosePairs({
      now,
      candidates,
      discoveryDue: slots > 0,
      discoverySlots: slots,
      facts: (a, b) => {
        const pa = byId.get(a.id)!;
        const pb = byId.get(b.id)!;
        const f = ratings.facts(pa.key, pb.key);
        const met = pa.p.lastMet.get(b.id) ?? pb.p.lastMet.get(a.id) ?? null;
        return { games: f.games, score: f.score, mapQuality: f.mapQuality, lastMetAt: met };
      },
      *tested(a, minGames, maxGames) {
        for (const key of ratings.opponents(byId.get(a.id)!.key, minGames, maxGames)) {
          const id = idOfKey.get(key);
          if (id !== undefined) yield id;
        }
      },
      allowed: (a, b) => {
        const player = a.house ? b : b.house ? a : null;
        return player === null || player.waitedMs >= this.d.houseWaitMs;
      },
    });
    const ownerStarts = new Map<string, number>();
    // Each owner's running matches as the pass began: `start` registers a match at once, so asking
    // runningForOwner again after a start would count this pass's starts twice (with ownerStarts).
    const ownerRunning = new Map<string, number>();
    const runningBefore = (owner: string) => {
      const known = ownerRunning.get(owner);
      if (known !== undefined) return known;
      const n = this.d.runningForOwner(owner);
      ownerRunning.set(owner, n);
      return n;
    };
    let competitive = 0;
    let discovery = 0;
    for (const pair of pairs) {
      if (running >= config.maxConcurrent) break;
      const a = byId.get(pair.a.id)!.p;
      const b = byId.get(pair.b.id)!.p;
      // Owner concurrency, counting the starts of this pass too.
      const busy = [a, b].find(
        (p) =>
          !p.house &&
          runningBefore(p.bot.owner) + (ownerStarts.get(p.bot.owner) ?? 0) >= config.ownerConcurrency,
      );
      if (busy) continue;
      for (const p of [a, b])
        if (!p.house) ownerStarts.set(p.bot.owner, (ownerStarts.get(p.bot.owner) ?? 0) + 1);
      if (pair.kind === "discovery") discovery++;
      else competitive++;
      running++;
      this.d.start(this.plan(a, b, pair.kind));
    }
    // Each competitive start adds one to the count since the last discovery and each discovery start
    // (reserved or fill-in) pays for the six before it. Reserved slots that found no discovery pair are
    // forgiven rather than owed: when every waiting pair is well tested there is nothing to discover, and
    // the debt must not turn the next passes into a run of discovery starts.
    this.sinceDiscovery = Math.max(0, this.sinceDiscovery + competitive - (DISCOVERY_EVERY - 1) * discovery);
    if (discovery < slots) this.sinceDiscovery = Math.min(this.sinceDiscovery, DISCOVERY_EVERY - 1);
  }

  private plan(a: Participant, b: Participant, kind: StartPlan["kind"]): StartPlan {
    const seed = randomInt(2 ** 31);
    const mapGames = this.d.ratings.facts(
      versionKey(a.bot.id, a.version ?? ""),
      versionKey(b.bot.id, b.version ?? ""),
    ).mapGames;
    const fewest = Math.min(...MAP_NAMES.map((m) => mapGames.get(m) ?? 0));
    const least = MAP_NAMES.filter((m) => (mapGames.get(m) ?? 0) === fewest);
    const map = least[seed % least.length]!;
    // The bot that has sat in seat 0 more often takes seat 1 now; a tie goes by the seed.
    const bal = this.d.seatBalance;
    const ba = bal.get(a.bot.id) ?? 0;
    const bb = bal.get(b.bot.id) ?? 0;
    const seats: [Participant, Participant] = ba > bb || (ba === bb && seed % 2 === 1) ? [b, a] : [a, b];
    bal.set(seats[0].bot.id, (bal.get(seats[0].bot.id) ?? 0) + 1);
    bal.set(seats[1].bot.id, (bal.get(seats[1].bot.id) ?? 0) - 1);
    return { seats, map, seed, kind };
  }

  /** The hard per-bot limits; a blocked bot stays queued and is told at most once per 5 minutes per reason. */
  private mayStart(p: Participant, now: number): boolean {
    const { config, quotas } = this.d;
    if (now - p.lastStartAt < config.matchIntervalMs) return false; // pacing, not a quota
    if (quotas.botLastHour(p.bot.id, now) >= config.hourlyQuota) {
      this.notice(p, "hourly_quota", `at most ${config.hourlyQuota} matches per hour per bot`, now);
      return false;
    }
    if (quotas.ownerLastDay(p.bot.owner, now) >= config.dailyOwnerQuota) {
      this.notice(p, "daily_owner_quota", `at most ${config.dailyOwnerQuota} matches per day per owner`, now);
      return false;
    }
    if (this.d.runningForOwner(p.bot.owner) >= config.ownerConcurrency) {
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

  /** quota_exceeded at most once per 5 minutes per reason (SPEC 3.2); each throttle is audited. */
  private notice(p: Participant, reason: string, message: string, now: number): void {
    const last = p.quotaNotices.get(reason);
    if (last !== undefined && now - last < QUOTA_NOTICE_MS) return;
    p.quotaNotices.set(reason, now);
    p.conn?.error("quota_exceeded", `${message}; still queued (${reason})`);
    this.d.audit("throttle", p.bot.name, { reason, message });
    this.d.log.info({ bot: p.bot.name, reason }, "quota_exceeded");
  }
}
