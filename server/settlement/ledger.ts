// The settlements as this process knows them (issue 34, part 4): the ones that have not ended (by ladder, with
// their counts, running games and the versions known when they began), loaded from the database at start, and
// what is read of a ladder's settlement: its phase for the pages, its JSON view, its published standings, and the
// one write of those standings. The clock (clock.ts) and staff's changes (staff.ts) act on this state;
// service.ts puts them together.
import type { Logger } from "pino";
import type { BotDirectory } from "../bots/directory.ts";
import { errors } from "../errors.ts";
import type { Events } from "../events/service.ts";
import type { InsightServices } from "../insight/routes.ts";
import type { Settings } from "../kernel/settings.ts";
import type { Unit } from "../kernel/unit-of-work.ts";
import type { Ladders } from "../ladders/registry.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import type { LiveMatches } from "../play/live-matches.ts";
import type { LadderReads } from "../reads/reads.ts";
import { pairKey } from "./pairs.ts";
import type { SettlementGameRow, SettlementRow, SettlementStore, SnapshotRow, StandingRow } from "./store.ts";

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
export interface Open {
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

/** A ladder's settlement phase as its pages show it (null: it has none). */
export type SettlementPhase = {
  state: SettlementRow["state"];
  started: number;
  played: number;
  budget: number;
  starts_at: string;
  ends_at: string;
  top_k: number;
  /** The event whose window it ends, null for the ladder's own. */
  event_id: string | null;
} | null;

export class SettlementLedger {
  /** By ladder id. */
  readonly open = new Map<string, Open>();
  /** Per ladder without an open settlement: its latest published phase (null: none), as pages show it. */
  readonly finals = new Map<string, SettlementPhase>();

  constructor(protected readonly d: SettlementDeps) {}

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

  /** The phase of a ladder for its pages: null when it has no settlement. */
  async phase(ladderId: string): Promise<SettlementPhase> {
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
