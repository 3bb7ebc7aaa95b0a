// Tournaments (issue 34, part 3). Staff schedule a round-robin or Swiss tournament on a ladder; this service
// runs it:
//
// - Check-in: from `checkin_s` seconds before the start until the start, every bot that is connected (a
//   socket open, not a house bot), active, and allowed to queue on the ladder (its enrollment, the ladder's
//   window) is checked in. At the start, the checked-in bots still connected enter, seeded in check-in order.
//   Fewer than two: the tournament is cancelled. A bot takes part in one tournament at a time: one checked in
//   to another tournament, or playing in one, is not checked in.
// - From check-in to the end, an entrant is held for the tournament (a lobby hold, as scrimmages do): it plays
//   no ranked game, and waits for its next tournament game.
// - Each round is paired (pairing.ts) and its games played through the normal pool, as unrated matches of mode
//   `tournament` started when both bots have queued on the tournament's ladder, within the server's and the
//   ladder's capacity (server/scrimmages/unrated.ts starts them). The games of a pairing are played one after
//   another, on the round's maps in turn.
// - A bot absent at its game forfeits it: when `forfeit_after_s` seconds have passed since the game could
//   start and the bot has not queued on the ladder (disconnected, idle, or queued elsewhere), the game is
//   scored a loss for it and a win for the opponent (both absent: a loss for both). A bot still playing a
//   match is waited for.
// - A game scores 1 a win, 1/2 a draw (a voided match counts as a draw), 0 a loss. The round ends when all its
//   games have; the next is paired from the standings. When the rounds are done (or no Swiss pairing without a
//   rematch is left) the final standings are written once and kept.
// - Results stay out of the ladder's ratings unless the tournament says otherwise: an unrated tournament (the
//   default) plays mode `tournament`, which no rating, forecast, leaderboard or quota reads; a `rated` one plays
//   its games as ordinary rated games of the ladder (mode `ranked`, pairing reason `tournament`), which enter
//   its ratings, forecasts and leaderboard and count against the owners' quotas like any rated game.
import { randomInt } from "node:crypto";
import type { Logger } from "pino";
import { MAP_NAMES } from "../../engine/rules.ts";
import type { Caller } from "../accounts/accounts.ts";
import { errors } from "../errors.ts";
import type { DomainEvents } from "../kernel/bus.ts";
import type { Settings } from "../kernel/settings.ts";
import type { Unit } from "../kernel/unit-of-work.ts";
import type { Ladders } from "../ladders/registry.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import { smoothedForecast } from "../matchmaker/pairing.ts";
import type { LiveMatches } from "../play/live-matches.ts";
import { versionKey } from "../ratings/book.ts";
import type { RunningMatch } from "../runner/match-runner.ts";
import type { UnratedMatches } from "../scrimmages/unrated.ts";
import type { PairingRecord } from "../store/pairing-record.ts";
import type { Store } from "../store/types.ts";
import { type Bye, type PlayedGame, roundRobin, standings, swissRound, TIE_BREAKS } from "./pairing.ts";
import {
  type EntrantRow,
  type GameRow,
  newTournamentId,
  type TournamentFormat,
  type TournamentRow,
  TournamentStore,
} from "./store.ts";

/** A started game whose match left the running set without a result is scored a draw after this long. */
const LOST_RESULT_MS = 60_000;
export const MAX_ROUNDS = 20;

export interface TournamentDeps {
  store: Store;
  lobby: Lobby;
  live: LiveMatches;
  ladders: Ladders;
  settings: Settings;
  log: Logger;
  unrated: UnratedMatches;
  work<T>(fn: (u: Unit) => Promise<T>): Promise<T>;
  publicUrl: string;
}

interface Active {
  row: TournamentRow;
  /** Checked-in bots (before the start) or entrants (after), by id: name and check-in time. */
  bots: Map<string, { name: string; at: number }>;
  /** Entrants in seed order, once started. */
  seeds: string[];
  games: GameRow[];
  /** When each waiting game could first start (its round began, or the pairing's previous game ended). */
  since: Map<GameRow, number>;
}

export interface CreateInput {
  name: string;
  ladder: string;
  format: TournamentFormat;
  rounds?: number | undefined;
  games_per_pairing: number;
  /** The games enter the ladder's ratings (default false: they stay out). */
  rated?: boolean | undefined;
  starts_at: string;
  checkin_minutes: number;
  forfeit_after_s: number;
}

export class TournamentService {
  readonly rows: TournamentStore;
  private readonly active = new Map<string, Active>();
  /** Running games by match id. */
  private readonly playing = new Map<string, { t: Active; g: GameRow; goneSince: number | null }>();
  private writes: Promise<void> = Promise.resolve();

  constructor(private readonly d: TournamentDeps) {
    this.rows = new TournamentStore(d.store.db);
    d.lobby.hold({ claims: (p) => this.claims(p), queued: () => this.sweep() });
  }

  /** Reads what was open before a restart; games that were playing were lost with the process: replayed. */
  async load(): Promise<void> {
    for (const row of await this.rows.open()) {
      const entrants = await this.rows.entrants(row.id);
      const games = await this.rows.games(row.id);
      const t: Active = {
        row,
        bots: new Map(entrants.map((e) => [e.bot_id, { name: e.bot_name, at: Date.parse(e.checked_in) }])),
        seeds: entrants.filter((e) => e.seed !== null).map((e) => e.bot_id),
        games,
        since: new Map(),
      };
      if (row.state === "running")
        for (const b of [...t.bots.keys()]) if (!t.seeds.includes(b)) t.bots.delete(b);
      for (const g of games)
        if (g.state === "playing") {
          g.state = "waiting";
          g.match_id = null;
          g.started = null;
          await this.rows.saveGame(row.id, g);
        }
      const now = Date.now();
      for (const g of games) if (g.state === "waiting") t.since.set(g, now);
      this.active.set(row.id, t);
    }
  }

  private write(fn: () => Promise<void>): void {
    this.writes = this.writes
      .then(fn)
      .catch((err: unknown) => this.d.log.error({ err }, "a tournament write failed"));
  }

  /** Resolves once every write begun so far is done. */
  settled(): Promise<void> {
    return this.writes;
  }

  // --- The lobby hold ---

  private claims(p: Participant): boolean {
    for (const t of this.active.values()) {
      if (t.row.state === "running" ? t.seeds.includes(p.bot.id) : t.bots.has(p.bot.id)) return true;
    }
    return false;
  }

  // --- The clock ---

  /** Check-in, the start, and each running round's games: started, forfeited, or the next round paired. */
  sweep(now = Date.now()): void {
    for (const t of [...this.active.values()]) {
      if (t.row.state === "scheduled") {
        const start = Date.parse(t.row.starts_at);
        if (now >= start - t.row.checkin_s * 1000) this.checkIn(t, now);
        if (now >= start) this.begin(t, now);
      }
      if (t.row.state === "running") this.progress(t, now);
    }
    this.lostResults(now);
  }

  private checkIn(t: Active, now: number): void {
    for (const p of this.d.lobby.all()) {
      if (p.house || !p.conn || t.bots.has(p.bot.id) || p.bot.status !== "active") continue;
      // One tournament at a time: a bot checked in to (or playing) another one is not checked in here.
      if (this.claims(p)) continue;
      if ("code" in this.d.ladders.mayQueue(p.bot, t.row.ladder_id, now)) continue;
      t.bots.set(p.bot.id, { name: p.bot.name, at: now });
      const at = new Date(now).toISOString();
      const { id } = t.row;
      this.write(() => this.rows.checkIn(id, p.bot.id, p.bot.name, at));
    }
  }

  private begin(t: Active, now: number): void {
    const entered = [...t.bots.entries()]
      .filter(([id]) => this.d.unrated.online(id))
      .sort((x, y) => x[1].at - y[1].at || (x[1].name < y[1].name ? -1 : 1))
      .map(([id]) => id);
    for (const id of [...t.bots.keys()]) if (!entered.includes(id)) t.bots.delete(id);
    if (entered.length < 2) {
      this.end(
        t,
        "cancelled",
        `${entered.length} bot(s) checked in and online at the start; two are needed`,
        now,
      );
      return;
    }
    t.seeds = entered;
    t.row.state = "running";
    t.row.started = new Date(now).toISOString();
    if (t.row.format === "round_robin") t.row.rounds = roundRobin(entered).length;
    const { id, rounds } = t.row;
    const at = t.row.started;
    this.write(() => this.rows.started(id, entered, rounds!, at));
    this.nextRound(t, now);
  }

  /** The standings from the games so far (names are resolved by the views). */
  private table(t: Active) {
    const { games, byes } = scored(t.games);
    return standings(t.seeds, games, byes);
  }

  private nextRound(t: Active, now: number): void {
    const r = t.row.round + 1;
    if (r > (t.row.rounds ?? 0)) {
      this.end(t, "done", null, now);
      return;
    }
    let pairs: [string, string][];
    let bye: string | null;
    if (t.row.format === "round_robin") ({ pairs, bye } = roundRobin(t.seeds)[r - 1]!);
    else {
      const table = this.table(t);
      const met = new Set(t.games.filter((g) => g.b_id !== null).map((g) => pairKeyOf(g.a_id, g.b_id!)));
      const round = swissRound({
        ranked: table.map((s) => s.player),
        score: new Map(table.map((s) => [s.player, s.score])),
        byes: new Map(table.map((s) => [s.player, s.byes])),
        met,
      });
      if (round === null) {
        this.end(t, "done", `ended after round ${r - 1}: no pairing without a rematch was left`, now);
        return;
      }
      ({ pairs, bye } = round);
    }
    const k = t.row.games_per_pairing;
    const at = new Date(now).toISOString();
    const fresh: GameRow[] = [];
    pairs.forEach(([a, b], i) => {
      for (let g = 0; g < k; g++)
        fresh.push({
          round: r,
          pairing: i + 1,
          game: g + 1,
          a_id: a,
          b_id: b,
          state: "waiting",
          map: MAP_NAMES[(r - 1 + g) % MAP_NAMES.length]!,
          match_id: null,
          points_a: null,
          points_b: null,
          forfeit: null,
          reason: null,
          started: null,
          ended: null,
        });
    });
    if (bye !== null)
      fresh.push({
        round: r,
        pairing: pairs.length + 1,
        game: 1,
        a_id: bye,
        b_id: null,
        state: "done",
        map: null,
        match_id: null,
        // Swiss: a bye scores as a won pairing; round-robin: a rest, which every player has once.
        points_a: t.row.format === "swiss" ? k : 0,
        points_b: null,
        forfeit: null,
        reason: "bye",
        started: null,
        ended: at,
      });
    for (const g of fresh) if (g.state === "waiting" && g.game === 1) t.since.set(g, now);
    t.games.push(...fresh);
    t.row.round = r;
    const { id } = t.row;
    this.write(() => this.rows.round(id, r, fresh));
    // A round of byes only (cannot happen with two or more entrants, but never stall).
    if (fresh.every((g) => g.state === "done")) this.nextRound(t, now);
  }

  /** A bot that may start its tournament game now: connected, queued on the tournament's ladder, free. */
  private ready(t: Active, botId: string): Participant | null {
    const p = this.d.unrated.ready(botId);
    return p && !p.house && p.ladderId === t.row.ladder_id ? p : null;
  }

  /** Playing a match now (a ranked one begun before check-in, or the previous game of its pairing). */
  private busy(botId: string): boolean {
    return this.d.unrated.online(botId) !== null && this.d.live.ofBot(botId) !== undefined;
  }

  private room(t: Active): boolean {
    return (
      this.d.unrated.room() &&
      this.d.live.running(t.row.ladder_id) < this.d.settings.limits(t.row.ladder_id).maxConcurrentMatches
    );
  }

  private progress(t: Active, now: number): void {
    const current = t.games.filter((g) => g.round === t.row.round);
    const pairings = new Set(current.map((g) => g.pairing));
    for (const pairing of pairings) {
      const g = current.find((x) => x.pairing === pairing && x.state !== "done");
      if (g?.state !== "waiting" || g.b_id === null) continue;
      const since = t.since.get(g) ?? now;
      t.since.set(g, since);
      const a = this.ready(t, g.a_id);
      const b = this.ready(t, g.b_id);
      if (a && b) {
        if (this.room(t)) this.startGame(t, g, a, b, now);
        continue;
      }
      if (now - since < t.row.forfeit_after_s * 1000) continue;
      const aAbsent = !a && !this.busy(g.a_id);
      const bAbsent = !b && !this.busy(g.b_id);
      if (!aAbsent && !bAbsent) continue;
      const forfeit = aAbsent && bAbsent ? "both" : aAbsent ? "a" : "b";
      const names = [aAbsent ? this.name(t, g.a_id) : null, bAbsent ? this.name(t, g.b_id) : null].filter(
        (x) => x !== null,
      );
      this.score(
        t,
        g,
        aAbsent ? 0 : 1,
        bAbsent ? 0 : 1,
        forfeit,
        `forfeit: ${names.join(" and ")} absent (not queued on the ladder within ${t.row.forfeit_after_s} s)`,
        now,
      );
    }
    if (t.row.state === "running" && current.every((g) => g.state === "done")) this.nextRound(t, now);
  }

  private name(t: Active, botId: string): string {
    return t.bots.get(botId)?.name ?? botId;
  }

  private startGame(t: Active, g: GameRow, a: Participant, b: Participant, now: number): void {
    const m = t.row.rated ? this.startRated(t, a, b, now) : this.d.unrated.start(a, b, "tournament", g.map);
    g.state = "playing";
    g.match_id = m.id;
    g.map = m.setup.map;
    g.started = new Date(now).toISOString();
    this.playing.set(m.id, { t, g, goneSince: null });
    const id = t.row.id;
    const copy = { ...g };
    this.write(() => this.rows.saveGame(id, copy));
  }

  /**
   * A rated tournament's game: an ordinary rated game of the ladder (mode `ranked`), seated by a coin toss, on
   * the pair's least-played map as every rated game is (SPEC 3.6; the seed breaks ties), with a pairing record
   * that says it is a tournament game (the match page shows why).
   */
  private startRated(t: Active, a: Participant, b: Participant, now: number): RunningMatch {
    const ladder = this.d.ladders.require(t.row.ladder_id);
    const seed = randomInt(2 ** 31);
    const seats: [Participant, Participant] = seed % 2 === 0 ? [a, b] : [b, a];
    const [ka, kb] = seats.map((p) => versionKey(p.bot.id, p.version ?? "unversioned")) as [string, string];
    const facts = ladder.ratings.facts(ka, kb);
    const fewest = Math.min(...MAP_NAMES.map((m) => facts.mapGames.get(m) ?? 0));
    const least = MAP_NAMES.filter((m) => (facts.mapGames.get(m) ?? 0) === fewest);
    const map = least[seed % least.length]!;
    const [ra, rb] = [ladder.ratings.ratingOf(ka), ladder.ratings.ratingOf(kb)];
    const wait = (p: Participant) => (p.house ? 0 : Math.max(0, Math.round(now - p.queuedAt)));
    const pairing: PairingRecord = {
      reason: "tournament",
      weight: null,
      parts: {},
      forecast: Math.round(smoothedForecast({ rating: ra }, { rating: rb }, facts) * 10_000) / 10_000,
      pair_games: facts.games,
      rating_gap: Math.round(Math.abs(ra - rb)),
      window: null,
      waits_ms: [wait(seats[0]), wait(seats[1])],
      requested_by: null,
      map: { reason: "least_played", games: fewest, choices: least.length },
    };
    return this.d.live.start({ seats, map, seed, pairing }, ladder.id, "ranked");
  }

  /** Records a game's points; the pairing's next game may start from now. */
  private score(
    t: Active,
    g: GameRow,
    pointsA: number,
    pointsB: number,
    forfeit: GameRow["forfeit"],
    reason: string,
    now: number,
  ): void {
    g.state = "done";
    g.points_a = pointsA;
    g.points_b = pointsB;
    g.forfeit = forfeit;
    g.reason = reason;
    g.ended = new Date(now).toISOString();
    t.since.delete(g);
    const next = t.games.find((x) => x.round === g.round && x.pairing === g.pairing && x.game === g.game + 1);
    if (next) t.since.set(next, now);
    const id = t.row.id;
    const copy = { ...g };
    this.write(() => this.rows.saveGame(id, copy));
  }

  /** A MatchFinished listener: the game's result from its pairing's side `a`. */
  finished(e: DomainEvents["MatchFinished"]): void {
    const m = e.match;
    if (m.mode !== "tournament" && m.mode !== "ranked") return;
    const p = this.playing.get(m.id);
    if (!p) return;
    this.playing.delete(m.id);
    if (p.t.row.state !== "running") return;
    const { g } = p;
    const now = Date.parse(m.ended) || Date.now();
    if (m.voided) this.score(p.t, g, 0.5, 0.5, null, `void (counted as a draw): ${m.reason}`, now);
    else if (m.winner_bot_id === null) this.score(p.t, g, 0.5, 0.5, null, m.reason, now);
    else if (m.winner_bot_id === g.a_id) this.score(p.t, g, 1, 0, null, m.reason, now);
    else this.score(p.t, g, 0, 1, null, m.reason, now);
    this.sweep();
  }

  private lostResults(now: number): void {
    for (const [matchId, p] of this.playing) {
      if (this.d.live.byId.has(matchId)) continue;
      p.goneSince ??= now;
      if (now - p.goneSince < LOST_RESULT_MS) continue;
      this.playing.delete(matchId);
      if (p.t.row.state === "running")
        this.score(p.t, p.g, 0.5, 0.5, null, "no result was stored (a draw)", now);
    }
  }

  private end(t: Active, state: "done" | "cancelled", note: string | null, now: number): void {
    this.active.delete(t.row.id);
    t.row.state = state;
    const final =
      t.seeds.length > 0 ? this.table(t).map((r) => ({ ...r, player: this.name(t, r.player) })) : null;
    const at = new Date(now).toISOString();
    const { id } = t.row;
    this.write(async () => {
      await this.rows.end(this.d.store.db, id, state, final, note, at);
    });
  }

  // --- Staff operations ---

  async create(caller: Caller, input: CreateInput, now = Date.now()) {
    const ladder = this.d.ladders.get(input.ladder);
    if (!ladder) throw errors.badRequest(`unknown ladder ${JSON.stringify(input.ladder)}`);
    const startsAt = Date.parse(input.starts_at);
    if (!Number.isFinite(startsAt)) throw errors.badRequest("starts_at must be a date and time (ISO 8601)");
    if (input.format === "swiss" && input.rounds === undefined)
      throw errors.badRequest("a Swiss tournament needs rounds");
    if (input.format === "round_robin" && input.rounds !== undefined)
      throw errors.badRequest("a round-robin's rounds follow from its entrants; leave rounds out");
    const row = {
      id: newTournamentId(),
      name: input.name,
      ladder_id: ladder.id,
      format: input.format,
      rounds: input.rounds ?? null,
      games_per_pairing: input.games_per_pairing,
      rated: input.rated ?? false,
      starts_at: new Date(Math.max(startsAt, now)).toISOString(),
      checkin_s: Math.round(input.checkin_minutes * 60),
      forfeit_after_s: input.forfeit_after_s,
      created_by: caller.account.handle ?? caller.account.id,
    };
    await this.d.work(async (u) => {
      await this.rows.insert(u.q, row);
      await u.audit("tournament_create", row.created_by, {
        id: row.id,
        name: row.name,
        ladder: row.ladder_id,
        format: row.format,
        rounds: row.rounds,
        rated: row.rated,
        starts_at: row.starts_at,
      });
    });
    const stored = (await this.rows.byId(row.id))!;
    this.active.set(row.id, { row: stored, bots: new Map(), seeds: [], games: [], since: new Map() });
    this.sweep(now);
    return this.get(row.id);
  }

  async cancel(caller: Caller, id: string, now = Date.now()) {
    const row = await this.rows.byId(id);
    if (!row) throw errors.noSuchTournament(id);
    const t = this.active.get(id);
    if (t) {
      this.end(t, "cancelled", `cancelled by ${caller.account.handle ?? caller.account.id}`, now);
      for (const [matchId, p] of this.playing) if (p.t === t) this.playing.delete(matchId);
      await this.settled();
      await this.d.work(async (u) => {
        await u.audit("tournament_cancel", caller.account.handle ?? caller.account.id, { id });
      });
    }
    return this.get(id);
  }

  // --- Reads ---

  async list() {
    await this.settled();
    return (await this.rows.list(100)).map((t) => ({
      id: t.id,
      name: t.name,
      ladder_id: t.ladder_id,
      format: t.format,
      state: t.state,
      rated: t.rated,
      starts_at: t.starts_at,
      round: t.round,
      round_count: t.rounds,
      entrants: t.entrants,
      url: `${this.d.publicUrl}/tournaments/${t.id}`,
    }));
  }

  /** A tournament as JSON: its settings, state, entrants, rounds with pairings and results, and standings. */
  async get(id: string) {
    await this.settled();
    const row = await this.rows.byId(id);
    if (!row) throw errors.noSuchTournament(id);
    const entrants = await this.rows.entrants(id);
    const games = await this.rows.games(id);
    return tournamentView(row, entrants, games, this.d.publicUrl);
  }
}

const pairKeyOf = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

/** The games and byes as pairing.ts scores them. */
export function scored(rows: readonly GameRow[]): { games: PlayedGame[]; byes: Bye[] } {
  const games: PlayedGame[] = [];
  const byes: Bye[] = [];
  for (const g of rows) {
    if (g.b_id === null) byes.push({ round: g.round, player: g.a_id, points: g.points_a ?? 0 });
    else if (g.state === "done")
      games.push({
        round: g.round,
        a: g.a_id,
        b: g.b_id,
        pointsA: g.points_a,
        pointsB: g.points_b,
        forfeit: g.forfeit,
      });
  }
  return { games, byes };
}

export function tournamentView(
  row: TournamentRow,
  entrants: EntrantRow[],
  games: GameRow[],
  publicUrl: string,
) {
  const name = new Map(entrants.map((e) => [e.bot_id, e.bot_name]));
  const nameOf = (id: string) => name.get(id) ?? id;
  const seeded = entrants.filter((e) => e.seed !== null);
  const { games: played, byes } = scored(games);
  const live = standings(
    seeded.map((e) => e.bot_id),
    played,
    byes,
  ).map((s) => ({ ...s, player: nameOf(s.player) }));
  const table = row.standings ?? live;
  const rounds = [];
  for (let r = 1; r <= row.round; r++) {
    const inRound = games.filter((g) => g.round === r);
    const pairings = [...new Set(inRound.map((g) => g.pairing))].map((p) => {
      const gs = inRound.filter((g) => g.pairing === p);
      const first = gs[0]!;
      const sum = (k: "points_a" | "points_b") =>
        gs.every((g) => g.state === "done") ? gs.reduce((s, g) => s + (g[k] ?? 0), 0) : null;
      return {
        a: nameOf(first.a_id),
        b: first.b_id === null ? null : nameOf(first.b_id),
        bye: first.b_id === null,
        points_a: sum("points_a"),
        points_b: first.b_id === null ? null : sum("points_b"),
        state: gs.every((g) => g.state === "done")
          ? "done"
          : gs.some((g) => g.state === "playing")
            ? "playing"
            : "waiting",
        games:
          first.b_id === null
            ? []
            : gs.map((g) => ({
                game: g.game,
                state: g.state,
                map: g.map,
                match_id: g.match_id,
                points_a: g.points_a,
                points_b: g.points_b,
                winner:
                  g.state !== "done" || g.points_a === g.points_b
                    ? null
                    : nameOf((g.points_a ?? 0) > (g.points_b ?? 0) ? g.a_id : g.b_id!),
                forfeit: g.forfeit,
                reason: g.reason,
                started: g.started,
                ended: g.ended,
                match_url: g.match_id ? `${publicUrl}/match/${g.match_id}` : null,
                replay_url: g.match_id ? `${publicUrl}/replays/${g.match_id}.jsonl.gz` : null,
              })),
      };
    });
    rounds.push({ round: r, pairings });
  }
  const checkinOpens = new Date(Date.parse(row.starts_at) - row.checkin_s * 1000).toISOString();
  return {
    id: row.id,
    name: row.name,
    ladder_id: row.ladder_id,
    format: row.format,
    state: row.state,
    rated: row.rated,
    round: row.round,
    round_count: row.rounds,
    games_per_pairing: row.games_per_pairing,
    starts_at: row.starts_at,
    checkin_opens_at: checkinOpens,
    forfeit_after_s: row.forfeit_after_s,
    note: row.note,
    created: row.created,
    started: row.started,
    ended: row.ended,
    entrants: (row.state === "scheduled" ? entrants : seeded).map((e) => ({
      bot: e.bot_name,
      seed: e.seed,
      checked_in: e.checked_in,
    })),
    scoring:
      "a game: win 1, draw 1/2 (a voided match too), loss 0 (a forfeit too); a Swiss bye: a won pairing",
    tie_breaks: [...TIE_BREAKS],
    final: row.standings !== null,
    standings: table.map(({ player, rank, ...s }) => ({ rank, bot: player, ...s })),
    rounds,
    url: `${publicUrl}/tournaments/${row.id}`,
  };
}
