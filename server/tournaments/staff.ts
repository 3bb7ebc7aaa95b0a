// Staff's tournament actions (issue 34, part 3): scheduling a tournament (its settings checked: a known ladder, a
// start, rounds for a Swiss one and none for a round-robin) and cancelling one, each with its audit entry. A new
// tournament is looked at at once (its check-in may already be open); a cancelled one ends with the standings so
// far and its running games are let go.
import type { Caller } from "../accounts/accounts.ts";
import { errors } from "../errors.ts";
import type { TournamentCatalog, TournamentDeps } from "./catalog.ts";
import { newTournamentId, type TournamentFormat } from "./store.ts";

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

export class TournamentStaff {
  constructor(
    private readonly c: TournamentCatalog,
    private readonly d: TournamentDeps,
    /** Check-in, starts and games looked at now (service.ts's sweep). */
    private readonly sweep: (now: number) => void,
  ) {}

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
      await this.c.rows.insert(u.q, row);
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
    const stored = (await this.c.rows.byId(row.id))!;
    this.c.active.set(row.id, { row: stored, bots: new Map(), seeds: [], games: [], since: new Map() });
    this.sweep(now);
    return this.c.get(row.id);
  }

  async cancel(caller: Caller, id: string, now = Date.now()) {
    const row = await this.c.rows.byId(id);
    if (!row) throw errors.noSuchTournament(id);
    const t = this.c.active.get(id);
    if (t) {
      this.c.end(t, "cancelled", `cancelled by ${caller.account.handle ?? caller.account.id}`, now);
      for (const [matchId, p] of this.c.playing) if (p.t === t) this.c.playing.delete(matchId);
      await this.c.settled();
      await this.d.work(async (u) => {
        await u.audit("tournament_cancel", caller.account.handle ?? caller.account.id, { id });
      });
    }
    return this.c.get(id);
  }
}
