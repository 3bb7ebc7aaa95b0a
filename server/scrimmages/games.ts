// Starting scrimmage games and recording their results (issue 34, parts 1 and 2): every waiting game whose two
// bots are ready (human play's way: the requester's bot queued, the opponent queued or a house bot), within the
// server's room and the owner's limits, starts as an unrated match of mode `scrimmage`, oldest first; its result
// comes from MatchFinished (a win, draw, loss or void for the requester's bot). The timer's parts are here too:
// lone requests expire after SCRIMMAGE_WAIT_MS, a game whose match left without a result is closed as void, and
// batches whose bot was removed are stopped.
import { MAP_NAMES } from "../../engine/rules.ts";
import type { DomainEvents } from "../kernel/bus.ts";
import type { Participant } from "../lobby/lobby.ts";
import type { Playing, ScrimmageCatalog, ScrimmageDeps } from "./catalog.ts";
import { type GameResult, newScrimmageId } from "./store.ts";

/** A lone request waits this long for its two bots to be ready, then expires (the bots are let go). */
export const SCRIMMAGE_WAIT_MS = 10 * 60_000;
/** A started game whose match left the running set without a result is closed after this long. */
const LOST_RESULT_MS = 60_000;
const ORPHAN_CHECK_MS = 60_000;

export class ScrimmageGames {
  /** When batches were last checked for removed bots. */
  private orphansAt = 0;

  constructor(
    private readonly c: ScrimmageCatalog,
    private readonly d: ScrimmageDeps,
  ) {}

  /** Starts every waiting game whose bots are ready and whose owner's limits allow it, oldest first. */
  tryStart(now = Date.now()): void {
    for (const s of [...this.c.pending]) {
      if (!this.d.unrated.room()) return;
      const a = this.d.unrated.ready(s.botId);
      const b = this.d.unrated.ready(s.opponentId);
      if (!a || !b || a === b) continue;
      this.c.pending.splice(this.c.pending.indexOf(s), 1);
      this.begin(s.id, s.accountId, null, a, b, s.map, now);
    }
    for (const b of this.c.batches.values()) {
      if (!this.d.unrated.room()) return;
      if (b.playing !== null || b.started >= b.row.games) continue;
      const a = this.d.unrated.ready(b.row.bot_id);
      if (!a || (b.row.version !== null && a.version !== b.row.version)) continue;
      const o = this.d.unrated.ready(this.c.nextOpponent(b));
      if (!o || o === a) continue;
      const limits = this.d.settings.limits();
      if (this.c.runningFor(b.row.account_id) >= limits.scrimmagesAtOncePerOwner) continue;
      if (this.c.hourCount(b.row.account_id, now) >= limits.scrimmagesPerHourPerOwner) continue;
      // A batch spreads its games over the maps in turn unless it named one, so the per-map rows compare.
      const map = b.row.map ?? MAP_NAMES[Math.floor(b.started / b.row.opponents.length) % MAP_NAMES.length]!;
      const id = newScrimmageId();
      b.started++;
      b.playing = id;
      this.begin(id, b.row.account_id, b.row.id, a, o, map, now);
    }
  }

  private begin(
    id: string,
    accountId: string,
    batchId: string | null,
    a: Participant,
    b: Participant,
    map: string | null,
    now: number,
  ): void {
    const m = this.d.unrated.start(a, b, "scrimmage", map);
    const version = m.setup.fighters[m.seatOf(a.bot.id)]!.version;
    this.c.playing.set(m.id, {
      scrimmageId: id,
      accountId,
      botId: a.bot.id,
      batchId,
      startedAt: now,
      goneSince: null,
    });
    this.c.startedAt(accountId, now);
    const at = new Date(now).toISOString();
    this.c.write(async () => {
      if (batchId !== null)
        await this.c.rows.insert(this.d.store.db, {
          id,
          accountId,
          botId: a.bot.id,
          opponentId: b.bot.id,
          batchId,
          map,
          state: "playing",
        });
      await this.c.rows.started(id, m.id, version, m.setup.map, at);
    });
  }

  /** A MatchFinished listener: a scrimmage game's result, for the requester's bot. */
  finished(e: DomainEvents["MatchFinished"]): void {
    const m = e.match;
    if (m.mode !== "scrimmage") return;
    const p = this.c.playing.get(m.id);
    if (!p) return;
    this.c.playing.delete(m.id);
    const result: GameResult = m.voided
      ? "void"
      : m.winner_bot_id === null
        ? "draw"
        : m.winner_bot_id === p.botId
          ? "win"
          : "loss";
    this.closeGame(p, result, m.reason, Date.parse(m.ended));
  }

  private closeGame(p: Playing, result: GameResult, reason: string, at: number): void {
    const batch = p.batchId === null ? undefined : this.c.batches.get(p.batchId);
    if (batch && batch.playing === p.scrimmageId) batch.playing = null;
    const done = batch !== undefined && batch.started >= batch.row.games;
    if (done) this.c.batches.delete(batch.row.id);
    this.c.write(async () => {
      await this.c.rows.finished(p.scrimmageId, result, reason, new Date(at).toISOString());
      if (done) await this.c.rows.endBatch(this.d.store.db, batch.row.id, "done");
    });
    this.tryStart();
  }

  /**
   * Stops the batches whose bot was deleted, retired or moderated (its games could never start); looked at once
   * a minute, as it reads the database.
   */
  async dropOrphans(now: number): Promise<void> {
    if (now - this.orphansAt < ORPHAN_CHECK_MS) return;
    this.orphansAt = now;
    for (const b of [...this.c.batches.values()]) {
      if (b.playing !== null) continue;
      const bot = await this.d.botStore.botById(b.row.bot_id);
      if (bot && bot.status === "active") continue;
      this.c.batches.delete(b.row.id);
      await this.c.rows.endBatch(this.d.store.db, b.row.id, "cancelled");
    }
  }

  /** Lone requests whose bots were not both ready within SCRIMMAGE_WAIT_MS: expired. */
  expire(now: number): void {
    for (const s of [...this.c.pending])
      if (now - s.created >= SCRIMMAGE_WAIT_MS) {
        this.c.pending.splice(this.c.pending.indexOf(s), 1);
        this.c.write(async () => {
          await this.c.rows.close(
            this.d.store.db,
            s.id,
            "expired",
            "the two bots were not both ready in time",
          );
        });
      }
  }

  /** Games whose match is gone without a result: closed as void once LOST_RESULT_MS have passed. */
  lostResults(now: number): void {
    for (const p of this.d.unrated.lost(this.c.playing, now, LOST_RESULT_MS))
      this.closeGame(p, "void", "no result was stored", now);
  }
}
