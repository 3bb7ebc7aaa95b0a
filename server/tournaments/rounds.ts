// A tournament's check-in, start and rounds (issue 34, part 3): from `checkin_s` before the start every eligible
// connected bot is checked in (one tournament at a time: a bot the lobby hold already claims is not); at the start
// the checked-in bots still online enter, seeded in check-in order, or the tournament is cancelled with fewer
// than two; each round is paired (round-robin from its schedule, Swiss from the standings without a rematch, by
// pairing.ts) into waiting games on the round's maps, and a bye where one is due. The games themselves are
// games.ts's.
import { MAP_NAMES } from "../../engine/rules.ts";
import type { Active, TournamentCatalog, TournamentDeps } from "./catalog.ts";
import { roundRobin, swissRound } from "./pairing.ts";
import type { GameRow } from "./store.ts";

const pairKeyOf = (a: string, b: string) => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

export class TournamentRounds {
  constructor(
    private readonly c: TournamentCatalog,
    private readonly d: TournamentDeps,
  ) {}

  checkIn(t: Active, now: number): void {
    for (const p of this.d.lobby.all()) {
      if (p.house || !p.conn || t.bots.has(p.bot.id) || p.bot.status !== "active") continue;
      // One tournament at a time: a bot checked in to (or playing) another one is not checked in here.
      if (this.c.claims(p)) continue;
      if ("code" in this.d.ladders.mayQueue(p.bot, t.row.ladder_id, now)) continue;
      t.bots.set(p.bot.id, { name: p.bot.name, at: now });
      const at = new Date(now).toISOString();
      const { id } = t.row;
      this.c.write(() => this.c.rows.checkIn(id, p.bot.id, p.bot.name, at));
    }
  }

  begin(t: Active, now: number): void {
    const entered = [...t.bots.entries()]
      .filter(([id]) => this.d.unrated.online(id))
      .sort((x, y) => x[1].at - y[1].at || (x[1].name < y[1].name ? -1 : 1))
      .map(([id]) => id);
    for (const id of [...t.bots.keys()]) if (!entered.includes(id)) t.bots.delete(id);
    if (entered.length < 2) {
      this.c.end(
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
    this.c.write(() => this.c.rows.started(id, entered, rounds!, at));
    this.nextRound(t, now);
  }

  nextRound(t: Active, now: number): void {
    const r = t.row.round + 1;
    if (r > (t.row.rounds ?? 0)) {
      this.c.end(t, "done", null, now);
      return;
    }
    let pairs: [string, string][];
    let bye: string | null;
    if (t.row.format === "round_robin") ({ pairs, bye } = roundRobin(t.seeds)[r - 1]!);
    else {
      const table = this.c.table(t);
      const met = new Set(t.games.filter((g) => g.b_id !== null).map((g) => pairKeyOf(g.a_id, g.b_id!)));
      const round = swissRound({
        ranked: table.map((s) => s.player),
        score: new Map(table.map((s) => [s.player, s.score])),
        byes: new Map(table.map((s) => [s.player, s.byes])),
        met,
      });
      if (round === null) {
        this.c.end(t, "done", `ended after round ${r - 1}: no pairing without a rematch was left`, now);
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
    this.c.write(() => this.c.rows.round(id, r, fresh));
    // A round of byes only (cannot happen with two or more entrants, but never stall).
    if (fresh.every((g) => g.state === "done")) this.nextRound(t, now);
  }
}
