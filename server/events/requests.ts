// Opponent requests (SPEC 3.9): an enrolled account asks for its online bot to meet one of an open event's house
// bots; the matchmaker asks `requested` on each pass and says `served` when it started the match; closing the
// event expires what is left. One request per account and event at a time, and a cooldown between them.

import type { AccountRow } from "../accounts/account-store.ts";
import { errors } from "../errors.ts";
import { HOUSE_NAMES } from "../ladders/event-definition.ts";
import { type EventCatalog, type EventsDeps, officialNames } from "./catalog.ts";
import type { RequestRow } from "./store.ts";

/** One opponent request per account and event every 30 seconds (SPEC 3.9's cooldown; docs/events.md). */
export const REQUEST_COOLDOWN_MS = 30_000;

export class OpponentRequests {
  /** Pending opponent requests by bot id (the matchmaker asks on every pass). */
  private readonly pending = new Map<string, RequestRow>();

  constructor(
    private readonly c: EventCatalog,
    private readonly d: EventsDeps,
  ) {}

  /** Reads the pending requests (at start, after the events are loaded). */
  async reload(): Promise<void> {
    this.pending.clear();
    for (const r of await this.c.tables.pendingRequests()) this.pending.set(r.bot_id, r);
  }

  /** Files a request; the caller answers with the account's achievements view (awards.ts). */
  async request(
    account: AccountRow,
    eventId: string,
    botRef: string,
    opponent: string,
    now = Date.now(),
  ): Promise<void> {
    const e = this.c.require(eventId);
    const phase = this.c.phaseOf(e, now);
    if (!e.def.enabled || phase !== "open")
      throw errors.eventClosed(e.def.id, e.def.enabled ? phase : "disabled");
    if (!this.c.enrolled(e, account.id)) throw errors.eventEnrollmentRequired(e.def.ladder_id);
    const names = officialNames(e);
    if (!(HOUSE_NAMES as readonly string[]).includes(opponent) || !names.includes(opponent))
      throw errors.unknownOpponent(names);
    if (this.c.unavailableOpponents(e).includes(opponent))
      throw errors.opponentsUnavailable(
        this.d.houseBots
          ? `${opponent} does not play on the ladder ${e.def.ladder_id}`
          : "this server hosts no house bots",
      );
    const bot = (await this.d.accountStore.accountBots(account.id)).find(
      (b) => (b.id === botRef || b.name === botRef) && b.status === "active",
    );
    if (!bot) throw errors.noSuchBot(botRef);
    if (!this.d.lobby.get(bot.id)?.conn) throw errors.botOffline(bot.name);
    const created = await this.d.store.work(async (u) => {
      const last = await this.c.tables.lastRequest(e.def.id, account.id, u.q);
      if (last?.state === "pending") throw errors.requestExists();
      if (last && now - Date.parse(last.created) < REQUEST_COOLDOWN_MS)
        throw errors.requestCooldown(
          Math.ceil((Date.parse(last.created) + REQUEST_COOLDOWN_MS - now) / 1000),
        );
      const r = await this.c.tables.createRequest(u.q, {
        eventId: e.def.id,
        accountId: account.id,
        botId: bot.id,
        opponent,
      });
      await u.audit("event_opponent_request", account.handle ?? account.id, {
        event: e.def.id,
        bot: bot.name,
        opponent,
      });
      return r;
    });
    this.pending.set(bot.id, created);
    this.d.ladders.get(e.def.ladder_id)?.matchmaker.pass();
  }

  /** Cancels the account's pending request for the event, if it has one. */
  async cancel(account: AccountRow, eventId: string): Promise<void> {
    const e = this.c.require(eventId);
    const last = await this.c.tables.lastRequest(e.def.id, account.id);
    if (last?.state === "pending") await this.endRequest(last, "cancelled", account.handle ?? account.id);
  }

  private async endRequest(
    r: RequestRow,
    state: "served" | "cancelled" | "expired",
    by: string,
  ): Promise<void> {
    if (this.pending.get(r.bot_id)?.id === r.id) this.pending.delete(r.bot_id);
    await this.d.store.work(async (u) => {
      if (await this.c.tables.endRequest(u.q, r.id, state))
        await u.audit(`event_opponent_${state}`, by, {
          event: r.event_id,
          opponent: r.opponent,
          request: r.id,
        });
    });
  }

  /** The matchmaker's question: whom did this bot ask to meet on this ladder (an open event's request)? */
  requested(botId: string, ladderId: string): string | null {
    const r = this.pending.get(botId);
    if (!r) return null;
    const e = this.c.find(r.event_id);
    if (!e || e.def.ladder_id !== ladderId || this.c.phaseOf(e) !== "open") return null;
    return r.opponent;
  }

  /** The matchmaker started the requested match: the request is served. */
  served(botId: string): void {
    const r = this.pending.get(botId);
    if (!r) return;
    this.pending.delete(botId);
    void this.endRequest(r, "served", "matchmaker").catch((err) =>
      this.d.log.error({ err, request: r.id }, "could not mark an opponent request served"),
    );
  }

  /** The event closed: its pending requests expire (nothing is served after closing). */
  async expire(eventId: string): Promise<void> {
    for (const r of [...this.pending.values()].filter((x) => x.event_id === eventId))
      await this.endRequest(r, "expired", "closing");
  }
}
