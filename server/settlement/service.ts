// The settlement phase of a ladder (issue 34, part 4). Staff schedule one per ladder (top K, a game budget, a
// start and an end); from its start:
//
// - the top K of the leaderboard are taken, each at the version it is ranked with: those versions are frozen.
//   Only they play rated games on the ladder until the settlement ends. New versions are refused: a queue on
//   the settling ladder with another version of a top-K bot, or with a version label any other bot did not
//   have when the settlement began, is answered `settlement_frozen` (a queue error: the socket stays open, the
//   bot is not queued; the ladders' admission rule, `admits`). A bot outside the top K queueing with a version
//   it had is admitted and waits: it plays once the settlement has ended, if the window is still open;
// - the ordinary matchmaker pairs nobody on that ladder: the settlement holds every player bot queued there
//   (`Lobby.hold`, the hook scrimmages use), so the matchmaker's queue is empty and event opponent requests wait
//   too. No core file changes for this;
// - extra rated games are started among the top K only: between rank neighbours (consecutive in the current
//   leaderboard order of the K), the pair whose 95 % rank intervals (server/insight/board.ts) share the most
//   ranks first, then the pair that has played fewest settlement games, then the higher ranked; each bot
//   plays one settlement game at a time; at most `game_budget` are started.
//
// A settlement may end an event's window instead of the ladder's (`event`: an event on the ladder): its end
// defaults to the event's closing and may not follow it, and it ends when that event closes too. Before it
// begins, staff may change it (`edit`) or cancel it (`cancel`); once begun it runs to its end.
//
// It ends when its budget is started and those games have finished, or at `ends_at` (games running then are
// waited for), or when the ladder (or its event) closes. Then the standings (every ranked row with its rank interval and
// record) are written once to the database (store.ts: a second write is refused, a trigger refuses updates),
// the hold is released and the matchmaker pairs on the ladder again.
import { randomInt } from "node:crypto";
import type { Logger } from "pino";
import { MAP_NAMES } from "../../engine/rules.ts";
import type { BotDirectory } from "../bots/directory.ts";
import type { QueueRefusal } from "../connection/rules.ts";
import { errors } from "../errors.ts";
import type { Events } from "../events/service.ts";
import type { InsightServices } from "../insight/routes.ts";
import type { Settings } from "../kernel/settings.ts";
import type { Unit } from "../kernel/unit-of-work.ts";
import { phaseAt } from "../ladders/manifest.ts";
import type { Ladders } from "../ladders/registry.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import { smoothedForecast } from "../matchmaker/pairing.ts";
import type { LiveMatches } from "../play/live-matches.ts";
import { versionKey } from "../ratings/book.ts";
import type { LadderReads } from "../reads/reads.ts";
import type { PairingRecord } from "../store/pairing-record.ts";
import type { BotRow, MatchRecord } from "../store/types.ts";
import {
  type FrozenEntry,
  newSettlementId,
  type SettlementGameRow,
  type SettlementRow,
  type SettlementStore,
  type SnapshotRow,
  type StandingRow,
} from "./store.ts";

export const MAX_TOP_K = 50;
export const MAX_GAME_BUDGET = 1000;

export interface SettlementDeps {
  store: SettlementStore;
  ladders: Ladders;
  reads: Pick<LadderReads, "leaderboard">;
  insight: Pick<InsightServices, "board">;
  botDirectory: Pick<BotDirectory, "snapshot">;
  /** The events (a settlement may end an event's window). */
  events: Pick<Events, "find" | "window" | "all">;
  lobby: Lobby;
  live: LiveMatches;
  settings: Pick<Settings, "limits">;
  draining(): boolean;
  work<T>(fn: (u: Unit) => Promise<T>): Promise<T>;
  log: Logger;
  publicUrl: string;
}

/** What staff ask for (POST /api/admin/ladders/<id>/settlement). */
export interface SettlementRequest {
  top_k: number;
  game_budget: number;
  starts_at?: string | undefined;
  ends_at?: string | undefined;
  duration_s?: number | undefined;
  /** An event on the ladder whose window the settlement ends (null or absent: the ladder's own). */
  event?: string | null | undefined;
}

/** A settlement that has not ended, as this process keeps it. */
interface Open {
  row: SettlementRow;
  started: number;
  played: number;
  /** Settlement games running now: their two participants by match id. */
  running: Map<string, [Participant, Participant]>;
  /** Settlement games per pair (`a\tb`, names sorted), for the tie-break. */
  pairGames: Map<string, number>;
  /** While settling: each bot's version labels created before it began (the versions not new). */
  known: Map<string, Set<string>> | null;
}

const pairKey = (a: string, b: string) => (a < b ? `${a}\t${b}` : `${b}\t${a}`);
const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** How many ranks two 95 % rank intervals share (0 when either is unknown or they are disjoint). */
export function overlap(
  a: { low: number; high: number } | null,
  b: { low: number; high: number } | null,
): number {
  if (!a || !b) return 0;
  return Math.max(0, Math.min(a.high, b.high) - Math.max(a.low, b.low) + 1);
}

/**
 * The settlement's candidate pairs, best first: each two rank neighbours of `order` (the top K in the current
 * leaderboard order), the pair whose rank intervals share the most ranks first, then the pair with the fewest
 * settlement games together, then the higher ranked.
 */
export function neighbourPairs<R extends { name: string; rank: number }>(
  order: readonly R[],
  interval: (r: R) => { low: number; high: number } | null,
  gamesOf: (a: string, b: string) => number,
): { a: R; b: R; overlap: number; games: number }[] {
  return order
    .slice(1)
    .map((b, i) => {
      const a = order[i]!;
      return { a, b, overlap: overlap(interval(a), interval(b)), games: gamesOf(a.name, b.name) };
    })
    .sort((x, y) => y.overlap - x.overlap || x.games - y.games || x.a.rank - y.a.rank);
}

/** What the audit log records of a settlement's schedule, when it is made and when it is changed. */
function scheduleAudit(by: { id: string; handle: string | null }, row: SettlementRow) {
  const { id, event_id: event, top_k, game_budget, starts_at, ends_at } = row;
  return { by: by.handle ?? by.id, id, event, top_k, game_budget, starts_at, ends_at };
}

export class SettlementService {
  /** By ladder id. */
  private readonly open = new Map<string, Open>();
  /** Per ladder without an open settlement: its latest published phase (null: none), as pages show it. */
  private readonly finals = new Map<string, Awaited<ReturnType<SettlementService["phase"]>>>();
  private ticking: Promise<void> | null = null;
  private again = false;

  constructor(private readonly d: SettlementDeps) {}

  async load(): Promise<void> {
    for (const row of await this.d.store.open()) {
      const games = await this.d.store.games(row.id);
      const pairGames = new Map<string, number>();
      for (const g of games) pairGames.set(pairKey(...g.bots), (pairGames.get(pairKey(...g.bots)) ?? 0) + 1);
      // A game that was running when the server stopped left no result: it counts as started, not played.
      this.open.set(row.ladder_id, {
        row,
        started: games.length,
        played: games.filter((g) => g.ended !== null).length,
        running: new Map(),
        pairGames,
        known:
          row.state === "settling" ? await this.d.store.versionsBefore(row.began_at ?? row.starts_at) : null,
      });
    }
  }

  /**
   * The ladders' admission rule (server/ladders/registry.ts `admitWith`): on a settling ladder a new version is
   * refused with `settlement_frozen`: another version of a top-K bot, or a label another bot did not have when
   * the settlement began. Everything else is left to the other rules (and, for the bots outside the top K, to
   * the hold: they wait for the end).
   */
  admits(bot: BotRow, ladderId: string, version: string | undefined): QueueRefusal | null {
    const o = this.open.get(ladderId);
    if (o?.row.state !== "settling" || version === undefined || bot.house) return null;
    const until = `until the settlement ends (by ${o.row.ends_at})`;
    const top = o.row.frozen?.find((f) => f.bot_id === bot.id);
    if (top)
      return top.version === version
        ? null
        : {
            code: "settlement_frozen",
            message: `the ladder ${ladderId} is settling: ${bot.name} is one of its top ${o.row.top_k} and plays at its frozen version ${JSON.stringify(top.version)} ${until}; queue that version, or ${JSON.stringify(version)} after the end`,
          };
    if (o.known && !o.known.get(bot.id)?.has(version))
      return {
        code: "settlement_frozen",
        message: `the ladder ${ladderId} is settling: versions are frozen ${until}, and ${JSON.stringify(version)} is new since it began; queue a version ${bot.name} had before, or this one after the end`,
      };
    return null;
  }

  /** The lobby hold: every player bot queued on a settling ladder waits for the settlement, not the matchmaker. */
  claims(p: Participant): boolean {
    return this.open.get(p.ladderId)?.row.state === "settling";
  }

  /** The phase of a ladder for its pages: null when it has no settlement. */
  async phase(ladderId: string): Promise<{
    state: SettlementRow["state"];
    started: number;
    played: number;
    budget: number;
    starts_at: string;
    ends_at: string;
    top_k: number;
    /** The event whose window it ends, null for the ladder's own. */
    event_id: string | null;
  } | null> {
    const o = this.open.get(ladderId);
    if (o)
      return {
        state: o.row.state,
        started: o.started,
        played: o.played,
        budget: o.row.game_budget,
        starts_at: o.row.starts_at,
        ends_at: o.row.ends_at,
        top_k: o.row.top_k,
        event_id: o.row.event_id,
      };
    // Published standings never change, so what a ladder's latest ones say is kept (pages ask on every view);
    // a publication replaces it.
    const known = this.finals.get(ladderId);
    if (known !== undefined) return known;
    const last = await this.d.store.latestFinal(ladderId);
    const snap = last && (await this.d.store.snapshot(last.id));
    const phase =
      last && snap
        ? {
            state: "final" as const,
            started: snap.games_played,
            played: snap.games_played,
            budget: last.game_budget,
            starts_at: last.starts_at,
            ends_at: last.ends_at,
            top_k: last.top_k,
            event_id: last.event_id,
          }
        : null;
    if (!this.open.has(ladderId)) this.finals.set(ladderId, phase);
    return phase;
  }

  // --- Staff -----------------------------------------------------------------------------------------------

  async create(
    by: { id: string; handle: string | null },
    ladderId: string,
    req: SettlementRequest,
    now = Date.now(),
  ) {
    const ladder = this.d.ladders.require(ladderId);
    if (phaseAt(ladder.def, now) === "closed") throw errors.ladderClosed(ladder.id);
    const existing = this.open.get(ladder.id);
    if (existing) throw errors.settlementExists(ladder.id, existing.row.id);
    const { startsAt, endsAt, eventId } = this.plan(ladder.id, req, now);
    const row: SettlementRow = {
      id: newSettlementId(),
      ladder_id: ladder.id,
      event_id: eventId,
      top_k: req.top_k,
      game_budget: req.game_budget,
      starts_at: new Date(startsAt).toISOString(),
      ends_at: new Date(endsAt).toISOString(),
      state: "scheduled",
      frozen: null,
      created_by: by.id,
      created: new Date(now).toISOString(),
      began_at: null,
      ended_at: null,
    };
    await this.d.work(async (u) => {
      await this.d.store.insert(u.q, row);
      await u.audit("settlement_scheduled", ladder.id, scheduleAudit(by, row));
    });
    this.open.set(ladder.id, {
      row,
      started: 0,
      played: 0,
      running: new Map(),
      pairGames: new Map(),
      known: null,
    });
    await this.tick(now);
    return this.view(ladder.id);
  }

  /**
   * When a settlement asked for starts and ends, and the event it ends: within the ladder's window, and within
   * the event's when it names one (an event of this ladder that has not closed). The end defaults to the
   * event's closing, else the ladder's; a ladder (or event) that never closes needs ends_at or duration_s.
   */
  private plan(
    ladderId: string,
    req: Omit<SettlementRequest, "top_k" | "game_budget">,
    now: number,
  ): { startsAt: number; endsAt: number; eventId: string | null } {
    const def = this.d.ladders.require(ladderId).def;
    if (req.ends_at !== undefined && req.duration_s !== undefined)
      throw errors.invalidSettlement("give ends_at or duration_s, not both");
    let eventId: string | null = null;
    let window: { opens_at: string | null; closes_at: string | null } = def;
    let of = "the ladder's";
    if (req.event !== undefined && req.event !== null) {
      const e = this.d.events.find(req.event);
      if (!e || e.def.ladder_id !== ladderId)
        throw errors.invalidSettlement(`the ladder ${ladderId} has no event ${JSON.stringify(req.event)}`);
      window = this.d.events.window(e);
      if (phaseAt(window, now) === "closed")
        throw errors.invalidSettlement(`the event ${e.def.id} has closed (${window.closes_at})`);
      eventId = e.def.id;
      of = `the event's`;
    }
    const startsAt = Math.max(now, req.starts_at ? Date.parse(req.starts_at) : now);
    for (const w of [def, window])
      if (w.opens_at && startsAt < Date.parse(w.opens_at))
        throw errors.invalidSettlement(
          `starts_at must not precede ${w === def ? "the ladder's" : of} opening (${w.opens_at})`,
        );
    const endsAt =
      req.ends_at !== undefined
        ? Date.parse(req.ends_at)
        : req.duration_s !== undefined
          ? startsAt + req.duration_s * 1000
          : window.closes_at
            ? Date.parse(window.closes_at)
            : null;
    if (endsAt === null)
      throw errors.invalidSettlement(
        `${eventId ? "this event" : "this ladder"} never closes: give ends_at or duration_s`,
      );
    if (endsAt <= startsAt) throw errors.invalidSettlement("the settlement must end after it starts");
    for (const w of [def, window])
      if (w.closes_at && endsAt > Date.parse(w.closes_at))
        throw errors.invalidSettlement(
          `ends_at must not follow ${w === def ? "the ladder's" : of} closing (${w.closes_at})`,
        );
    return { startsAt, endsAt, eventId };
  }

  /**
   * Changes a ladder's settlement before it begins: the request replaces its schedule, read and checked as a
   * new one is (its id stays). One that has begun runs as it is (409 settlement_started). Audited with the unit.
   */
  async edit(
    by: { id: string; handle: string | null },
    ladderId: string,
    req: SettlementRequest,
    now = Date.now(),
  ) {
    const ladder = this.d.ladders.require(ladderId);
    await this.ticking;
    const o = this.open.get(ladder.id);
    if (!o) throw errors.noSettlement(ladder.id);
    if (o.row.state !== "scheduled") throw errors.settlementStarted(ladder.id, o.row.id);
    const { startsAt, endsAt, eventId } = this.plan(ladder.id, req, now);
    const row: SettlementRow = {
      ...o.row,
      event_id: eventId,
      top_k: req.top_k,
      game_budget: req.game_budget,
      starts_at: new Date(startsAt).toISOString(),
      ends_at: new Date(endsAt).toISOString(),
    };
    const changed = await this.d.work(async (u) => {
      if (!(await this.d.store.edit(u.q, row))) return false;
      await u.audit("settlement_edited", ladder.id, scheduleAudit(by, row));
      return true;
    });
    if (!changed) throw errors.settlementStarted(ladder.id, o.row.id);
    // The clock may have begun it meanwhile only through the database, which refused the change then.
    if (o.row.state === "scheduled") o.row = row;
    this.finals.delete(ladder.id);
    await this.tick(now);
    return this.view(ladder.id);
  }

  /**
   * Cancels a ladder's settlement before it begins (nothing was frozen or played); one that has begun runs to its
   * end (409 settlement_started), so its games and its standings stay one story. Audited with the unit.
   */
  async cancel(by: { id: string; handle: string | null }, ladderId: string) {
    const ladder = this.d.ladders.require(ladderId);
    await this.ticking;
    const o = this.open.get(ladder.id);
    if (!o) throw errors.noSettlement(ladder.id);
    if (o.row.state !== "scheduled") throw errors.settlementStarted(ladder.id, o.row.id);
    // Out of the clock's sight first, so no pass begins it while it is being deleted.
    this.open.delete(ladder.id);
    const gone = await this.d
      .work(async (u) => {
        if (!(await this.d.store.cancel(u.q, o.row.id))) return false;
        await u.audit("settlement_cancelled", ladder.id, { by: by.handle ?? by.id, id: o.row.id });
        return true;
      })
      .catch((err: unknown) => {
        this.open.set(ladder.id, o);
        throw err;
      });
    if (!gone) {
      this.open.set(ladder.id, o);
      throw errors.settlementStarted(ladder.id, o.row.id);
    }
    this.finals.delete(ladder.id);
    return { cancelled: o.row.id, ladder_id: ladder.id };
  }

  // --- The clock and the results ---------------------------------------------------------------------------

  /** The job: begins what is due, schedules games, ends what is over. One pass at a time. */
  tick(now = Date.now()): Promise<void> {
    if (this.ticking) {
      this.again = true;
      return this.ticking;
    }
    this.ticking = (async () => {
      try {
        do {
          this.again = false;
          for (const o of [...this.open.values()]) await this.step(o, now);
          now = Date.now();
        } while (this.again);
      } catch (err) {
        this.d.log.error({ err }, "settlement pass failed");
      }
    })().finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  /** A bot queued while a settlement holds it: look for a game now. */
  queued(): void {
    void this.tick();
  }

  async finished(m: MatchRecord): Promise<void> {
    const o = this.open.get(m.ladder_id);
    if (!o?.running.has(m.id)) return;
    o.running.delete(m.id);
    o.played++;
    await this.d.store.gameEnded(m.id, m.voided, m.ended ?? new Date().toISOString());
    await this.tick();
  }

  private async step(o: Open, now: number): Promise<void> {
    const ladder = this.d.ladders.get(o.row.ladder_id);
    if (!ladder) return;
    if (o.row.state === "scheduled") {
      if (now < Date.parse(o.row.starts_at)) return;
      await this.begin(o, now);
    }
    const event = o.row.event_id === null ? undefined : this.d.events.find(o.row.event_id);
    const closed =
      phaseAt(ladder.def, now) === "closed" ||
      (event !== undefined && phaseAt(this.d.events.window(event), now) === "closed");
    const over = closed || now >= Date.parse(o.row.ends_at) || o.started >= o.row.game_budget;
    // Games still running are waited for: their results belong to the settlement (a running match ends within
    // its budget, or is abandoned by a stop, which a restart does not wait for: load() starts with none running).
    if (over) {
      if (o.running.size === 0) await this.finish(o, now);
      return;
    }
    await this.schedule(o);
  }

  private async begin(o: Open, now: number): Promise<void> {
    const rows = await this.d.reads.leaderboard(o.row.ladder_id);
    const dir = await this.d.botDirectory.snapshot();
    const idOf = new Map(dir.bots.map((b) => [b.name, b.id]));
    const frozen: FrozenEntry[] = rows.slice(0, o.row.top_k).map((r) => ({
      rank: r.rank,
      bot_id: idOf.get(r.name) ?? r.name,
      name: r.name,
      version: r.version,
      rating: r.rating,
    }));
    const at = new Date(now).toISOString();
    await this.d.store.begin(o.row.id, frozen, at);
    o.known = await this.d.store.versionsBefore(at);
    o.row = { ...o.row, state: "settling", frozen, began_at: at };
    this.d.log.info(
      { ladder: o.row.ladder_id, settlement: o.row.id, top: frozen.length },
      "settlement began",
    );
  }

  /** A frozen bot that may start a settlement game now, at its frozen version. */
  private ready(f: FrozenEntry, ladderId: string): Participant | null {
    const p = this.d.lobby.get(f.bot_id);
    if (!p) return null;
    if (p.house) return p.version === f.version ? p : null;
    if (!p.conn || p.state !== "waiting" || p.ladderId !== ladderId || p.version !== f.version) return null;
    return this.d.live.ofBot(f.bot_id) ? null : p;
  }

  private room(ladderId: string): boolean {
    if (this.d.draining()) return false;
    const server = this.d.settings.limits().maxConcurrentMatches;
    const ladder = this.d.settings.limits(ladderId).maxConcurrentMatches;
    return this.d.live.size < server && this.d.live.running(ladderId) < ladder;
  }

  private async schedule(o: Open): Promise<void> {
    const frozen = o.row.frozen ?? [];
    if (frozen.length < 2) return;
    const ladderId = o.row.ladder_id;
    const board = await this.d.insight.board.intervals(ladderId);
    const byName = new Map(frozen.map((f) => [f.name, f]));
    // The K in the leaderboard's current order (only their frozen versions play rated games here now).
    const order = board.rows.filter((r) => byName.get(r.name)?.version === r.version);
    const pairs = neighbourPairs(
      order,
      (r) => board.of(r),
      (a, b) => o.pairGames.get(pairKey(a, b)) ?? 0,
    );
    const busy = new Set<string>();
    for (const pair of pairs) {
      if (o.started >= o.row.game_budget || !this.room(ladderId)) return;
      if (busy.has(pair.a.name) || busy.has(pair.b.name)) continue;
      const fa = byName.get(pair.a.name)!;
      const fb = byName.get(pair.b.name)!;
      // A house bot may play several matches at once, but one settlement game at a time, like the others.
      const playing = (f: FrozenEntry) =>
        [...o.running.values()].some((ps) => ps.some((p) => p.bot.id === f.bot_id));
      if (playing(fa) || playing(fb)) continue;
      const pa = this.ready(fa, ladderId);
      const pb = this.ready(fb, ladderId);
      if (!pa || !pb) continue;
      busy.add(fa.name).add(fb.name);
      await this.start(o, pa, pb, fa, fb, pair.overlap);
    }
  }

  private async start(
    o: Open,
    a: Participant,
    b: Participant,
    fa: FrozenEntry,
    fb: FrozenEntry,
    span: number,
  ): Promise<void> {
    const ladder = this.d.ladders.require(o.row.ladder_id);
    const [ka, kb] = [versionKey(fa.bot_id, fa.version), versionKey(fb.bot_id, fb.version)];
    const facts = ladder.ratings.facts(ka, kb);
    const fewest = Math.min(...MAP_NAMES.map((m) => facts.mapGames.get(m) ?? 0));
    const least = MAP_NAMES.filter((m) => (facts.mapGames.get(m) ?? 0) === fewest);
    const seed = randomInt(2 ** 31);
    const map = least[seed % least.length]!;
    const swapped = seed % 2 === 1;
    const seats: [Participant, Participant] = swapped ? [b, a] : [a, b];
    const [ra, rb] = [ladder.ratings.ratingOf(ka), ladder.ratings.ratingOf(kb)];
    const forecast = smoothedForecast({ rating: ra }, { rating: rb }, facts);
    const now = Date.now();
    const wait = (p: Participant) => (p.house ? 0 : Math.max(0, Math.round(now - p.queuedAt)));
    const pairing: PairingRecord = {
      reason: "settlement",
      weight: null,
      parts: { overlap: span },
      forecast: round4(swapped ? 1 - forecast : forecast),
      pair_games: facts.games,
      rating_gap: Math.round(Math.abs(ra - rb)),
      window: null,
      waits_ms: [wait(seats[0]), wait(seats[1])],
      requested_by: null,
      map: { reason: "least_played", games: fewest, choices: least.length },
    };
    const m = this.d.live.start({ seats, map, seed, pairing }, ladder.id, "ranked");
    o.started++;
    o.running.set(m.id, [a, b]);
    const key = pairKey(fa.name, fb.name);
    o.pairGames.set(key, (o.pairGames.get(key) ?? 0) + 1);
    await this.d.store.gameStarted(o.row.id, m.id, [fa.name, fb.name], span);
  }

  private async finish(o: Open, now: number): Promise<void> {
    const ladderId = o.row.ladder_id;
    const board = await this.d.insight.board.intervals(ladderId);
    const settled = new Set((o.row.frozen ?? []).map((f) => f.name));
    const standings: StandingRow[] = board.rows.map((r) => {
      const i = board.of(r);
      return {
        rank: r.rank,
        name: r.name,
        display_name: r.display_name,
        version: r.version,
        rating: r.rating,
        rating_deviation: r.rating_deviation,
        rank_low: i?.low ?? null,
        rank_high: i?.high ?? null,
        games: r.wins + r.losses + r.draws,
        wins: r.wins,
        losses: r.losses,
        draws: r.draws,
        settled: settled.has(r.name),
      };
    });
    const at = new Date(now).toISOString();
    await this.publish(o.row, o.played, standings, at);
    this.open.delete(ladderId);
    this.finals.delete(ladderId);
    this.d.log.info({ ladder: ladderId, settlement: o.row.id, played: o.played }, "settlement final");
    // The matchmaker pairs on the ladder again (while its window is open).
    this.d.ladders.poke();
  }

  /**
   * Writes the final standings once, with their audit entry. A second publication of the same settlement is
   * refused (`settlement_final`): the database's primary key says so, whatever this process believes.
   */
  async publish(row: SettlementRow, played: number, standings: StandingRow[], at: string): Promise<void> {
    try {
      await this.d.work(async (u) => {
        await this.d.store.publish(u.q, row, played, standings, at);
        await u.audit("settlement_final", row.ladder_id, { id: row.id, games_played: played });
      });
    } catch (err) {
      if ((err as { code?: string }).code === "23505") throw errors.settlementFinal(row.id);
      throw err;
    }
  }

  // --- Reads -----------------------------------------------------------------------------------------------

  private finalUrl(ladderId: string): string {
    return `${this.d.publicUrl}/ladders/${encodeURIComponent(ladderId)}/final`;
  }

  /** GET /api/ladders/<id>/settlement: the ladder's settlement that has not ended, else its latest. */
  async view(ladderId: string) {
    const ladder = this.d.ladders.require(ladderId);
    const o = this.open.get(ladder.id);
    const row = o?.row ?? (await this.d.store.latest(ladder.id));
    if (!row) throw errors.noSettlement(ladder.id);
    const games = await this.d.store.games(row.id);
    const played = games.filter((g) => g.ended !== null).length;
    const base = this.d.publicUrl;
    return {
      id: row.id,
      ladder_id: row.ladder_id,
      event_id: row.event_id,
      state: row.state,
      top_k: row.top_k,
      game_budget: row.game_budget,
      starts_at: row.starts_at,
      ends_at: row.ends_at,
      began_at: row.began_at,
      ended_at: row.ended_at,
      frozen: row.frozen?.map(({ rank, name, version, rating }) => ({ rank, name, version, rating })) ?? null,
      games_started: games.length,
      games_played: played,
      games: games.map((g: SettlementGameRow) => ({
        match_id: g.match_id,
        bots: g.bots,
        overlap: g.overlap,
        started: g.started,
        ended: g.ended,
        voided: g.voided,
        match_url: `${base}/api/matches/${encodeURIComponent(g.match_id)}`,
      })),
      final_url: row.state === "final" ? this.finalUrl(row.ladder_id) : null,
      final_json_url:
        row.state === "final"
          ? `${base}/api/ladders/${encodeURIComponent(row.ladder_id)}/settlement/final`
          : null,
    };
  }

  /** GET /api/ladders/<id>/settlement/final: the latest published standings, exactly as written. */
  async final(
    ladderId: string,
  ): Promise<
    SnapshotRow & { event_id: string | null; starts_at: string; ends_at: string; game_budget: number }
  > {
    const ladder = this.d.ladders.require(ladderId);
    const row = await this.d.store.latestFinal(ladder.id);
    const snap = row && (await this.d.store.snapshot(row.id));
    if (!row || !snap) throw errors.noFinalStandings(ladder.id);
    return {
      ...snap,
      event_id: row.event_id,
      starts_at: row.starts_at,
      ends_at: row.ends_at,
      game_budget: row.game_budget,
    };
  }
}
