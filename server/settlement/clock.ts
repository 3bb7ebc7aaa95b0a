// The settlement's clock and its games (issue 34, part 4): one pass at a time (the job, each queue on a held
// ladder and each result ask for one) begins what is due, freezing the top K at their ranked versions; starts
// the extra rated games among them (rank neighbours, pairs.ts, each bot one settlement game at a time, within
// the budget and the server's and ladder's match limits); and ends what is over, publishing the standings with
// their rank intervals through the ledger (ledger.ts) and letting the matchmaker pair on the ladder again.
import { randomInt } from "node:crypto";
import { MAP_NAMES } from "../../engine/rules.ts";
import { phaseAt } from "../ladders/manifest.ts";
import type { Participant } from "../lobby/lobby.ts";
import { smoothedForecast } from "../matchmaker/pairing.ts";
import { versionKey } from "../ratings/book.ts";
import type { PairingRecord } from "../store/pairing-record.ts";
import type { MatchRecord } from "../store/types.ts";
import type { Open, SettlementDeps, SettlementLedger } from "./ledger.ts";
import { neighbourPairs, pairKey } from "./pairs.ts";
import type { FrozenEntry, StandingRow } from "./store.ts";

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

export class SettlementClock {
  private ticking: Promise<void> | null = null;
  private again = false;

  constructor(
    private readonly l: SettlementLedger,
    private readonly d: SettlementDeps,
  ) {}

  /** The pass running now (null: none), for staff's changes to wait for. */
  get pass(): Promise<void> | null {
    return this.ticking;
  }

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
          for (const o of [...this.l.open.values()]) await this.step(o, now);
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
    const o = this.l.open.get(m.ladder_id);
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
    await this.l.publish(o.row, o.played, standings, at);
    this.l.open.delete(ladderId);
    this.l.finals.delete(ladderId);
    this.d.log.info({ ladder: ladderId, settlement: o.row.id, played: o.played }, "settlement final");
    // The matchmaker pairs on the ladder again (while its window is open).
    this.d.ladders.poke();
  }
}
