// Batch tests (issue 34, part 2): N unrated games of an owner's bot (at one version, or any) against a list of
// opponents in turn, spread over the maps unless one is named; created and cancelled by the owner with their audit
// entries, and read as JSON (public by its unguessable id) with its progress, its games, a summary by opponent and
// by map with Wilson intervals (summary.ts), and what its next game waits for. The games start through games.ts.
import type { Caller } from "../accounts/accounts.ts";
import { errors } from "../errors.ts";
import type { BotRow } from "../store/types.ts";
import type { ScrimmageCatalog, ScrimmageDeps } from "./catalog.ts";
import type { ScrimmageGames } from "./games.ts";
import { type BatchRow, newBatchId, type ScrimmageRow } from "./store.ts";
import { type Tally, tally, tallyBy } from "./summary.ts";

export const MAX_BATCH_GAMES = 100;
export const MAX_BATCH_OPPONENTS = 10;

export class BatchTests {
  constructor(
    private readonly c: ScrimmageCatalog,
    private readonly d: ScrimmageDeps,
    private readonly games: ScrimmageGames,
  ) {}

  async createBatch(
    caller: Caller,
    name: string,
    body: { opponents: string[]; games: number; version?: string | undefined; map?: string | undefined },
  ) {
    const bot = await this.c.ownBot(caller, name);
    if (bot.status !== "active") throw errors.botModerated(bot.status);
    const names = [...new Set(body.opponents)];
    const opponents: BotRow[] = [];
    for (const n of names) opponents.push(await this.c.opponent(caller, bot, n));
    const map = this.c.checkMap(body.map);
    if (body.version !== undefined && !(await this.d.botStore.version(bot.id, body.version)))
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
      await this.c.rows.insertBatch(u.q, row);
      await u.audit("batch_test", caller.account.handle ?? caller.account.id, {
        id: row.id,
        bot: bot.name,
        games: row.games,
        opponents: opponents.map((o) => o.name),
      });
    });
    const stored = (await this.c.rows.batch(row.id))!;
    this.c.batches.set(row.id, { row: stored, started: 0, playing: null });
    this.games.tryStart();
    return this.batch(row.id);
  }

  async cancelBatch(caller: Caller, id: string) {
    const b = await this.c.rows.batch(id);
    if (!b || b.account_id !== caller.account.id) throw errors.noSuchBatch(id);
    this.c.batches.delete(id);
    await this.d.work(async (u) => {
      if (await this.c.rows.endBatch(u.q, id, "cancelled"))
        await u.audit("batch_test_cancel", caller.account.handle ?? caller.account.id, { id });
    });
    return this.batch(id);
  }

  /** A batch as JSON (public by its unguessable id, like the matches it lists): progress, games, summary. */
  async batch(id: string) {
    await this.c.settled();
    const b = await this.c.rows.batch(id);
    if (!b) throw errors.noSuchBatch(id);
    const games = await this.c.rows.batchGames(id);
    const bot = await this.d.botStore.botById(b.bot_id);
    const names = new Map<string, string>();
    for (const o of b.opponents) names.set(o, (await this.d.botStore.botById(o))?.name ?? o);
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
      results: games.map((g) => this.c.view(g)),
      url: `${this.d.publicUrl}/batch/${b.id}`,
    };
  }

  /** Why a running batch's next game has not started, in words for its page. */
  private waitingFor(row: BatchRow): string | null {
    const b = this.c.batches.get(row.id);
    if (!b || b.playing !== null) return null;
    if (!this.d.unrated.online(row.bot_id)) return "its bot to connect";
    if (!this.d.unrated.ready(row.bot_id))
      return row.version ? `its bot to queue with version ${row.version}` : "its bot to queue";
    if (!this.d.unrated.online(this.c.nextOpponent(b))) return "the next opponent to connect";
    return "the next opponent to queue, a free place or the owner's limits";
  }
}
