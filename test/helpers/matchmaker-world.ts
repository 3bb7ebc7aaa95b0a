// A simulated matchmaker world for the matchmaker tests: a Lobby of fake participants (a stub socket that
// records quota_exceeded notices), the real QuotaCounts over a tiny fake store, and either the real RatingBook
// or a stub book whose ratings and pair facts a test sets exactly; the bookkeeping server/app.ts does around a
// pass, on a simulated clock.
import pino, { type Logger } from "pino";
import type { Strategy } from "../../engine/house/types.ts";
import { type Config, testConfig } from "../../server/config.ts";
import type { BotConnection } from "../../server/connection/bot-connection.ts";
import { DEFAULT_LADDER } from "../../server/kernel/names.ts";
import { defaultLimits } from "../../server/kernel/settings.ts";
import { Lobby, type Participant } from "../../server/lobby/lobby.ts";
import { Matchmaker, type StartPlan } from "../../server/matchmaker/matchmaker.ts";
import { QuotaCounts } from "../../server/matchmaker/quotas.ts";
import { RatingBook, versionKey } from "../../server/ratings/book.ts";
import { expectedScore } from "../../server/ratings/bradley-terry.ts";
import type { BotRow } from "../../server/store/types.ts";

export const T0 = 1_700_000_000_000;
export const created = new Date(T0).toISOString();

/**
 * A rating book whose ratings and pair facts a test sets exactly (the Matchmaker only calls ratingOf, gamesOf,
 * facts and opponents). Unknown versions are at 1500; unknown pairs have no games.
 */
export class StubBook {
  readonly rating = new Map<string, number>();
  readonly games = new Map<string, number>();
  private readonly pairs = new Map<string, { games: number; score: number; mapQuality: number }>();
  /** Games per map of a pair (either order); none when unset. */
  readonly mapGames = new Map<string, Map<string, number>>();
  /** `score` is a's. */
  pair(a: string, b: string, games: number, score: number, mapQuality = 1): void {
    this.pairs.set(JSON.stringify([a, b]), { games, score, mapQuality });
    this.pairs.set(JSON.stringify([b, a]), { games, score: games - score, mapQuality });
  }
  /** Games that went exactly as the ratings predict. */
  asRated(a: string, b: string, games = 40): void {
    this.pair(a, b, games, games * expectedScore(this.get(a).rating, this.get(b).rating));
  }
  get(key: string) {
    const rating = this.rating.get(key) ?? 1500;
    const games = this.games.get(key) ?? 50;
    return { rating, deviation: 40, leaderboardScore: Math.round(rating - 80), games, ranked: games >= 30 };
  }
  ratingOf(key: string): number {
    return this.get(key).rating;
  }
  gamesOf(key: string): number {
    return this.get(key).games;
  }
  facts(a: string, b: string) {
    const f = this.pairs.get(JSON.stringify([a, b]));
    const maps = this.mapGames.get(JSON.stringify([a, b])) ?? this.mapGames.get(JSON.stringify([b, a]));
    return { ...(f ?? { games: 0, score: 0, mapQuality: 1 }), mapGames: maps ?? new Map<string, number>() };
  }
  *opponents(key: string, minGames = 1, maxGames = Infinity): Iterable<string> {
    for (const [k, f] of this.pairs) {
      const [a, b] = JSON.parse(k) as [string, string];
      if (a === key && f.games >= minGames && f.games <= maxGames) yield b;
    }
  }
}

/** What QuotaCounts reads the starts from (the match store). */
export type QuotaStore = ConstructorParameters<typeof QuotaCounts>[0];

/** The store calls QuotaCounts makes: starts per bot in the last hour and per owner in the last day. */
export function quotaStore(
  byBot: Record<string, number> = {},
  byOwner: Record<string, number> = {},
): QuotaStore {
  return {
    startsSince: async () => ({
      byBot: new Map(Object.entries(byBot)),
      byOwner: new Map(Object.entries(byOwner)),
    }),
  };
}

export const strategy = (name: string): Strategy => ({
  name,
  display_name: name,
  difficulty: null,
  version: "1",
  create: () => () => ({ type: "turn", tick: 0 }) as never,
});

export interface WorldOptions {
  config?: Partial<Config>;
  book?: StubBook | RatingBook;
  store?: QuotaStore;
  houseWaitMs?: number;
  /** The ladder's share of capacity (maxConcurrentMatches), when it is below the server's (config.maxConcurrent). */
  ladderMax?: number;
  /** Matches running on the server's other ladders. */
  elsewhere?: number;
  /** The ladder's manifest `house_bots`; the Matchmaker's default (true) when absent. */
  houseBots?: () => boolean;
  log?: Logger;
  /** Opponent requests (events): the house bot a bot asked for, by bot id. */
  requests?: Map<string, string>;
  /** The first state of a fixed sequence of match seeds (1 to 2^31 - 2); absent: random seeds. */
  seeds?: number;
}

/** A lobby, a matchmaker and the bookkeeping server/app.ts does around it, on a simulated clock. */
export class World {
  now = T0;
  readonly lobby = new Lobby();
  readonly config: Config;
  readonly book: StubBook | RatingBook;
  readonly quotas: QuotaCounts;
  readonly seatBalance = new Map<string, number>();
  readonly plans: (StartPlan & { at: number; id: string })[] = [];
  readonly running = new Map<string, StartPlan>();
  readonly notices: { bot: string; code: string; message: string }[] = [];
  readonly audits: { kind: string; subject: string; detail: Record<string, unknown> }[] = [];
  readonly mm: Matchmaker;
  /** Bots whose opponent request a pass served, in order. */
  readonly served: string[] = [];
  private matchNo = 0;
  private seedState: number;

  constructor(o: WorldOptions = {}) {
    this.seedState = o.seeds ?? 1;
    this.config = testConfig({ matchIntervalMs: 0, ...o.config });
    this.book = o.book ?? new StubBook();
    this.quotas = new QuotaCounts(o.store ?? quotaStore());
    this.mm = new Matchmaker({
      ladderId: DEFAULT_LADDER,
      lobby: this.lobby,
      limits: () => ({
        ...defaultLimits(this.config),
        ...(o.ladderMax === undefined ? {} : { maxConcurrentMatches: o.ladderMax }),
      }),
      serverCapacity: () => this.config.maxConcurrent,
      runningOnLadder: () => this.running.size,
      accepting: () => true,
      log: o.log ?? pino({ level: "silent" }),
      ratings: this.book as RatingBook,
      quotas: this.quotas,
      seatBalance: this.seatBalance,
      running: () => this.running.size + (o.elsewhere ?? 0),
      runningForOwner: (owner) =>
        [...this.running.values()].filter((p) => p.seats.some((s) => !s.house && s.bot.owner === owner))
          .length,
      start: (plan) => this.start(plan),
      audit: (kind, subject, detail) => this.audits.push({ kind, subject, detail }),
      houseWaitMs: o.houseWaitMs ?? 0,
      // With `seeds`, a fixed sequence of match seeds (Park-Miller), so that seat and map tie-breaks are the same
      // every run; without, random ones as the server draws them.
      ...(o.seeds === undefined
        ? {}
        : {
            seed: () => {
              this.seedState = (this.seedState * 48_271) % 2_147_483_647;
              return this.seedState;
            },
          }),
      ...(o.houseBots ? { houseBots: o.houseBots } : {}),
      ...(o.requests
        ? {
            requested: (botId: string) => o.requests!.get(botId) ?? null,
            served: (botId: string) => {
              this.served.push(botId);
              o.requests!.delete(botId);
            },
          }
        : {}),
    });
  }

  /** A connected player bot, queued `waitedMs` ago with `version`. */
  player(name: string, o: { owner?: string; version?: string; waitedMs?: number } = {}): Participant {
    const bot: BotRow = {
      id: name,
      name,
      display_name: name,
      owner: o.owner ?? `owner-${name}`,
      house: false,
      status: "active",
      avatar: null,
      created,
      account_id: null,
    };
    const conn = {
      error: (code: string, message: string) => this.notices.push({ bot: name, code, message }),
    } as unknown as BotConnection;
    const p = this.lobby.join(bot, conn);
    p.state = "waiting";
    p.version = o.version ?? "v1";
    p.queuedAt = this.now - (o.waitedMs ?? 0);
    return p;
  }

  house(name: string, owner = "house"): Participant {
    const bot: BotRow = {
      id: name,
      name,
      display_name: name,
      owner,
      house: true,
      status: "active",
      avatar: null,
      created,
      account_id: null,
    };
    return this.lobby.join(bot, null, strategy(name));
  }

  key(p: Participant): string {
    return versionKey(p.bot.id, p.version ?? "");
  }

  /** One matchmaker pass at `now` (advanced by `afterMs`); returns the starts it made. */
  pass(afterMs = 0): (StartPlan & { at: number; id: string })[] {
    this.now += afterMs;
    const before = this.plans.length;
    this.mm.pass(this.now);
    return this.plans.slice(before);
  }

  private start(plan: StartPlan): void {
    const id = `m${++this.matchNo}`;
    this.quotas.started(
      id,
      plan.seats.map((p) => ({ botId: p.bot.id, owner: p.bot.owner, house: p.bot.house })),
      this.now,
    );
    for (const p of plan.seats) {
      p.lastStartAt = this.now;
      p.matches.add(id);
      if (!p.house) {
        p.state = "playing";
        p.starts.push(this.now);
      }
    }
    this.running.set(id, plan);
    this.plans.push({ ...plan, at: this.now, id });
  }

  /** Ends a match as the runner and app do: rated result into the book, rematch hold, players idle. */
  finish(id: string, score0: number): void {
    const plan = this.running.get(id)!;
    this.running.delete(id);
    this.quotas.stored(id, this.now);
    const [a, b] = plan.seats;
    if (this.book instanceof RatingBook)
      this.book.record({
        a: this.key(a),
        b: this.key(b),
        score: score0,
        map: plan.map,
        aHouse: a.bot.house,
        bHouse: b.bot.house,
      });
    a.lastMet.set(b.bot.id, this.now);
    b.lastMet.set(a.bot.id, this.now);
    for (const p of plan.seats) {
      p.matches.delete(id);
      if (!p.house) p.state = "idle";
    }
  }

  queueAgain(p: Participant): void {
    p.state = "waiting";
    p.queuedAt = this.now;
  }
}

export const pairName = (p: StartPlan) =>
  p.seats
    .map((s) => s.bot.id)
    .sort()
    .join("-");
