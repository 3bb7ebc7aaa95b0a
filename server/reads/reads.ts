// The public ladder data of SPEC 4.1 as a service: leaderboard, lobby, status, a bot's page data, its rating
// history, an owner's bots, and matches. Routes render what these return and pages read them directly (no
// in-process HTTP round trip); the return types are inferred from the response schemas of api/responses.ts,
// which also make the OpenAPI document, so a page and the API can never disagree about a shape.
// Since issue 38 each kind of answer keeps what it was made from beside the method that makes it (kept answers,
// list indexes); the match reads and their kept views are in match-reads.ts.
import type { RecordedStatsT } from "../../engine/stats.ts";
import type {
  BotT,
  ClusterStatusT,
  LeaderboardRowT,
  LobbyEntryT,
  MatchStatsT,
  MatchT,
  RatingHistoryT,
  StatusT,
  UserT,
} from "../api/responses.ts";
import { versionView } from "../api/views.ts";
import type { BotDirectory } from "../bots/directory.ts";
import { HealthWindows } from "../bots/health-windows.ts";
import { errors } from "../errors.ts";
import type { Services } from "../kernel/feature.ts";
import { Kept } from "../kernel/kept.ts";
import { BOT_NAME } from "../kernel/names.ts";
import type { Settings } from "../kernel/settings.ts";
import type { Ladders } from "../ladders/registry.ts";
import type { LadderRuntime } from "../ladders/runtime.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import type { LiveMatches } from "../play/live-matches.ts";
import { QUALIFYING_GAMES, versionKey } from "../ratings/book.ts";
import type { RatingPointRow } from "../ratings/rating-store.ts";
import type { BotSnapshot } from "../store/bot-row.ts";
import { ReadMemo } from "../store/read-memo.ts";
import type { BotRow, MatchRecord, Store, StoredMatch } from "../store/types.ts";
import { MatchReads } from "./match-reads.ts";
import { sample } from "./sample.ts";

export { sample } from "./sample.ts";

const HISTORY_LIMIT = 1000;
const RECENT_MATCHES = 10;
/** Rating charts kept until the next stored result (about 300 bytes a point, so a few MiB at most). */
const CHART_POINTS_KEPT = 20_000;
/** Bot, user and sparkline answers kept by their inputs (about 10 KB a bot answer at most; a few MiB). */
const ANSWERS_KEPT = 500;

const DIFFICULTY: Record<string, NonNullable<LobbyEntryT["difficulty"]>> = {
  kiter: "Easy",
  brawler: "Medium",
  "ts-starter": "Hard",
  champion: "Very hard",
};

/** The reads' stores: versions, matches (lists, stats, health) and rating history. */
export interface ReadsDeps extends Pick<Services, "botStore" | "matchStore" | "ratingStore"> {
  store: Store;
  ladders: Ladders;
  lobby: Lobby;
  bots: BotDirectory;
  live: LiveMatches;
  settings: Settings;
  publicUrl: string;
  draining(): boolean;
  /** Results that are durable in the journal but not yet in the database (newest last). */
  journaled(): readonly MatchRecord[];
}

export class LadderReads {
  /** Per-version health, kept up to date from each committed result (noteResult) rather than per read. */
  private readonly health: HealthWindows;
  private cluster: (() => ClusterStatusT) | null = null;
  private onlineElsewhere: (() => Participant[]) | null = null;
  /** Each bot snapshot's bots by lowercase name, so a read finds a bot by name without a query. */
  private readonly byName = new WeakMap<BotSnapshot, Map<string, BotRow>>();
  /** Each bot snapshot's player bots by lowercase owner handle (user pages). */
  private readonly byOwner = new WeakMap<BotSnapshot, Map<string, BotRow[]>>();
  /** Each kept leaderboard answer's rows by bot name (user pages look their bots up in it). */
  private readonly rowsByName = new WeakMap<readonly LeaderboardRowT[], Map<string, LeaderboardRowT>>();
  /** Whole rating charts (no time limit), kept until a match is written (store.matchWrites). */
  private readonly charts = new ReadMemo(CHART_POINTS_KEPT);
  /**
   * Answers derived from kept inputs, by the inputs' identities (server/kernel/kept.ts): a bot's answer, an
   * owner's, the sparklines of the board's top; each is frozen and handed back as it is while its inputs are
   * the same objects, so what is derived from it in turn (a rendered page, a serialised body) is kept too.
   */
  private readonly answers = new Kept<BotT | UserT | Map<string, number[]>>(ANSWERS_KEPT);
  /** Match lists, one match and its stats. */
  private readonly matchReads: MatchReads;

  constructor(private readonly d: ReadsDeps) {
    this.health = new HealthWindows(d.matchStore);
    this.matchReads = new MatchReads({ ...d, botByName: (name) => this.botByName(name) });
  }

  /** A committed result (the MatchFinished listener of the data feature): the health windows take it in. */
  noteResult(m: MatchRecord): void {
    this.health.record(m);
  }

  /** A result another node of the cluster committed (PeerResult): the health windows read it from the database. */
  notePeerResult(m: MatchRecord): void {
    this.health.forget(m);
    // The match tables changed under this node's memoised reads (server/store/read-memo.ts).
    this.d.store.matchWrites.bump();
  }

  private get base(): string {
    return this.d.publicUrl;
  }

  /** Online now, and with which version (house bots are always online). */
  private online(botId: string): { online: boolean; version: string | null; state: string } {
    const p = this.d.lobby.get(botId);
    const on = Boolean(p && (p.house || p.conn));
    return { online: on, version: on ? p!.version : null, state: p?.state ?? "idle" };
  }

  /** The ladder's leaderboard, from memory (SPEC 1.2 rule 9); `online` as the lobby says now. */
  async leaderboard(ladderId?: string): Promise<LeaderboardRowT[]> {
    return this.board(this.d.ladders.require(ladderId));
  }

  private async board(ladder: LadderRuntime): Promise<LeaderboardRowT[]> {
    const dir = await this.d.bots.snapshot();
    // `online` answers from the online bots and their versions only: with the same ones as the last read, the
    // rows are not built again (a few bots online, 2,000 rows).
    const onlineKey = this.d.lobby
      .online()
      .map((p) => `${p.bot.id}@${p.version ?? ""}`)
      .sort()
      .join(",");
    return ladder.leaderboard.rows(
      dir,
      this.base,
      (botId, version) => {
        const o = this.online(botId);
        return o.online && o.version === version;
      },
      onlineKey,
    );
  }

  /** Who is online on a ladder: its players' bots (queued there last) and its house bots, best first. */
  lobby(ladderId?: string): LobbyEntryT[] {
    const ladder = this.d.ladders.require(ladderId);
    const here = [...this.d.lobby.online(), ...(this.onlineElsewhere?.() ?? [])].filter((p) =>
      p.house ? ladder.def.house_bots : p.ladderId === ladder.id,
    );
    const entries = here.map((p) => {
      const r = p.version ? ladder.ratings.get(versionKey(p.bot.id, p.version)) : null;
      return {
        name: p.bot.name,
        display_name: p.bot.display_name,
        house: p.bot.house,
        version: p.version,
        rating: r ? Math.round(r.rating) : null,
        rating_deviation: r ? Math.round(r.deviation) : null,
        leaderboard_score: r ? r.leaderboardScore : null,
        difficulty: p.house ? (DIFFICULTY[p.bot.name] ?? null) : null,
        avatar: p.bot.avatar,
        state: p.state,
      };
    });
    // Ties by name, so that every node of a cluster lists its lobby in one order.
    return entries.sort(
      (a, b) =>
        (b.leaderboard_score ?? -Infinity) - (a.leaderboard_score ?? -Infinity) ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
  }

  /** Online bots, running matches and capacity, of one ladder or (undefined) the whole server. */
  status(ladderId?: string): StatusT {
    const ladder = ladderId === undefined ? null : this.d.ladders.require(ladderId);
    const running = [...this.d.live.byId.values()].filter(
      (m) => ladderId === undefined || m.setup.ladderId === ladderId,
    );
    // In a cluster the other nodes' bots too, as the lobby lists them; the matches are this node's own.
    const online = [...this.d.lobby.online(), ...(this.onlineElsewhere?.() ?? [])].filter(
      (p) => !ladder || (p.house ? ladder.def.house_bots : p.ladderId === ladder.id),
    );
    return {
      online: online.map((p) => ({
        name: p.bot.name,
        display_name: p.bot.display_name,
        house: p.bot.house,
        version: p.version,
        state: p.state,
        // A house bot waits on the default ladder and plays on every ladder that has house bots: asked about
        // one ladder, it is listed on that one.
        ladder_id: p.house && ladder ? ladder.id : p.ladderId,
      })),
      matches: running.map((m) => ({
        id: m.id,
        ladder_id: m.setup.ladderId,
        tick: m.tick,
        names: m.seats.map((s) => s.participant.bot.name),
        display_names: m.seats.map((s) => s.participant.bot.display_name),
      })),
      // The whole cluster's count and capacity in cluster mode (the heartbeats' figures), as the matchmaker
      // reads them; a ladder's limit is the ladder's whatever the number of nodes.
      capacity: {
        running: this.d.ladders.running(ladderId),
        max:
          ladderId === undefined
            ? this.d.ladders.capacity(this.d.settings.limits(null).maxConcurrentMatches)
            : this.d.settings.limits(ladderId).maxConcurrentMatches,
      },
      draining: this.d.draining(),
      ...(this.cluster ? { cluster: this.cluster() } : {}),
    };
  }

  /** Shows the cluster in the status (cluster mode only: server/cluster/ fills it). */
  showCluster(view: () => ClusterStatusT): void {
    this.cluster = view;
  }

  /** Cluster mode: the other nodes' connected bots, which the lobby lists beside this node's. */
  showOnlineElsewhere(elsewhere: () => Participant[]): void {
    this.onlineElsewhere = elsewhere;
  }

  /** A bot by name; a name that cannot be a bot name is as unknown as a missing one (404 no_such_bot). */
  async botNamed(name: string): Promise<BotRow> {
    const bot = BOT_NAME.test(name) ? await this.botByName(name) : null;
    if (!bot) throw errors.noSuchBot(name);
    return bot;
  }

  /** From the bot directory's snapshot (in memory, reloaded after a committed write to bots): no query. */
  private async botByName(name: string): Promise<BotRow | null> {
    const snap = await this.d.bots.snapshot();
    let names = this.byName.get(snap);
    if (!names) {
      names = new Map(snap.bots.map((b) => [b.name.toLowerCase(), b]));
      this.byName.set(snap, names);
    }
    return names.get(name.toLowerCase()) ?? null;
  }

  async bot(name: string, ladderId?: string): Promise<BotT> {
    const ladder = this.d.ladders.require(ladderId);
    const bot = await this.botNamed(name);
    const records = ladder.leaderboard.records(bot.id);
    const [versions, listed, recent] = await Promise.all([
      this.d.botStore.versions(bot.id),
      this.board(ladder),
      this.d.matchStore.matches({
        ladder: ladder.id,
        botName: bot.name,
        botId: bot.id,
        limit: RECENT_MATCHES,
      }),
    ]);
    const health = await Promise.all(versions.map((v) => this.health.of(bot.id, v.label)));
    const o = this.online(bot.id);
    // Everything the answer is made from: the bot's row (a new one after any change to it), its versions, the
    // board (a new array after each rated result on the ladder, which is also when the ratings and records
    // change), its recent matches, whether and how it is online, and each version's health summary.
    return this.answers.get(
      `bot\0${ladder.id}\0${bot.id}`,
      [bot, versions, listed, recent, o.online, o.version, o.state, ...health],
      () => {
        const row = listed.find((r) => r.name === bot.name);
        return Object.freeze({
          name: bot.name,
          display_name: bot.display_name,
          owner: bot.owner,
          owner_url: bot.house ? null : `${this.base}/user/${encodeURIComponent(bot.owner)}`,
          created: bot.created,
          ladder_id: ladder.id,
          house: bot.house,
          online: o.online,
          avatar: bot.avatar,
          online_version: o.online && (o.state === "waiting" || o.state === "playing") ? o.version : null,
          qualifying_games: QUALIFYING_GAMES,
          versions: versions.map((v, i) => ({
            ...versionView(v, ladder.ratings.get(versionKey(bot.id, v.label)), records.get(v.label)),
            rank: row && row.version === v.label ? row.rank : null,
            health: health[i]!,
          })),
          recent_matches: recent.map((m) => this.matchReads.view(m)),
        });
      },
    ) as BotT;
  }

  async ratings(name: string, ladderId?: string, days?: number): Promise<RatingHistoryT> {
    const ladder = this.d.ladders.require(ladderId);
    const bot = await this.botNamed(name);
    if (days !== undefined) return this.chart(bot, ladder.id, days);
    // The whole chart changes only when a match is stored: kept until then (bot pages ask for it every view).
    return this.charts.get(
      `${bot.id}\0${bot.name}\0${ladder.id}`,
      this.d.store.matchWrites.generation,
      () => this.chart(bot, ladder.id),
      (h) => h.points.length,
    );
  }

  private async chart(bot: BotRow, ladderId: string, days?: number): Promise<RatingHistoryT> {
    const since = days === undefined ? null : new Date(Date.now() - days * 86_400_000).toISOString();
    // The sample is picked from the history's keys (one index of match_bots), then only its games are read:
    // a house bot's thousands of games cost an index walk, not thousands of joined rows.
    const keys = await this.d.ratingStore.ratingKeys(bot.id, ladderId, since);
    const picked = sample(keys, HISTORY_LIMIT);
    const rows =
      picked.length === 0
        ? []
        : await this.d.ratingStore.ratingPoints(
            bot.id,
            ladderId,
            since,
            picked.map((k) => k.seq),
          );
    return { since, games: keys.length, points: rows.map((r) => ratingPoint(bot, r)) };
  }

  /**
   * The latest `games` ratings of each listed version (leaderboard sparklines), by bot name: the tail of each
   * history read from the index, not the whole history.
   */
  async trends(
    rows: readonly { name: string; version: string }[],
    games: number,
    ladderId?: string,
  ): Promise<Map<string, number[]>> {
    const ladder = this.d.ladders.require(ladderId);
    const tails = await Promise.all(
      rows.map(async (r) => {
        const bot = await this.botByName(r.name);
        return bot ? this.d.ratingStore.ratingTail(bot.id, r.version, ladder.id, games) : [];
      }),
    );
    // The same Map while the same tails (the store keeps each until a match is written) are asked for.
    return this.answers.get(
      `trends\0${ladder.id}\0${games}\0${rows.map((r) => `${r.name}\0${r.version}`).join("\0")}`,
      tails,
      () => new Map(rows.map((r, i) => [r.name, tails[i]!.map(Math.round)])),
    ) as Map<string, number[]>;
  }

  /** An owner's bots with their standing on a ladder; unknown (or banned: no listed bots) is a 404. */
  async user(handle: string, ladderId?: string): Promise<UserT> {
    const ladder = this.d.ladders.require(ladderId);
    const snap = await this.d.bots.snapshot();
    let owners = this.byOwner.get(snap);
    if (!owners) {
      owners = new Map();
      for (const b of snap.bots) {
        if (b.house) continue;
        const key = b.owner.toLowerCase();
        owners.set(key, [...(owners.get(key) ?? []), b]);
      }
      this.byOwner.set(snap, owners);
    }
    const bots = owners.get(handle.toLowerCase()) ?? [];
    if (bots.length === 0) throw errors.notFound(`user ${JSON.stringify(handle)}`);
    const board = await this.board(ladder);
    const online = bots.map((b) => this.online(b.id).online);
    // Made from the owner's bots (new rows after any bot write), the board (new after each rated result, when
    // the records change too) and who of them is online.
    return this.answers.get(`user\0${ladder.id}\0${handle.toLowerCase()}`, [snap, board, ...online], () => {
      let named = this.rowsByName.get(board);
      if (!named) {
        named = new Map(board.map((r) => [r.name, r]));
        if (Object.isFrozen(board)) this.rowsByName.set(board, named);
      }
      const byName = named;
      return Object.freeze({
        handle: bots[0]!.owner,
        created: bots.map((b) => b.created).sort()[0]!,
        ladder_id: ladder.id,
        bots: bots.map((bot, i) => {
          const row = byName.get(bot.name);
          const totals = [...ladder.leaderboard.records(bot.id).values()].reduce(
            (t, r) => ({ wins: t.wins + r.wins, losses: t.losses + r.losses, draws: t.draws + r.draws }),
            { wins: 0, losses: 0, draws: 0 },
          );
          return {
            name: bot.name,
            display_name: bot.display_name,
            owner: bot.owner,
            created: bot.created,
            owner_url: `${this.base}/user/${encodeURIComponent(bot.owner)}`,
            house: false,
            online: online[i]!,
            retired: bot.status === "retired",
            avatar: bot.avatar,
            version: row?.version ?? null,
            rank: row?.rank ?? null,
            leaderboard_score: row?.leaderboard_score ?? null,
            rating: row?.rating ?? null,
            rating_deviation: row?.rating_deviation ?? null,
            ...totals,
          };
        }),
      });
    }) as UserT;
  }

  /** Matches, newest first (server/reads/match-reads.ts). */
  matches(q: Parameters<MatchReads["matches"]>[0]): Promise<MatchT[]> {
    return this.matchReads.matches(q);
  }

  match(id: string): Promise<MatchT> {
    return this.matchReads.match(id);
  }

  storedMatch(id: string): Promise<StoredMatch | null> {
    return this.matchReads.storedMatch(id);
  }

  stats(id: string): Promise<MatchStatsT & { match_id: string }> {
    return this.matchReads.stats(id);
  }

  recordedStats(id: string): Promise<RecordedStatsT> {
    return this.matchReads.recordedStats(id);
  }
}

function ratingPoint(bot: BotRow, r: RatingPointRow) {
  const after = Math.round(r.rating_after ?? 0);
  return {
    match_id: r.match_id,
    ended: r.ended,
    version: r.version,
    rating: after,
    delta: after - Math.round(r.rating_before ?? after),
    result: (r.winner === null ? "D" : r.winner === bot.id ? "W" : "L") as "W" | "L" | "D",
    opponent: `${r.opponent.name}@${r.opponent.version}`,
    opponent_display_name: r.opponent.display_name,
    map: r.map,
  };
}
