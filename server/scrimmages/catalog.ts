// Scrimmages at run time (issue 34, parts 1 and 2): the lone requests waiting for their bots, the running batch
// tests, the games playing now, and each owner's starts in the last hour (the limits are counted from these and
// the live settings); the lobby hold's rule (the bots a waiting game needs are kept out of the ranked queue); the
// checks every request makes (the caller's own bot, an opponent it may play, a map); the writes, kept in order on
// one chain; and a scrimmage's JSON view. What happens to them is in the files beside this one: starting games
// and recording results (games.ts), lone requests and the opt-in (requests.ts), batch tests (batches.ts);
// service.ts puts them together.
import type { Logger } from "pino";
import { MAP_NAMES } from "../../engine/rules.ts";
import type { Caller } from "../accounts/accounts.ts";
import type { BotStore } from "../bots/bot-store.ts";
import { errors } from "../errors.ts";
import { BOT_NAME } from "../kernel/names.ts";
import type { Settings } from "../kernel/settings.ts";
import type { Unit } from "../kernel/unit-of-work.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import type { LiveMatches } from "../play/live-matches.ts";
import type { BotRow, Store } from "../store/types.ts";
import { type BatchRow, type GameResult, type ScrimmageRow, ScrimmageStore } from "./store.ts";
import type { UnratedMatches } from "./unrated.ts";

export const HOUR_MS = 3_600_000;

export interface ScrimmageDeps {
  store: Store;
  botStore: Pick<BotStore, "botByName" | "botById" | "version">;
  lobby: Lobby;
  live: LiveMatches;
  settings: Settings;
  log: Logger;
  unrated: UnratedMatches;
  work<T>(fn: (u: Unit) => Promise<T>): Promise<T>;
  publicUrl: string;
}

/** A lone request waiting for its two bots. */
export interface Pending {
  id: string;
  accountId: string;
  botId: string;
  opponentId: string;
  map: string | null;
  created: number;
}

/** A running batch test. */
export interface Batch {
  row: BatchRow;
  /** Games started so far (finished or playing). */
  started: number;
  playing: string | null;
}

/** A game playing now. */
export interface Playing {
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

export class ScrimmageCatalog {
  readonly rows: ScrimmageStore;
  /** Lone requests waiting for their bots, oldest first. */
  readonly pending: Pending[] = [];
  /** Running batch tests by id. */
  readonly batches = new Map<string, Batch>();
  /** Running games by match id. */
  readonly playing = new Map<string, Playing>();
  /** Start times in the last hour, per account (the hourly limit). */
  private readonly starts = new Map<string, number[]>();
  /** Writes of game starts and ends, in order (an end is never written before its start). */
  private writes: Promise<void> = Promise.resolve();

  constructor(protected readonly d: ScrimmageDeps) {
    this.rows = new ScrimmageStore(d.store.db);
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
  claims(p: Participant): boolean {
    for (const s of this.pending) if (s.botId === p.bot.id || s.opponentId === p.bot.id) return true;
    for (const b of this.batches.values()) {
      if (b.playing !== null || b.started >= b.row.games) continue;
      if (b.row.bot_id === p.bot.id) return b.row.version === null || p.version === b.row.version;
      if (this.nextOpponent(b) === p.bot.id) return true;
    }
    return false;
  }

  nextOpponent(b: Batch): string {
    return b.row.opponents[b.started % b.row.opponents.length]!;
  }

  // --- Writes, in order ---

  write(fn: () => Promise<void>): void {
    this.writes = this.writes
      .then(fn)
      .catch((err: unknown) => this.d.log.error({ err }, "a scrimmage write failed"));
  }

  /** Resolves once every write begun so far is done (tests, and a reader that must see the latest result). */
  settled(): Promise<void> {
    return this.writes;
  }

  // --- The owner's limits ---

  startedAt(accountId: string, at: number): void {
    const list = this.starts.get(accountId) ?? [];
    list.push(at);
    this.starts.set(accountId, list);
  }

  hourCount(accountId: string, now: number): number {
    const list = (this.starts.get(accountId) ?? []).filter((t) => now - t < HOUR_MS);
    this.starts.set(accountId, list);
    return list.length;
  }

  runningFor(accountId: string): number {
    let n = 0;
    for (const p of this.playing.values()) if (p.accountId === accountId) n++;
    return n;
  }

  // --- The checks of a request ---

  /** The caller's bot by name, or 404 (also for another account's bot: no existence leak). */
  async ownBot(caller: Caller, name: string): Promise<BotRow> {
    const bot = BOT_NAME.test(name) ? await this.d.botStore.botByName(name) : null;
    if (!bot || bot.account_id !== caller.account.id || bot.house) throw errors.noSuchBot(name);
    return bot;
  }

  async opponent(caller: Caller, bot: BotRow, name: string): Promise<BotRow> {
    const o = BOT_NAME.test(name) ? await this.d.botStore.botByName(name) : null;
    if (!o || o.status === "retired") throw errors.noSuchBot(name);
    if (o.id === bot.id) throw errors.badRequest("a bot cannot play a scrimmage against itself");
    if (o.status !== "active") throw errors.botModerated(o.status);
    // House bots and the caller's own bots always; another owner's bot only when its owner opted in.
    if (!o.house && o.account_id !== caller.account.id && !(await this.rows.optIn(o.id)))
      throw errors.scrimmagesNotAllowed(o.name);
    return o;
  }

  checkMap(map: string | undefined): string | null {
    if (map === undefined) return null;
    if (!MAP_NAMES.includes(map)) throw errors.badRequest(`map must be one of ${MAP_NAMES.join(", ")}`);
    return map;
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
}
