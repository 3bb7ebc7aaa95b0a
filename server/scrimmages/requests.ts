// Lone scrimmage requests (issue 34, part 1): an owner asks for one unrated game between their bot and an
// opponent (a house bot, their own, or another owner's that opted in), within the owner's limits (at once and per
// hour, from the live settings); the requester cancels or the opponent's owner declines a waiting one; an owner
// opts a bot in or out of other owners' requests; and the bot's list (its opt-in, the limits, its recent
// scrimmages and batches). Each change is one unit of work with its audit entry; the game starts through
// games.ts.
import { MAP_NAMES } from "../../engine/rules.ts";
import type { Caller } from "../accounts/accounts.ts";
import { errors } from "../errors.ts";
import type { ScrimmageCatalog, ScrimmageDeps } from "./catalog.ts";
import type { ScrimmageGames } from "./games.ts";
import { newScrimmageId } from "./store.ts";

export class ScrimmageRequests {
  constructor(
    private readonly c: ScrimmageCatalog,
    private readonly d: ScrimmageDeps,
    private readonly games: ScrimmageGames,
  ) {}

  async request(caller: Caller, name: string, opponentName: string, map?: string, now = Date.now()) {
    const bot = await this.c.ownBot(caller, name);
    if (bot.status !== "active") throw errors.botModerated(bot.status);
    const o = await this.c.opponent(caller, bot, opponentName);
    const chosen = this.c.checkMap(map);
    if (!this.d.unrated.online(o.id)) throw errors.opponentOffline(o.name);
    const limits = this.d.settings.limits();
    const account = caller.account.id;
    const waiting = this.c.pending.filter((s) => s.accountId === account).length;
    if (this.c.runningFor(account) + waiting >= limits.scrimmagesAtOncePerOwner)
      throw errors.quotaExceeded(
        `at most ${limits.scrimmagesAtOncePerOwner} scrimmages at once per owner (waiting or playing); cancel one or wait (scrimmagesAtOncePerOwner)`,
      );
    if (this.c.hourCount(account, now) + waiting >= limits.scrimmagesPerHourPerOwner)
      throw errors.quotaExceeded(
        `at most ${limits.scrimmagesPerHourPerOwner} scrimmages per hour per owner (scrimmagesPerHourPerOwner)`,
      );
    const id = newScrimmageId();
    await this.d.work(async (u) => {
      await this.c.rows.insert(u.q, {
        id,
        accountId: account,
        botId: bot.id,
        opponentId: o.id,
        batchId: null,
        map: chosen,
        state: "pending",
      });
      await u.audit("scrimmage_request", caller.account.handle ?? account, {
        id,
        bot: bot.name,
        opponent: o.name,
        map: chosen,
      });
    });
    this.c.pending.push({
      id,
      accountId: account,
      botId: bot.id,
      opponentId: o.id,
      map: chosen,
      created: now,
    });
    this.games.tryStart(now);
    await this.c.settled();
    return this.c.view((await this.c.rows.byId(id))!);
  }

  /**
   * Cancels one pending scrimmage of this bot (`id`), or all of them: the requester cancels, the opponent's
   * owner declines. A game already playing is played out.
   */
  async cancel(caller: Caller, name: string, id?: string) {
    const bot = await this.c.ownBot(caller, name);
    const mine = this.c.pending.filter(
      (s) => (s.botId === bot.id || s.opponentId === bot.id) && (id === undefined || s.id === id),
    );
    if (id !== undefined && mine.length === 0) throw errors.noSuchScrimmage(id);
    for (const s of mine) {
      this.c.pending.splice(this.c.pending.indexOf(s), 1);
      const declined = s.accountId !== caller.account.id;
      await this.d.work(async (u) => {
        if (
          await this.c.rows.close(
            u.q,
            s.id,
            "cancelled",
            declined ? "declined by the opponent's owner" : "cancelled",
          )
        )
          await u.audit("scrimmage_cancel", caller.account.handle ?? caller.account.id, {
            id: s.id,
            declined,
          });
      });
    }
    return this.list(caller, name);
  }

  async setOptIn(caller: Caller, name: string, allowed: boolean) {
    const bot = await this.c.ownBot(caller, name);
    await this.d.work(async (u) => {
      await this.c.rows.setOptIn(u.q, bot.id, allowed);
      await u.audit("scrimmage_optin", caller.account.handle ?? caller.account.id, {
        bot: bot.name,
        allowed,
      });
    });
    // Turning it off declines what other owners asked for and is still waiting.
    if (!allowed)
      for (const s of this.c.pending.filter(
        (s) => s.opponentId === bot.id && s.accountId !== caller.account.id,
      ))
        await this.cancel(caller, name, s.id);
    return this.list(caller, name);
  }

  /** GET: the bot's opt-in, its limits in force, its waiting, playing and recent scrimmages, and its batches. */
  async list(caller: Caller, name: string) {
    const bot = await this.c.ownBot(caller, name);
    await this.c.settled();
    const limits = this.d.settings.limits();
    const rows = await this.c.rows.ofBot(bot.id, 50);
    return {
      bot: bot.name,
      allow_scrimmages: await this.c.rows.optIn(bot.id),
      limits: {
        at_once: limits.scrimmagesAtOncePerOwner,
        per_hour: limits.scrimmagesPerHourPerOwner,
        started_last_hour: this.c.hourCount(caller.account.id, Date.now()),
      },
      maps: [...MAP_NAMES],
      scrimmages: rows.map((r) => this.c.view(r)),
      batches: (await this.c.rows.batchesOfBot(bot.id, 20)).map((b) => ({
        id: b.id,
        state: b.state,
        games: b.games,
        created: b.created,
        url: `${this.d.publicUrl}/batch/${b.id}`,
      })),
    };
  }
}
