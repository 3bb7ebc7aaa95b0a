// Scrimmages and batch tests (issue 34, parts 1 and 2). An owner asks for unrated games between one of their
// bots and chosen opponents; this service keeps the requests, claims the bots involved out of the ranked queue
// (a lobby hold), starts each game when both bots are ready (human play's way: the requester's bot queued,
// the opponent queued or a house bot), counts the owner's limits from the live settings, and records each
// result when its MatchFinished arrives. Games are stored as matches of mode `scrimmage`: rated nowhere.
import type { Logger } from "pino";
import { MAP_NAMES } from "../../engine/rules.ts";
import type { Caller } from "../accounts/accounts.ts";
import { errors } from "../errors.ts";
import type { DomainEvents } from "../kernel/bus.ts";
import { BOT_NAME } from "../kernel/names.ts";
import type { Settings } from "../kernel/settings.ts";
import type { Unit } from "../kernel/unit-of-work.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import type { LiveMatches } from "../play/live-matches.ts";
import type { BotRow, Store } from "../store/types.ts";
import {
  type BatchRow,
  type GameResult,
  newBatchId,
  newScrimmageId,
  type ScrimmageRow,
  ScrimmageStore,
} from "./store.ts";
import { type Tally, tally, tallyBy } from "./summary.ts";
import type { UnratedMatches } from "./unrated.ts";

/** A lone request waits this long for its two bots to be ready, then expires (the bots are let go). */
export const SCRIMMAGE_WAIT_MS = 10 * 60_000;
export const MAX_BATCH_GAMES = 100;
export const MAX_BATCH_OPPONENTS = 10;
const HOUR_MS = 3_600_000;
/** A started game whose match left the running set without a result is closed after this long. */
const LOST_RESULT_MS = 60_000;
const ORPHAN_CHECK_MS = 60_000;

export interface ScrimmageDeps {
  store: Store;
  lobby: Lobby;
  live: LiveMatches;
  settings: Settings;
  log: Logger;
  unrated: UnratedMatches;
  work<T>(fn: (u: Unit) => Promise<T>): Promise<T>;
  publicUrl: string;
}

interface Pending {
  id: string;
  accountId: string;
  botId: string;
  opponentId: string;
  map: string | null;
  created: number;
}

interface Batch {
  row: BatchRow;
  /** Games started so far (finished or playing). */
  started: number;
  playing: string | null;
}

interface Playing {
  scrimmageId: string;
  accountId: string;
  botId: string;
  batchId: string | null;
  startedAt: number;
  goneSince: number | null;
}

export interface ScrimmageView {
  id: string;
  state: ScrimmageRow["state"];
  bot: string;
  opponent: string;
  opponent_house: boolean;
  map: string | null;
  match_id: string | null;
  result: GameResult | null;
  version: string | null;
  reason: string | null;
  created: string;
  started: string | null;
  ended: string | null;
  match_url: string | null;
  replay_url: string | null;
}

export class ScrimmageService {
  readonly rows: ScrimmageStore;
  /** Lone requests waiting for their bots, oldest first. */
  private pending: Pending[] = [];
  private readonly batches = new Map<string, Batch>();
  /** Running games by match id. */
  private readonly playing = new Map<string, Playing>();
  /** Start times in the last hour, per account (the hourly limit). */
  private readonly starts = new Map<string, number[]>();
  /** When batches were last checked for removed bots. */
  private orphansAt = 0;
  /** Writes of game starts and ends, in order (an end is never written before its start). */
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly d: ScrimmageDeps) {
    this.rows = new ScrimmageStore(d.store.db);
    d.lobby.hold({ claims: (p) => this.claims(p), queued: () => this.tryStart() });
  }

  /** Reads what was open before a restart: pending requests wait on, playing games were lost with the process. */
  async load(now = Date.now()): Promise<void> {
    for (const s of await this.rows.open()) {
      if (s.state === "playing") {
        await this.rows.close(this.d.store.db, s.id, "cancelled", "the server restarted during the game");
        continue;
      }
      if (s.batch_id !== null) continue;
      this.pending.push({
        id: s.id,
        accountId: s.account_id,
        botId: s.bot_id,
        opponentId: s.opponent_id,
        map: s.map,
        created: Date.parse(s.created),
      });
    }
    for (const b of await this.rows.runningBatches()) {
      const games = await this.rows.batchGames(b.id);
      this.batches.set(b.id, {
        row: b,
        started: games.filter((g) => g.state === "done").length,
        playing: null,
      });
    }
    for (const s of await this.rows.startsSince(new Date(now - HOUR_MS).toISOString()))
      this.startedAt(s.account_id, Date.parse(s.started));
  }

  // --- The lobby hold ---

  /** Bots with a game waiting for them: the requester's bot and its opponent, a batch's bot and next opponent. */
  private claims(p: Participant): boolean {
    for (const s of this.pending) if (s.botId === p.bot.id || s.opponentId === p.bot.id) return true;
    for (const b of this.batches.values()) {
      if (b.playing !== null || b.started >= b.row.games) continue;
      if (b.row.bot_id === p.bot.id) return b.row.version === null || p.version === b.row.version;
      if (this.nextOpponent(b) === p.bot.id) return true;
    }
    return false;
  }

  private nextOpponent(b: Batch): string {
    return b.row.opponents[b.started % b.row.opponents.length]!;
  }

  /** Starts every waiting game whose bots are ready and whose owner's limits allow it, oldest first. */
  tryStart(now = Date.now()): void {
    for (const s of [...this.pending]) {
      if (!this.d.unrated.room()) return;
      const a = this.d.unrated.ready(s.botId);
      const b = this.d.unrated.ready(s.opponentId);
      if (!a || !b || a === b) continue;
      this.pending.splice(this.pending.indexOf(s), 1);
      this.begin(s.id, s.accountId, null, a, b, s.map, now);
    }
    for (const b of this.batches.values()) {
      if (!this.d.unrated.room()) return;
      if (b.playing !== null || b.started >= b.row.games) continue;
      const a = this.d.unrated.ready(b.row.bot_id);
      if (!a || (b.row.version !== null && a.version !== b.row.version)) continue;
      const o = this.d.unrated.ready(this.nextOpponent(b));
      if (!o || o === a) continue;
      const limits = this.d.settings.limits();
      if (this.runningFor(b.row.account_id) >= limits.scrimmagesAtOncePerOwner) continue;
      if (this.hourCount(b.row.account_id, now) >= limits.scrimmagesPerHourPerOwner) continue;
      // A batch spreads its games over the maps in turn unless it named one, so the per-map rows compare.
      const map = b.row.map ?? MAP_NAMES[Math.floor(b.started / b.row.opponents.length) % MAP_NAMES.length]!;
      const id = newScrimmageId();
      b.started++;
      b.playing = id;
      this.begin(id, b.row.account_id, b.row.id, a, o, map, now);
    }
  }

  private begin(
    id: string,
    accountId: string,
    batchId: string | null,
    a: Participant,
    b: Participant,
    map: string | null,
    now: number,
  ): void {
    const m = this.d.unrated.start(a, b, "scrimmage", map);
    const version = m.setup.fighters[m.seatOf(a.bot.id)]!.version;
    this.playing.set(m.id, {
      scrimmageId: id,
      accountId,
      botId: a.bot.id,
      batchId,
      startedAt: now,
      goneSince: null,
    });
    this.startedAt(accountId, now);
    const at = new Date(now).toISOString();
    this.write(async () => {
      if (batchId !== null)
        await this.rows.insert(this.d.store.db, {
          id,
          accountId,
          botId: a.bot.id,
          opponentId: b.bot.id,
          batchId,
          map,
          state: "playing",
        });
      await this.rows.started(id, m.id, version, m.setup.map, at);
    });
  }

  private write(fn: () => Promise<void>): void {
    this.writes = this.writes
      .then(fn)
      .catch((err: unknown) => this.d.log.error({ err }, "a scrimmage write failed"));
  }

  /** Resolves once every write begun so far is done (tests, and a reader that must see the latest result). */
  settled(): Promise<void> {
    return this.writes;
  }

  private startedAt(accountId: string, at: number): void {
    const list = this.starts.get(accountId) ?? [];
    list.push(at);
    this.starts.set(accountId, list);
  }

  private hourCount(accountId: string, now: number): number {
    const list = (this.starts.get(accountId) ?? []).filter((t) => now - t < HOUR_MS);
    this.starts.set(accountId, list);
    return list.length;
  }

  private runningFor(accountId: string): number {
    let n = 0;
    for (const p of this.playing.values()) if (p.accountId === accountId) n++;
    return n;
  }

  // --- Results (a MatchFinished listener) ---

  finished(e: DomainEvents["MatchFinished"]): void {
    const m = e.match;
    if (m.mode !== "scrimmage") return;
    const p = this.playing.get(m.id);
    if (!p) return;
    this.playing.delete(m.id);
    const result: GameResult = m.voided
      ? "void"
      : m.winner_bot_id === null
        ? "draw"
        : m.winner_bot_id === p.botId
          ? "win"
          : "loss";
    this.closeGame(p, result, m.reason, Date.parse(m.ended));
  }

  private closeGame(p: Playing, result: GameResult, reason: string, at: number): void {
    const batch = p.batchId === null ? undefined : this.batches.get(p.batchId);
    if (batch && batch.playing === p.scrimmageId) batch.playing = null;
    const done = batch !== undefined && batch.started >= batch.row.games;
    if (done) this.batches.delete(batch.row.id);
    this.write(async () => {
      await this.rows.finished(p.scrimmageId, result, reason, new Date(at).toISOString());
      if (done) await this.rows.endBatch(this.d.store.db, batch.row.id, "done");
    });
    this.tryStart();
  }

  /**
   * Stops the batches whose bot was deleted, retired or moderated (its games could never start); looked at once
   * a minute, as it reads the database.
   */
  private async dropOrphans(now: number): Promise<void> {
    if (now - this.orphansAt < ORPHAN_CHECK_MS) return;
    this.orphansAt = now;
    for (const b of [...this.batches.values()]) {
      if (b.playing !== null) continue;
      const bot = await this.d.store.botById(b.row.bot_id);
      if (bot && bot.status === "active") continue;
      this.batches.delete(b.row.id);
      await this.rows.endBatch(this.d.store.db, b.row.id, "cancelled");
    }
  }

  /** The timer: expire old requests, close games whose result never came, and start what is ready. */
  sweep(now = Date.now()): void {
    void this.dropOrphans(now).catch((err: unknown) =>
      this.d.log.error({ err }, "could not look for batches of removed bots"),
    );
    for (const s of [...this.pending])
      if (now - s.created >= SCRIMMAGE_WAIT_MS) {
        this.pending.splice(this.pending.indexOf(s), 1);
        this.write(async () => {
          await this.rows.close(this.d.store.db, s.id, "expired", "the two bots were not both ready in time");
        });
      }
    for (const [matchId, p] of this.playing) {
      if (this.d.live.byId.has(matchId)) continue;
      p.goneSince ??= now;
      if (now - p.goneSince < LOST_RESULT_MS) continue;
      this.playing.delete(matchId);
      this.closeGame(p, "void", "no result was stored", now);
    }
    this.tryStart(now);
  }

  // --- Requests (the operations) ---

  /** The caller's bot by name, or 404 (also for another account's bot: no existence leak). */
  async ownBot(caller: Caller, name: string): Promise<BotRow> {
    const bot = BOT_NAME.test(name) ? await this.d.store.botByName(name) : null;
    if (!bot || bot.account_id !== caller.account.id || bot.house) throw errors.noSuchBot(name);
    return bot;
  }

  private async opponent(caller: Caller, bot: BotRow, name: string): Promise<BotRow> {
    const o = BOT_NAME.test(name) ? await this.d.store.botByName(name) : null;
    if (!o || o.status === "retired") throw errors.noSuchBot(name);
    if (o.id === bot.id) throw errors.badRequest("a bot cannot play a scrimmage against itself");
    if (o.status !== "active") throw errors.botModerated(o.status);
    // House bots and the caller's own bots always; another owner's bot only when its owner opted in.
    if (!o.house && o.account_id !== caller.account.id && !(await this.rows.optIn(o.id)))
      throw errors.scrimmagesNotAllowed(o.name);
    return o;
  }

  private checkMap(map: string | undefined): string | null {
    if (map === undefined) return null;
    if (!MAP_NAMES.includes(map)) throw errors.badRequest(`map must be one of ${MAP_NAMES.join(", ")}`);
    return map;
  }

  async request(caller: Caller, name: string, opponentName: string, map?: string, now = Date.now()) {
    const bot = await this.ownBot(caller, name);
    if (bot.status !== "active") throw errors.botModerated(bot.status);
    const o = await this.opponent(caller, bot, opponentName);
    const chosen = this.checkMap(map);
    if (!this.d.unrated.online(o.id)) throw errors.opponentOffline(o.name);
    const limits = this.d.settings.limits();
    const account = caller.account.id;
    const waiting = this.pending.filter((s) => s.accountId === account).length;
    if (this.runningFor(account) + waiting >= limits.scrimmagesAtOncePerOwner)
      throw errors.quotaExceeded(
        `at most ${limits.scrimmagesAtOncePerOwner} scrimmages at once per owner (waiting or playing); cancel one or wait (scrimmagesAtOncePerOwner)`,
      );
    if (this.hourCount(account, now) + waiting >= limits.scrimmagesPerHourPerOwner)
      throw errors.quotaExceeded(
        `at most ${limits.scrimmagesPerHourPerOwner} scrimmages per hour per owner (scrimmagesPerHourPerOwner)`,
      );
    const id = newScrimmageId();
    await this.d.work(async (u) => {
      await this.rows.insert(u.q, {
        id,
        accountId: account,
        botId: bot.id,
        opponentId: o.id,
        batchId: null,
        map: chosen,
        state: "pending",
      });
      await u.audit("scrimmage_request", caller.account.handle ?? account, {
        id,
        bot: bot.name,
        opponent: o.name,
        map: chosen,
      });
    });
    this.pending.push({ id, accountId: account, botId: bot.id, opponentId: o.id, map: chosen, created: now });
    this.tryStart(now);
    await this.settled();
    return this.view((await this.rows.byId(id))!);
  }

  /**
   * Cancels one pending scrimmage of this bot (`id`), or all of them: the requester cancels, the opponent's
   * owner declines. A game already playing is played out.
   */
  async cancel(caller: Caller, name: string, id?: string) {
    const bot = await this.ownBot(caller, name);
    const mine = this.pending.filter(
      (s) => (s.botId === bot.id || s.opponentId === bot.id) && (id === undefined || s.id === id),
    );
    if (id !== undefined && mine.length === 0) throw errors.noSuchScrimmage(id);
    for (const s of mine) {
      this.pending.splice(this.pending.indexOf(s), 1);
      const declined = s.accountId !== caller.account.id;
      await this.d.work(async (u) => {
        if (
          await this.rows.close(
            u.q,
            s.id,
            "cancelled",
            declined ? "declined by the opponent's owner" : "cancelled",
          )
        )
          await u.audit("scrimmage_cancel", caller.account.handle ?? caller.account.id, {
            id: s.id,
            declined,
          });
      });
    }
    return this.list(caller, name);
  }

  async setOptIn(caller: Caller, name: string, allowed: boolean) {
    const bot = await this.ownBot(caller, name);
    await this.d.work(async (u) => {
      await this.rows.setOptIn(u.q, bot.id, allowed);
      await u.audit("scrimmage_optin", caller.account.handle ?? caller.account.id, {
        bot: bot.name,
        allowed,
      });
    });
    // Turning it off declines what other owners asked for and is still waiting.
    if (!allowed)
      for (const s of this.pending.filter(
        (s) => s.opponentId === bot.id && s.accountId !== caller.account.id,
      ))
        await this.cancel(caller, name, s.id);
    return this.list(caller, name);
  }

  /** GET: the bot's opt-in, its limits in force, its waiting, playing and recent scrimmages, and its batches. */
  async list(caller: Caller, name: string) {
    const bot = await this.ownBot(caller, name);
    await this.settled();
    const limits = this.d.settings.limits();
    const rows = await this.rows.ofBot(bot.id, 50);
    return {
      bot: bot.name,
      allow_scrimmages: await this.rows.optIn(bot.id),
      limits: {
        at_once: limits.scrimmagesAtOncePerOwner,
        per_hour: limits.scrimmagesPerHourPerOwner,
        started_last_hour: this.hourCount(caller.account.id, Date.now()),
      },
      maps: [...MAP_NAMES],
      scrimmages: rows.map((r) => this.view(r)),
      batches: (await this.rows.batchesOfBot(bot.id, 20)).map((b) => ({
        id: b.id,
        state: b.state,
        games: b.games,
        created: b.created,
        url: `${this.d.publicUrl}/batch/${b.id}`,
      })),
    };
  }

  view(r: ScrimmageRow): ScrimmageView {
    return {
      id: r.id,
      state: r.state,
      bot: r.bot_name,
      opponent: r.opponent_name,
      opponent_house: r.opponent_house,
      map: r.played_map ?? r.map,
      match_id: r.match_id,
      result: r.result,
      version: r.version,
      reason: r.reason,
      created: r.created,
      started: r.started,
      ended: r.ended,
      match_url: r.match_id ? `${this.d.publicUrl}/match/${r.match_id}` : null,
      replay_url: r.match_id ? `${this.d.publicUrl}/replays/${r.match_id}.jsonl.gz` : null,
    };
  }

  // --- Batch tests ---

  async createBatch(
    caller: Caller,
    name: string,
    body: { opponents: string[]; games: number; version?: string | undefined; map?: string | undefined },
  ) {
    const bot = await this.ownBot(caller, name);
    if (bot.status !== "active") throw errors.botModerated(bot.status);
    const names = [...new Set(body.opponents)];
    const opponents: BotRow[] = [];
    for (const n of names) opponents.push(await this.opponent(caller, bot, n));
    const map = this.checkMap(body.map);
    if (body.version !== undefined && !(await this.d.store.version(bot.id, body.version)))
      throw errors.noSuchVersion(body.version);
    if (this.d.settings.limits().scrimmagesPerHourPerOwner === 0)
      throw errors.quotaExceeded("scrimmages are turned off on this server (scrimmagesPerHourPerOwner is 0)");
    const row = {
      id: newBatchId(),
      account_id: caller.account.id,
      bot_id: bot.id,
      version: body.version ?? null,
      games: body.games,
      opponents: opponents.map((o) => o.id),
      map,
    };
    await this.d.work(async (u) => {
      await this.rows.insertBatch(u.q, row);
      await u.audit("batch_test", caller.account.handle ?? caller.account.id, {
        id: row.id,
        bot: bot.name,
        games: row.games,
        opponents: opponents.map((o) => o.name),
      });
    });
    const stored = (await this.rows.batch(row.id))!;
    this.batches.set(row.id, { row: stored, started: 0, playing: null });
    this.tryStart();
    return this.batch(row.id);
  }

  async cancelBatch(caller: Caller, id: string) {
    const b = await this.rows.batch(id);
    if (!b || b.account_id !== caller.account.id) throw errors.noSuchBatch(id);
    this.batches.delete(id);
    await this.d.work(async (u) => {
      if (await this.rows.endBatch(u.q, id, "cancelled"))
        await u.audit("batch_test_cancel", caller.account.handle ?? caller.account.id, { id });
    });
    return this.batch(id);
  }

  /** A batch as JSON (public by its unguessable id, like the matches it lists): progress, games, summary. */
  async batch(id: string) {
    await this.settled();
    const b = await this.rows.batch(id);
    if (!b) throw errors.noSuchBatch(id);
    const games = await this.rows.batchGames(id);
    const bot = await this.d.store.botById(b.bot_id);
    const names = new Map<string, string>();
    for (const o of b.opponents) names.set(o, (await this.d.store.botById(o))?.name ?? o);
    const done = games.filter((g) => g.state === "done" && g.result !== null);
    const playing = games.filter((g) => g.state === "playing").length;
    const result = (g: ScrimmageRow) => g.result!;
    const summary: { all: Tally; by_opponent: Record<string, Tally>; by_map: Record<string, Tally> } = {
      all: tally(done.map(result)),
      by_opponent: tallyBy(done, (g) => g.opponent_name, result),
      by_map: tallyBy(done, (g) => g.played_map ?? "?", result),
    };
    return {
      id: b.id,
      state: b.state,
      bot: bot?.name ?? b.bot_id,
      version: b.version,
      games: b.games,
      opponents: b.opponents.map((o) => names.get(o)!),
      map: b.map,
      created: b.created,
      ended: b.ended,
      progress: {
        finished: done.length,
        playing,
        waiting: b.state === "running" ? b.games - done.length - playing : 0,
      },
      waiting_for: b.state === "running" ? this.waitingFor(b) : null,
      summary,
      interval: "Wilson score interval at 95 % on the score (a win 1, a draw 1/2; voided games left out)",
      results: games.map((g) => this.view(g)),
      url: `${this.d.publicUrl}/batch/${b.id}`,
    };
  }

  /** Why a running batch's next game has not started, in words for its page. */
  private waitingFor(row: BatchRow): string | null {
    const b = this.batches.get(row.id);
    if (!b || b.playing !== null) return null;
    if (!this.d.unrated.online(row.bot_id)) return "its bot to connect";
    if (!this.d.unrated.ready(row.bot_id))
      return row.version ? `its bot to queue with version ${row.version}` : "its bot to queue";
    if (!this.d.unrated.online(this.nextOpponent(b))) return "the next opponent to connect";
    return "the next opponent to queue, a free place or the owner's limits";
  }
}
