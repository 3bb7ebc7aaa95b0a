// The front-process side of a running match: the startup window, per-seat deadlines and lockstep ticks,
// reconnects within the grace window, and the end (replay file, one database transaction, `end` messages).
// The simulation itself runs in a pool worker; this module only moves messages and keeps time.
import type { Logger } from "pino";
import type { DeadlinesT, EndReason } from "../../engine/protocol.ts";
import { DIAGNOSTIC_ENTRIES } from "../../engine/stats.ts";
import type { MatchChannel, MatchPool } from "../../pool/pool.ts";
import type { FromWorker, MatchOutcome, MatchSetup, ToWorker } from "../../pool/protocol.ts";
import { Hop, stamp, tracing } from "../../pool/trace.ts";
import { headOf, type MessageHead } from "../connection/message-head.ts";
import type { EventBus } from "../kernel/bus.ts";
import type { Participant } from "../lobby/lobby.ts";
import { type RatingBook, versionKey } from "../ratings/book.ts";
import type { ReplayFiles } from "../replays.ts";
import type { DurableResults } from "../results/durable-results.ts";
import type { PairingRecord } from "../store/pairing-record.ts";
import type { TickJournal, TickMeter } from "./hooks.ts";
import { endMessage, matchRecord, withLateReplies } from "./match-result.ts";
import { newSeat, type Seat, type SeatConn } from "./seat.ts";

import type { StallClock } from "./stall-clock.ts";
import { Watchdog } from "./watchdog.ts";

export interface RunnerDeps {
  pool: MatchPool;
  /** The rating book of a ladder: rated results are recorded there (and the fit refitted) as each match ends. */
  ratingsOf(ladderId: string): RatingBook;
  /** MatchFinished is announced here once the result is durable. */
  bus: EventBus;
  /** Results are made durable (committed, or journaled) here before anyone is told them. */
  results: Pick<DurableResults, "persist">;
  replays: ReplayFiles;
  log: Logger;
  publicUrl: string;
  messagesPerTick: number;
  /** The front process's own stalls, which are never charged to a bot. */
  stalls: Pick<StallClock, "stalledWithin">;
  /** How long a worker may take to answer before it is presumed hung and terminated. */
  workerTimeoutMs: number;
  /** The operator's tick figures for a match of this mode (null when metrics are off). */
  tickMeter?(mode: MatchSetup["mode"]): TickMeter | null;
  /** The journal of a match's inputs (cluster failover), or null: a single server has none. */
  journal?(m: RunningMatch): TickJournal | null;
  onEnd(m: RunningMatch): void;
}

export type { TickJournal, TickMeter } from "./hooks.ts";

export class RunningMatch {
  readonly id: string;
  readonly setup: MatchSetup;
  readonly seats: [Seat, Seat];
  readonly createdAt = Date.now();
  started: string | null = null;
  tick = 0;
  /** Why the matchmaker paired the two (ranked matches; issue 33), stored with the result. */
  pairing: PairingRecord | null = null;
  private phase: "startup" | "playing" | "ending" = "startup";
  /** Spectators' pending requests for replay lines (see peek). */
  private readonly peeks = new Map<number, (lines: string[] | null) => void>();
  private peekSeq = 0;
  /** Ended by the server (drain timeout, stop): it leaves no result at all. */
  private abandoned = false;
  /** Cluster: the node that took this match over while this one was cut off; this copy no longer speaks for it. */
  movedTo: string | null = null;
  private hello: [string, string] | null = null;
  private startupTimer: NodeJS.Timeout | null = null;
  // Per-tick timers are lazy: a tick only writes due times, and one timer per match (deadlines) and one for
  // the watchdog wake up at the earliest due time, act if it has passed, or sleep again until the new one.
  // Creating and clearing three timers per tick was a measurable share of the front process's time per tick
  // with instant-reply bots.
  private deadlineTimer: NodeJS.Timeout | null = null;
  private deadlineTimerAt = 0;
  private readonly watchdog: Watchdog;
  private readonly channel: MatchChannel;
  private readonly deps: RunnerDeps;
  private readonly meter: TickMeter | null;
  private readonly journal: TickJournal | null;
  /** A tick's inputs are being journaled: the turns go to the worker once they are stored. */
  private appending = false;
  /** performance.now() when the last observations arrived (meter only). */
  private observedAt = 0;
  private endedResolve!: () => void;
  /** Resolves once the match is over and its result handled (stored, `end` sent, onEnd called). */
  readonly ended = new Promise<void>((resolve) => {
    this.endedResolve = resolve;
  });

  constructor(deps: RunnerDeps, setup: MatchSetup, participants: [Participant, Participant]) {
    this.deps = deps;
    this.id = setup.matchId;
    this.setup = setup;
    this.seats = participants.map((p, i) => {
      const remote = setup.seats[i]!.kind === "remote";
      return newSeat(p, remote, remote ? p.conn : null);
    }) as [Seat, Seat];
    this.meter = deps.tickMeter?.(setup.mode) ?? null;
    this.watchdog = new Watchdog(deps.workerTimeoutMs, () => this.channel.kill("worker stopped answering"));
    this.channel = deps.pool.start(setup);
    this.journal = deps.journal?.(this) ?? null;
    this.channel.onMessage((m) => this.fromWorker(m));
    this.channel.done.then(
      (outcome) => void this.finish(outcome, null),
      (err: Error) => void this.finish(null, err),
    );
    this.watchdog.arm();
  }

  /** Ticks are being played: the per-tick message limit applies (before and after, the per-second one). */
  get playing(): boolean {
    return this.phase === "playing";
  }

  get deadlines(): DeadlinesT {
    return this.setup.deadlines;
  }

  seatOf(botId: string): number {
    return this.seats.findIndex((s) => s.remote && s.participant.bot.id === botId);
  }

  /**
   * A decoded message from a seat's bot (`raw` is the text when JSON failed, null for a binary frame): a human
   * game's turns and the tests. The pool worker gets it re-encoded as JSON.
   */
  fromBot(seat: number, raw: unknown): void {
    this.received(seat, headOf(raw), null, raw);
  }

  /**
   * A text message as a seat's socket received it (already size-checked), with its head read from the bytes
   * (server/connection/message-head.ts): a turn goes to the pool worker as those bytes (the worker parses and
   * validates it), so nothing here parses or re-encodes it. `bytes` null is a binary frame.
   */
  fromSocket(seat: number, head: MessageHead, bytes: Uint8Array | null): void {
    this.received(seat, head, bytes, null);
  }

  private received(seat: number, head: MessageHead, bytes: Uint8Array | null, raw: unknown): void {
    const s = this.seats[seat]!;
    const type = head.type;
    if (this.phase === "startup") {
      if (type === "ready") {
        s.ready = true;
        if (this.seats.every((x) => x.ready)) this.beginPlay();
      }
      return; // anything else before play is ignored: there is no observation to answer yet
    }
    if (this.phase !== "playing" || type === "ready") return;
    if (tracing) stamp(this.channel.key, this.tick, seat === 0 ? Hop.read0 : Hop.read1);
    s.messages++;
    if (s.messages > this.deps.messagesPerTick) {
      if (s.rateNoticeTick !== this.tick) {
        s.rateNoticeTick = this.tick;
        s.conn?.error("rate_limited", `at most ${this.deps.messagesPerTick} messages per tick`);
      }
      return;
    }
    // A turn for an earlier tick arrived late: drop it rather than count it against this tick; when it answers
    // the tick the seat last missed, how late it came is what its owner's diagnostics show.
    if (type === "turn" && head.tick !== null && head.tick < this.tick) {
      if (head.tick === s.missedTick) {
        s.missedTick = -1;
        if (s.late.length < DIAGNOSTIC_ENTRIES)
          s.late.push({ tick: head.tick, late_ms: Math.round(performance.now() - s.missedDueAt) });
      }
      return;
    }
    if (s.input) return; // one answer per tick; later ones are ignored
    // The reply time charged is the bot's own: time the server itself stood still is not counted.
    const now = performance.now();
    const ms = Math.max(0, now - s.sentAt - this.deps.stalls.stalledWithin(s.sentAt, now));
    s.input = bytes ? { raw: null, ms, bytes } : { raw, ms };
    this.maybeResolve();
  }

  /**
   * The seat's socket went away: the match goes on, the seat idles as disconnected, and it is disqualified
   * when `reconnect_grace_ms` passes without a new socket (a time, whatever the tick length).
   */
  detach(seat: number, conn?: SeatConn): void {
    const s = this.seats[seat]!;
    // The socket that went is not the seat's any more (in a cluster, a relay from another node took its place).
    if (conn !== undefined && s.conn !== conn) return;
    s.conn = null;
    s.lostAt = performance.now();
    if (this.phase === "playing") this.wakeAt(s.lostAt + this.deadlines.reconnect_grace_ms);
  }

  /** A new socket for the seat's bot: resend hello, then the current observation at once. */
  attach(seat: number, conn: SeatConn): void {
    const s = this.seats[seat]!;
    s.conn = conn;
    s.lostAt = null;
    if (this.phase === "startup") {
      if (this.hello) conn.send(this.hello[seat]!);
      return;
    }
    if (this.phase === "playing") {
      s.resuming = true;
      this.channel.send({ t: "resume", seat });
    }
  }

  /**
   * Ends the match now with no result (drain timeout, stop): it is abandoned, as SPEC 3.3 allows, and leaves
   * nothing stored (no void row, no replay) and no `end`. A match already ending keeps its result. Resolves
   * when the match is done with.
   */
  abandon(): Promise<void> {
    if (this.phase !== "ending") this.abandoned = true;
    this.channel.kill("server stopping");
    return this.ended;
  }

  // The watchdog is armed only while the worker owes an answer (hello, or the next tick after `start` or
  // `tick`); a `resume` reply must not arm it, or a bot that takes its full tick after reconnecting would get
  // its worker killed as hung.
  private fromWorker(m: FromWorker): void {
    switch (m.t) {
      case "hello":
        if (m.resumeFailed) {
          this.deps.log.warn({ match: this.id, why: m.resumeFailed }, "the match could not be resumed");
          void this.abandon(); // SPEC 3.3's crash rule: no result, no `end`
          break;
        }
        this.hello = m.hello;
        this.started = new Date().toISOString();
        this.seats.forEach((s, i) => {
          if (s.remote) s.conn?.send(m.hello[i]!);
        });
        this.watchdog.disarm();
        this.startupTimer = setTimeout(() => this.beginPlay(), this.deadlines.startup_ms);
        // A match taken over from a dead node plays on at once; its bots are away until they reconnect.
        if (this.setup.resume)
          for (const s of this.seats) {
            s.ready = true;
            if (s.remote && !s.conn) s.lostAt = performance.now();
          }
        if (this.seats.every((x) => x.ready)) this.beginPlay();
        break;
      case "tick": {
        if (tracing && m.tick > 0) stamp(this.channel.key, m.tick - 1, Hop.routed);
        // The watchdog was armed when the turns (or `start`) went to the pool: that is the server's start.
        const posted = this.watchdog.owedSince;
        this.watchdog.disarm();
        const arrived = this.meter !== null ? performance.now() : 0;
        this.tick = m.tick;
        this.journal?.observed(m.tick, m.obs);
        let due = Number.POSITIVE_INFINITY;
        for (let i = 0; i < 2; i++) {
          const s = this.seats[i]!;
          s.input = null;
          s.messages = 0;
          if (!s.remote) continue;
          s.deadlineMs = m.deadlineMs[i]!;
          s.sentAt = performance.now();
          s.dueAt = s.sentAt + s.deadlineMs;
          due = Math.min(due, s.dueAt);
          if (tracing && i === 0 && m.tick > 0) stamp(this.channel.key, m.tick - 1, Hop.sending0);
          if (!s.resuming) s.conn?.sendUtf8(m.obs[i]!);
          if (tracing && m.tick > 0) stamp(this.channel.key, m.tick - 1, i === 0 ? Hop.sent0 : Hop.sent1);
          if (s.lostAt !== null) due = Math.min(due, s.lostAt + this.deadlines.reconnect_grace_ms);
        }
        // The bots have their observations: the rest of the tick's bookkeeping is off their clock.
        if (this.meter !== null && posted !== null) {
          if (this.observedAt > 0)
            this.meter.tick((arrived - this.observedAt) / 1000, (arrived - posted) / 1000);
          this.observedAt = arrived;
        }
        this.wakeAt(due);
        this.maybeResolve();
        break;
      }
      case "peek": {
        this.peeks.get(m.id)?.(m.lines);
        break;
      }
      case "resume": {
        const s = this.seats[m.seat]!;
        s.resuming = false;
        s.conn?.send(m.hello);
        if (m.obs && !s.input) s.conn?.send(m.obs);
        break;
      }
    }
  }

  private beginPlay(): void {
    if (this.phase !== "startup" || !this.hello) return;
    if (this.startupTimer) clearTimeout(this.startupTimer);
    this.phase = "playing";
    this.watchdog.arm();
    const ready: [boolean, boolean] = [this.seats[0].ready, this.seats[1].ready];
    this.journal?.started(ready);
    this.channel.send({ t: "start", ready });
  }

  private maybeResolve(): void {
    if (this.phase !== "playing" || this.appending) return;
    const [a, b] = this.seats;
    if ((a.remote && !a.input) || (b.remote && !b.input)) return;
    this.watchdog.arm();
    // One message object for every tick (the channel reads it during the call): a live server resolves
    // thousands of ticks a second, and each fresh object and array was garbage for the socket thread's GC.
    const m = this.tickMessage;
    m.tick = this.tick;
    m.inputs[0] = a.remote ? a.input : null;
    m.inputs[1] = b.remote ? b.input : null;
    // Rare (a seat's reconnect grace ran out); unset, not deleted, so the object keeps its shape.
    m.expired =
      a.graceOver || b.graceOver ? (a.graceOver && b.graceOver ? [0, 1] : [a.graceOver ? 0 : 1]) : undefined;
    if (!this.journal) {
      this.channel.send(m);
      return;
    }
    // Stored before the tick is stepped, so before its observations go out (another node can then resume).
    this.appending = true;
    void this.journal.resolved(m.tick, m.inputs, m.expired).then(() => {
      this.appending = false;
      if (this.phase === "playing") this.channel.send(m);
    });
  }
  private readonly tickMessage: Extract<ToWorker, { t: "tick" }> = {
    t: "tick",
    tick: 0,
    inputs: [null, null],
    expired: undefined,
  };

  /** Makes sure the deadline timer wakes up no later than `due` (a performance.now() time). */
  private wakeAt(due: number): void {
    if (due === Number.POSITIVE_INFINITY) return;
    if (this.deadlineTimer) {
      if (this.deadlineTimerAt <= due) return; // it wakes earlier and sleeps again until `due`
      clearTimeout(this.deadlineTimer);
    }
    this.deadlineTimerAt = due;
    this.deadlineTimer = setTimeout(() => this.deadlinesDue(), Math.max(0, due - performance.now()));
  }

  // A seat that has not answered by its due time idles for this tick (timeout, or disconnected); a seat gone
  // for longer than the reconnect grace idles at once and is disqualified with the tick.
  private deadlinesDue(): void {
    this.deadlineTimer = null;
    if (this.phase !== "playing") return;
    // Timers run on the event loop's millisecond clock and may wake a fraction of a millisecond before
    // performance.now() reaches the due time; that counts as due, as a per-seat timer would have.
    const now = performance.now() + 1;
    let next = Number.POSITIVE_INFINITY;
    let idled = false;
    for (const s of this.seats) {
      if (!s.remote || s.input) continue;
      // A stall of the server inside this tick's window moves the seat's due time back by as much: its reply
      // may be sitting unread in the socket buffer, and is read later in this same turn of the event loop.
      const due = s.dueAt + this.deps.stalls.stalledWithin(s.sentAt, now);
      // The grace is the bot's time to come back: the server's own stalls do not use it up either.
      const graceEnd =
        s.conn || s.lostAt === null
          ? Number.POSITIVE_INFINITY
          : s.lostAt + this.deadlines.reconnect_grace_ms + this.deps.stalls.stalledWithin(s.lostAt, now);
      if (graceEnd <= now) s.graceOver = true;
      if (due <= now || s.graceOver) {
        s.input = { idle: s.conn ? "timeout" : "disconnected", ms: s.deadlineMs };
        if (s.conn) {
          s.missedTick = this.tick;
          s.missedDueAt = due;
        }
        idled = true;
        this.meter?.deadlineMiss(s.conn === null);
      } else next = Math.min(next, due, graceEnd);
    }
    this.wakeAt(next);
    if (idled) this.maybeResolve();
  }

  /**
   * The replay lines written so far from index `since` on (header, inputs, tick states), for a spectator
   * following the match live; null once the match is ending (the replay file is about to appear) or when
   * the worker does not answer within two seconds.
   */
  peek(since: number): Promise<string[] | null> {
    if (this.phase === "ending") return Promise.resolve(null);
    const id = ++this.peekSeq;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.peeks.delete(id);
        resolve(null);
      }, 2_000);
      timer.unref();
      this.peeks.set(id, (lines) => {
        clearTimeout(timer);
        this.peeks.delete(id);
        resolve(lines);
      });
      this.channel.send({ t: "peek", id, since });
    });
  }

  private async finish(outcome: MatchOutcome | null, err: Error | null): Promise<void> {
    if (this.phase === "ending") return;
    this.phase = "ending";
    for (const answer of [...this.peeks.values()]) answer(null);
    this.watchdog.clear();
    if (this.startupTimer) clearTimeout(this.startupTimer);
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    const { deps } = this;
    if (this.abandoned) {
      deps.log.warn({ match: this.id }, "match abandoned by the server; no result is kept");
      this.done();
      return;
    }
    let replayFile: string | null = null;
    if (outcome) {
      try {
        replayFile = await deps.replays.write(this.id, new Uint8Array(outcome.replay));
      } catch (e) {
        deps.log.error({ err: e, match: this.id }, "replay write failed");
      }
    }
    const durationMs = Date.now() - this.createdAt;
    const reason: EndReason = outcome ? outcome.reason : "aborted";
    const voided = !outcome || reason === "voided" || reason === "aborted";
    const winnerSeat = outcome ? outcome.winner : null;
    // Forfeits are rated (SPEC 1.2 rule 7); voided, aborted and human games are not.
    const rated = !voided && this.setup.mode === "ranked";
    const change = rated
      ? deps.ratingsOf(this.setup.ladderId).record({
          a: versionKey(this.seats[0].participant.bot.id, this.setup.fighters[0].version),
          b: versionKey(this.seats[1].participant.bot.id, this.setup.fighters[1].version),
          score: winnerSeat === null ? 0.5 : winnerSeat === 0 ? 1 : 0,
          map: this.setup.map,
          aHouse: this.seats[0].participant.bot.house,
          bHouse: this.seats[1].participant.bot.house,
        })
      : null;
    const record = matchRecord({
      id: this.id,
      setup: this.setup,
      participants: [this.seats[0].participant, this.seats[1].participant],
      started: this.started,
      durationMs,
      outcome,
      reason,
      voided,
      err,
      tick: this.tick,
      change,
      stats: outcome ? withLateReplies(outcome.stats, [this.seats[0].late, this.seats[1].late]) : null,
      replayFile,
      pairing: this.pairing,
    });
    const ratingChange = this.seats.map((_, i) =>
      change ? Math.round(change.after[i]!) - Math.round(change.before[i]!) : null,
    ) as [number | null, number | null];
    // Durable before anyone is told: the `end` messages, the rating change and MatchFinished wait for the
    // commit or the journal. The book above already counts the game; if the server stops before the result
    // is durable, the process (and that book) goes with it, no `end` is sent, and the restart's book is
    // rebuilt from what was stored.
    try {
      await deps.results.persist(record);
    } catch (e) {
      deps.log.error(
        { err: e, match: this.id },
        "the match result was not stored; its bots are told nothing",
      );
      this.done();
      return;
    }
    const accounts = this.seats.map((s) => s.participant.bot.account_id) as [string | null, string | null];
    deps.bus.emit("MatchFinished", { match: record, rated, ratingChange, accounts });
    if (err) deps.log.warn({ match: this.id, err: err.message }, "match aborted");
    this.seats.forEach((s, i) => {
      if (!s.remote || !s.conn) return;
      if (err)
        s.conn.error("match_aborted", "the server could not finish this match; it is void and unrated");
      s.conn.send(
        endMessage({
          matchId: this.id,
          ladderId: this.setup.ladderId,
          publicUrl: deps.publicUrl,
          seat: i,
          winner: winnerSeat,
          reason,
          finalTick: outcome ? outcome.finalTick : this.tick,
          stats: outcome?.stats ?? null,
          ratingChange: ratingChange[i] ?? null,
        }),
      );
    });
    this.done();
  }

  private done(): void {
    this.journal?.ended();
    this.deps.onEnd(this);
    this.endedResolve();
  }
}
