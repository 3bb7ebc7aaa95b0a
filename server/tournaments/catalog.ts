// The tournaments at run time (issue 34, part 3): the ones not ended (scheduled or running) with their checked-in
// bots, seeds and games, loaded from the database at start; the running games by match id; the lobby hold's rule
// (an entrant waits for the tournament, not the matchmaker); the writes, kept in order on one chain; the end of a
// tournament with its final standings; and the reads (list, one tournament's view). What happens to a tournament
// is in the files beside this one: check-in, the start and each round's pairing (rounds.ts), its games with their
// results and forfeits (games.ts), staff's actions (staff.ts); service.ts puts them together.
import type { Logger } from "pino";
import { errors } from "../errors.ts";
import type { Settings } from "../kernel/settings.ts";
import type { Unit } from "../kernel/unit-of-work.ts";
import type { Ladders } from "../ladders/registry.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import type { LiveMatches } from "../play/live-matches.ts";
import type { UnratedMatches } from "../scrimmages/unrated.ts";
import type { Store } from "../store/types.ts";
import { standings } from "./pairing.ts";
import { type GameRow, type TournamentRow, TournamentStore } from "./store.ts";
import { scored, tournamentView } from "./views.ts";

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

/** A tournament not ended, as this process keeps it. */
export interface Active {
  row: TournamentRow;
  /** Checked-in bots (before the start) or entrants (after), by id: name and check-in time. */
  bots: Map<string, { name: string; at: number }>;
  /** Entrants in seed order, once started. */
  seeds: string[];
  games: GameRow[];
  /** When each waiting game could first start (its round began, or the pairing's previous game ended). */
  since: Map<GameRow, number>;
}

export class TournamentCatalog {
  readonly rows: TournamentStore;
  /** By tournament id. */
  readonly active = new Map<string, Active>();
  /** Running games by match id. */
  readonly playing = new Map<string, { t: Active; g: GameRow; goneSince: number | null }>();
  private writes: Promise<void> = Promise.resolve();

  constructor(protected readonly d: TournamentDeps) {
    this.rows = new TournamentStore(d.store.db);
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

  /** Queues a write after the ones begun before it (a failure is logged; the chain goes on). */
  write(fn: () => Promise<void>): void {
    this.writes = this.writes
      .then(fn)
      .catch((err: unknown) => this.d.log.error({ err }, "a tournament write failed"));
  }

  /** Resolves once every write begun so far is done. */
  settled(): Promise<void> {
    return this.writes;
  }

  /** The lobby hold: a bot checked in to a tournament, or an entrant of a running one, waits for it. */
  claims(p: Participant): boolean {
    for (const t of this.active.values()) {
      if (t.row.state === "running" ? t.seeds.includes(p.bot.id) : t.bots.has(p.bot.id)) return true;
    }
    return false;
  }

  name(t: Active, botId: string): string {
    return t.bots.get(botId)?.name ?? botId;
  }

  /** The standings from the games so far (names are resolved by the views). */
  table(t: Active) {
    const { games, byes } = scored(t.games);
    return standings(t.seeds, games, byes);
  }

  end(t: Active, state: "done" | "cancelled", note: string | null, now: number): void {
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
