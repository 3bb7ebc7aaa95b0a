// The matchmaker of SPEC 1.2: a periodic pass over the whole queue. It applies the hard limits (capacity,
// pacing, quotas, owner concurrency) to each waiting bot, hands the eligible ones and the house bots to the
// pairing rule (maximum-weight matching, pairing.ts), then plans each start: the pair's least-played map
// (the seed breaks ties) and fighter ids that reduce each bot's accumulated seat imbalance.
import { randomInt } from "node:crypto";
import type { Logger } from "pino";
import { MAP_NAMES } from "../../engine/rules.ts";
import { ALWAYS_HELD, type Lease } from "../kernel/lease.ts";
import type { Limits } from "../kernel/settings.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import { type RatingBook, versionKey } from "../ratings/book.ts";
import type { PairingRecord } from "../store/pairing-record.ts";
import { type Candidate, choosePairs, REMATCH_HOLD_MS, smoothedForecast } from "./pairing.ts";
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
  /** Why the two were paired (issue 33): stored with the match record, returned by GET /api/matches/<id>. */
  pairing: PairingRecord;
}

/** What plan() is told of a pair's choice: the rule's, or an opponent request's. */
type Why = Pick<PairingRecord, "reason" | "weight" | "parts" | "window" | "forecast" | "requested_by"> & {
  pairGames: number;
  /** Waited ms by bot id (a house bot counts 0: it is always there). */
  waited: ReadonlyMap<string, number>;
};

/** The limits a pass reads, live (from the settings service, resolved for this ladder). */
export type PassLimits = Pick<
  Limits,
  | "matchIntervalMs"
  | "maxConcurrentMatches"
  | "maxConcurrentPerOwner"
  | "matchesPerHourPerBot"
  | "matchesPerDayPerOwner"
>;

export interface MatchmakerDeps {
  /** The ladder whose queue this matchmaker pairs. */
  ladderId: string;
  lobby: Lobby;
  limits(): PassLimits;
  log: Logger;
  ratings: RatingBook;
  quotas: QuotaCounts;
  /** Fighter-0 games minus fighter-1 games per bot; updated here on each start. */
  seatBalance: Map<string, number>;
  /** Matches running on the whole server, and on this ladder (its share of capacity is its own limit). */
  running(): number;
  runningOnLadder(): number;
  runningForOwner(owner: string): number;
  /** Whether ranked matches may start now (the ladder is enabled and open); a queue otherwise waits. */
  accepting(): boolean;
  /** The server's own capacity, whatever a ladder's share. */
  serverCapacity(): number;
  start(plan: StartPlan): void;
  audit(kind: string, subject: string, detail: Record<string, unknown>): void;
  /** How long a player waits for another player before a house bot is offered. */
  houseWaitMs: number;
  /** Whether house bots are offered on this ladder (its manifest's `house_bots`); true when absent. */
  houseBots?: () => boolean;
  /** Told each pass's duration in seconds (the operator's metrics), when metrics are on. */
  passTimed?(seconds: number): void;
  /** The house bot a waiting bot asked to meet (an event's opponent request, SPEC 3.9), or null. */
  requested?(botId: string): string | null;
  /** The requested match was started. */
  served?(botId: string): void;
  /** Each start's seed (which also breaks a tie of seats and maps); a fresh random one when absent. Tests give a
   * fixed sequence, so a simulated population plays the same way every run. */
  seed?(): number;
}

/**
 * Cluster mode (server/cluster/shared-queue.ts): the queue of the whole cluster, and where a pair is started. On a
 * single server there is none, and a pass reads this process's lobby and starts here, as it always did.
 */
export interface ClusterQueue {
  /** A ladder's queue across the cluster: this node's `local` waiting bots and the other nodes' ones. */
  waiting(ladderId: string, local: Participant[]): Participant[];
  /** Takes a start whose bots are not all here (placed by load); false: start it here as a single server does. */
  place(plan: StartPlan, ladderId: string): boolean;
  /** Tells a bot of another node a connection error (a quota notice) through the node holding its socket. */
  tell(p: Participant, code: "quota_exceeded", message: string): void;
}

const round2 = (x: number) => Math.round(x * 100) / 100;
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

export class Matchmaker {
  private readonly d: MatchmakerDeps;
  private sinceDiscovery = 0;
  paused = false;
  /** Pairs only while this is held: always on a single server, one node at a time in a cluster (server/cluster/). */
  lease: Lease = ALWAYS_HELD;
  /** The cluster's queue and placement (server/cluster/); null on a single server. */
  cluster: ClusterQueue | null = null;
  /** The lease as last seen held: ready once the quota counts were read afresh after taking it. */
  private leaseReady: { done: boolean } | null = null;

  constructor(d: MatchmakerDeps) {
    this.d = d;
  }

  private houseBots(): boolean {
    return this.d.houseBots?.() ?? true;
  }

  /** Seconds until this participant could start, as far as pacing and house availability tell. */
  estimatedWaitS(p: Participant, now = Date.now()): number {
    const pacing = Math.max(0, p.lastStartAt + this.d.limits().matchIntervalMs - now);
    const house = this.houseBots() && this.d.lobby.all().some((h) => h.house) ? this.d.houseWaitMs : 0;
    return Math.round(Math.max(pacing, house) / 100) / 10;
  }

  /**
   * Whether this matchmaker may pair now. A lease just taken (cluster mode: another node held it) is not used
   * until the quota counts are read from storage afresh: the starts the last holder made are there, and this
   * node's counts may be up to QUOTA_CACHE_MS old, so a bot that played a moment ago would be paired again.
   */
  private held(): boolean {
    if (!this.lease.held()) {
      this.leaseReady = null;
      return false;
    }
    if (this.lease === ALWAYS_HELD) return true;
    if (this.leaseReady === null) {
      const ready = { done: false };
      this.leaseReady = ready;
      this.d.quotas
        .refresh(Date.now(), true)
        .catch((err) => this.d.log.error({ err }, "quota refresh failed"))
        .finally(() => {
          ready.done = true;
        });
    }
    return this.leaseReady.done;
  }

  pass(now = Date.now()): void {
    const timed = this.d.passTimed;
    if (!timed) {
      this.passNow(now);
      return;
    }
    const t0 = performance.now();
    try {
      this.passNow(now);
    } finally {
      timed((performance.now() - t0) / 1000);
    }
  }

  private passNow(now: number): void {
    if (this.paused || !this.held() || !this.d.accepting()) return;
    const { lobby, ratings, ladderId } = this.d;
    const limits = this.d.limits();
    void this.d.quotas.refresh(now).catch((err) => this.d.log.error({ err }, "quota refresh failed"));
    // Free places: the server's, and this ladder's share of them.
    const serverCap = this.d.serverCapacity();
    const serverFree = serverCap - this.d.running();
    const ladderFree = limits.maxConcurrentMatches - this.d.runningOnLadder();
    let free = Math.min(serverFree, ladderFree);
    if (free <= 0) {
      const message =
        serverFree <= 0
          ? `the server runs ${serverCap} matches at most`
          : `this ladder runs ${limits.maxConcurrentMatches} matches at most`;
      for (const p of lobby.waiting(ladderId)) if (!p.house) this.notice(p, "capacity", message, now);
      return;
    }
    const queue = this.cluster
      ? this.cluster.waiting(ladderId, lobby.waiting(ladderId))
      : lobby.waiting(ladderId);
    const players = queue.filter((p) => !p.house && this.mayStart(p, limits, now));
    if (players.length === 0) return;
    const houses = this.houseBots() ? lobby.all().filter((p) => p.house && p.state === "waiting") : [];
    // Opponent requests (SPEC 3.9): a bot that asked for a house bot meets it first, ranked as usual. The
    // hard limits above still apply; the pairing rule and its waits do not (the bot chose its opponent).
    for (const p of this.d.requested ? [...players] : []) {
      if (free <= 0) return;
      const want = this.d.requested!(p.bot.id);
      const house = want === null ? undefined : houses.find((h) => h.bot.name === want);
      if (!house || this.d.runningForOwner(p.bot.owner) >= limits.maxConcurrentPerOwner) continue;
      players.splice(players.indexOf(p), 1);
      free--;
      this.d.served?.(p.bot.id);
      const f = ratings.facts(
        versionKey(p.bot.id, p.version ?? ""),
        versionKey(house.bot.id, house.version ?? ""),
      );
      const rating = (q: Participant) => ratings.ratingOf(versionKey(q.bot.id, q.version ?? ""));
      this.begin(
        this.plan(p, house, "competitive", {
          reason: "request",
          weight: null,
          parts: {},
          window: null,
          requested_by: p.bot.name,
          forecast: smoothedForecast({ rating: rating(p) }, { rating: rating(house) }, f),
          pairGames: f.games,
          waited: new Map([[p.bot.id, now - p.queuedAt]]),
        }),
      );
    }
    if (players.length === 0) return;
    const byId = new Map<string, { p: Participant; key: string }>();
    const idOfKey = new Map<string, string>();
    const candidates: Candidate[] = [...players, ...houses].map((p) => {
      const key = versionKey(p.bot.id, p.version ?? "");
      byId.set(p.bot.id, { p, key });
      idOfKey.set(key, p.bot.id);
      while (p.starts.length > 0 && now - p.starts[0]! > 3_600_000) p.starts.shift();
      return {
        id: p.bot.id,
        owner: p.bot.owner,
        house: p.bot.house,
        rating: ratings.ratingOf(key),
        ratedGames: ratings.gamesOf(key),
        waitedMs: p.house ? 0 : now - p.queuedAt,
        recentGames: p.starts.length,
      };
    });
    // One ranked start in seven is discovery. A pass may start many matches at once, so it reserves as
    // many discovery slots as the starts it could make would owe (at most one per pair of candidates
    // with a player in it, and no more than the free capacity).
    const mostStarts = Math.min(Math.floor(candidates.length / 2), players.length, free);
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
      if (free <= 0) break;
      const a = byId.get(pair.a.id)!.p;
      const b = byId.get(pair.b.id)!.p;
      // Owner concurrency, counting the starts of this pass too.
      const busy = [a, b].find(
        (p) =>
          !p.house &&
          runningBefore(p.bot.owner) + (ownerStarts.get(p.bot.owner) ?? 0) >= limits.maxConcurrentPerOwner,
      );
      if (busy) continue;
      for (const p of [a, b])
        if (!p.house) ownerStarts.set(p.bot.owner, (ownerStarts.get(p.bot.owner) ?? 0) + 1);
      if (pair.kind === "discovery") discovery++;
      else competitive++;
      free--;
      this.begin(
        this.plan(a, b, pair.kind, {
          ...pair.choice,
          forecast: pair.forecast,
          requested_by: null,
          waited: new Map([
            [pair.a.id, pair.a.waitedMs],
            [pair.b.id, pair.b.waitedMs],
          ]),
        }),
      );
    }
    // Each competitive start adds one to the count since the last discovery and each discovery start
    // (reserved or fill-in) pays for the six before it. Reserved slots that found no discovery pair are
    // forgiven rather than owed: when every waiting pair is well tested there is nothing to discover, and
    // the debt must not turn the next passes into a run of discovery starts.
    this.sinceDiscovery = Math.max(0, this.sinceDiscovery + competitive - (DISCOVERY_EVERY - 1) * discovery);
    if (discovery < slots) this.sinceDiscovery = Math.min(this.sinceDiscovery, DISCOVERY_EVERY - 1);
  }

  /** Starts a planned match: here, or where the cluster places it. */
  private begin(plan: StartPlan): void {
    if (!this.cluster?.place(plan, this.d.ladderId)) this.d.start(plan);
  }

  /** Seats, map and seed of a start, and its pairing record; `why` is told in a's view (forecast of a). */
  private plan(a: Participant, b: Participant, kind: StartPlan["kind"], why: Why): StartPlan {
    const seed = this.d.seed ? this.d.seed() : randomInt(2 ** 31);
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
    const swapped = seats[0] !== a;
    const rating = (p: Participant) => this.d.ratings.ratingOf(versionKey(p.bot.id, p.version ?? ""));
    const pairing: PairingRecord = {
      reason: why.reason,
      weight: why.weight === null ? null : round2(why.weight),
      parts: Object.fromEntries(Object.entries(why.parts).map(([k, v]) => [k, round2(v)])),
      // The record speaks of fighter 0: the forecast was a's.
      forecast: round4(swapped ? 1 - why.forecast : why.forecast),
      pair_games: why.pairGames,
      rating_gap: Math.round(Math.abs(rating(a) - rating(b))),
      window: why.window,
      waits_ms: seats.map((p) => (p.house ? 0 : Math.max(0, Math.round(why.waited.get(p.bot.id) ?? 0)))) as [
        number,
        number,
      ],
      requested_by: why.requested_by,
      map: { reason: "least_played", games: fewest, choices: least.length },
    };
    return { seats, map, seed, kind, pairing };
  }

  /** The hard per-bot limits; a blocked bot stays queued and is told at most once per 5 minutes per reason. */
  private mayStart(p: Participant, limits: PassLimits, now: number): boolean {
    const { quotas } = this.d;
    if (now - p.lastStartAt < limits.matchIntervalMs) return false; // pacing, not a quota
    if (quotas.botLastHour(p.bot.id, now) >= limits.matchesPerHourPerBot) {
      this.notice(p, "hourly_quota", `at most ${limits.matchesPerHourPerBot} matches per hour per bot`, now);
      return false;
    }
    if (quotas.ownerLastDay(p.bot.owner, now) >= limits.matchesPerDayPerOwner) {
      this.notice(
        p,
        "daily_owner_quota",
        `at most ${limits.matchesPerDayPerOwner} matches per day per owner`,
        now,
      );
      return false;
    }
    if (this.d.runningForOwner(p.bot.owner) >= limits.maxConcurrentPerOwner) {
      this.notice(
        p,
        "owner_concurrency",
        `at most ${limits.maxConcurrentPerOwner} matches at once per owner`,
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
    if (p.conn) p.conn.error("quota_exceeded", `${message}; still queued (${reason})`);
    else this.cluster?.tell(p, "quota_exceeded", `${message}; still queued (${reason})`);
    this.d.audit("throttle", p.bot.name, { reason, message });
    this.d.log.info({ bot: p.bot.name, reason }, "quota_exceeded");
  }
}
