// One ladder at run time: its definition and phase, its own rating book, quota counters and matchmaker pass
// over its own queue. Accounts, bots, versions, the lobby of connections and the match pool are shared by
// every ladder; what a ladder owns is what makes its ratings, match history and limits independent.
import type { Logger } from "pino";
import type { z } from "zod";
import type { Ladder } from "../api/responses.ts";
import type { Settings } from "../kernel/settings.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import { Matchmaker, type StartPlan } from "../matchmaker/matchmaker.ts";
import { QuotaCounts } from "../matchmaker/quotas.ts";
import { RatingBook, ratedGame, ratedRow } from "../ratings/book.ts";
import { type BookStart, type BookStartStore, startBook } from "../ratings/book-start.ts";
import { Leaderboard } from "../ratings/leaderboard.ts";
import type { RatingStore } from "../ratings/rating-store.ts";
import type { MatchStore } from "../results/match-store.ts";
import type { MatchRecord, Store } from "../store/types.ts";
import type { LadderDefinition, Phase } from "./manifest.ts";
import { phaseAt } from "./manifest.ts";

/** What a ladder loads its book and leaderboard from (the ratings' store). */
export type LadderLoadStore = BookStartStore & Pick<RatingStore, "ladderRecords">;
export interface RuntimeDeps {
  store: Store;
  /** Where the quotas count match starts. */
  matchStore: Pick<MatchStore, "startsSince">;
  lobby: Lobby;
  settings: Settings;
  log: Logger;
  /** Fighter-0 games minus fighter-1 games per bot: a bot's seat history spans every ladder. */
  seatBalance: Map<string, number>;
  /** Matches running on the whole server, and on one ladder. */
  running(ladderId?: string): number;
  runningForOwner(owner: string): number;
  /** The server's capacity for matches (a cluster's: every node's); the live setting when absent. */
  serverCapacity?(): number;
  start(plan: StartPlan, ladderId: string): void;
  audit(kind: string, subject: string, detail: Record<string, unknown>): void;
  houseWaitMs: number;
  /** A ladder's matchmaker pass timer (the operator's metrics), when metrics are on. */
  passTimer?(ladderId: string): (seconds: number) => void;
  /** Opponent requests of events (SPEC 3.9): the house bot a bot asked to meet on this ladder, and serving it. */
  opponentRequests?: OpponentRequests;
}

/** Who answers opponent requests (a feature fills it: server/ladders/registry.ts `requestOpponentsWith`). */
export interface OpponentRequests {
  requested(botId: string, ladderId: string): string | null;
  served(botId: string): void;
}

export class LadderRuntime {
  readonly ratings = new RatingBook();
  /** How the rating book was built at start: from the snapshot and a tail of results, or from all of them. */
  bookStart: BookStart | null = null;
  /** The leaderboard, kept from the book and the rated records (updated on MatchFinished). */
  readonly leaderboard: Leaderboard;
  readonly quotas: QuotaCounts;
  readonly matchmaker: Matchmaker;
  /** The phase last announced (LadderPhaseChanged compares against it). */
  phase: Phase;
  /** The events this ladder hosts, as the Ladder resource lists them (set by the events service). */
  eventList: { id: string; name: string }[] = [];

  constructor(
    public def: LadderDefinition,
    d: RuntimeDeps,
    now = Date.now(),
  ) {
    this.phase = phaseAt(def, now);
    this.leaderboard = new Leaderboard(def.id, this.ratings);
    this.quotas = new QuotaCounts(d.matchStore, def.id);
    const id = def.id;
    this.matchmaker = new Matchmaker({
      ladderId: id,
      lobby: d.lobby,
      limits: () => d.settings.limits(id),
      log: d.log.child({ ladder: id }),
      ratings: this.ratings,
      quotas: this.quotas,
      seatBalance: d.seatBalance,
      running: () => d.running(),
      runningOnLadder: () => d.running(id),
      serverCapacity: () => d.serverCapacity?.() ?? d.settings.limits().maxConcurrentMatches,
      runningForOwner: d.runningForOwner,
      start: (plan) => d.start(plan, id),
      audit: d.audit,
      houseWaitMs: d.houseWaitMs,
      houseBots: () => this.def.house_bots,
      accepting: () => this.accepting(),
      requested: (botId) => d.opponentRequests?.requested(botId, id) ?? null,
      served: (botId) => d.opponentRequests?.served(botId),
      ...(d.passTimer ? { passTimed: d.passTimer(id) } : {}),
    });
  }

  get id(): string {
    return this.def.id;
  }

  /** Ranked matches may start: enabled and open. */
  accepting(now = Date.now()): boolean {
    return this.def.enabled && phaseAt(this.def, now) === "open";
  }

  /** Enrollment is taken while upcoming and open (preregistration, SPEC 3.1), never once closed. */
  takesEnrollment(now = Date.now()): boolean {
    return this.def.enabled && phaseAt(this.def, now) !== "closed";
  }

  /** Seconds until a queued bot could start: pacing and house availability, and while upcoming the opening. */
  estimatedWaitS(p: Participant, now = Date.now()): number {
    const wait = this.matchmaker.estimatedWaitS(p, now);
    if (this.def.opens_at && phaseAt(this.def, now) === "upcoming")
      return Math.max(wait, Math.round((Date.parse(this.def.opens_at) - now) / 100) / 10);
    return wait;
  }

  /** Loads the stored rated results and the quota counts of this ladder. */
  /**
   * Builds the book and leaderboard from stored results plus `journaled` ones (durable, not yet in the
   * database): live ratings always count exactly the durable results, which is what a restart rebuilds.
   */
  async load(store: LadderLoadStore, journaled: readonly MatchRecord[] = []): Promise<void> {
    const mine = journaled.filter((m) => m.ladder_id === this.id && m.mode === "ranked" && !m.voided);
    // The stored results from the rating snapshot when it is current (server/ratings/book-start.ts), then the
    // journaled ones, which the snapshot never holds.
    this.bookStart = await startBook(this.ratings, store, this.id);
    if (mine.length > 0) this.ratings.load(mine.map(ratedRow).map(ratedGame));
    this.leaderboard.load(await store.ladderRecords(this.id));
    for (const m of mine) this.leaderboard.recordMatch(m);
    await this.quotas.refresh(Date.now(), true);
  }

  /**
   * A result another node committed (cluster mode, PeerResult): the book and the leaderboard take it in as the
   * committing node's did (its runner recorded the game in its book, its MatchFinished reached its leaderboard),
   * so every node's ratings and records count the same results.
   */
  follow(m: MatchRecord): void {
    if (m.ladder_id !== this.id) return;
    if (m.mode === "ranked" && !m.voided) this.ratings.record(ratedGame(ratedRow(m)));
    this.leaderboard.recordMatch(m);
  }

  /** The Ladder resource of SPEC 2. */
  view(base: string, now = Date.now()): z.infer<typeof Ladder> {
    const d = this.def;
    return {
      id: d.id,
      name: d.name,
      description: d.description,
      enabled: d.enabled,
      visible: d.visible,
      access: d.access,
      phase: phaseAt(d, now),
      opens_at: d.opens_at,
      closes_at: d.closes_at,
      leaderboard_url: `${base}/api/leaderboard?ladder=${encodeURIComponent(d.id)}`,
      events: this.eventList,
    };
  }
}
