// The journal of each running match's inputs (issue 36, part 5): what another node needs to re-simulate the match
// after its node dies. Per match, on the JetStream stream `arena_match_inputs`, subject
// `arena.journal.<match id>`:
//   setup  the match's setup, its two bots and their versions, the pairing (once, as it starts)
//   start  the seats that sent `ready` (once, as play begins)
//   tick   each tick's remote inputs as they go to the worker, the seats expired with it, and a hash of the
//          observations each seat was sent for that tick (pool/obs-hash.ts)
// A tick's entry is acknowledged by JetStream before the runner steps the tick, so before the next observation
// goes out: the stream is never behind what the bots saw. Beside it, the key-value bucket `arena_matches` holds
// one entry per running match, its lease: which node runs it (compare-and-set moves it, failover.ts). When the
// match ends here, both go (the stream subject purged, the entry deleted).
//
// An append NATS does not acknowledge (NATS away longer than APPEND_MS) marks the match's journal broken: the
// match plays on without it, and its entry says so, so no node resumes it from a journal that is behind the bots
// (if its node dies, SPEC 3.3's crash rule applies).
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { Logger } from "pino";
import type { SeatInput } from "../../pool/link.ts";
import { obsHash } from "../../pool/obs-hash.ts";
import type { MatchSetup } from "../../pool/protocol.ts";
import type { RunningMatch, TickJournal } from "../runner/match-runner.ts";
import {
  decodeMatchLease,
  encodeJournal,
  encodeMatchLease,
  type JournalEntry,
  type MatchLease,
} from "./journal-codec.ts";

export const JOURNAL_STREAM = "arena_match_inputs";
export const JOURNAL_SUBJECT = "arena.journal";
export const MATCHES_BUCKET = "arena_matches";
/** How long an append may wait for JetStream's acknowledgement before the journal is given up. */
const APPEND_MS = 2_000;

export const journalSubject = (matchId: string): string => `${JOURNAL_SUBJECT}.${matchId}`;

export interface JournalDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  kv: KV;
  node: string;
  log: Logger;
  /** The match ended here (failover.ts forgets its journal). */
  onEnded?(matchId: string): void;
}

/** The lease value of a match on `node`. */
export function leaseOf(m: RunningMatch, node: string, adopted: boolean, broken = false): MatchLease {
  return {
    node,
    bots: [m.seats[0].participant.bot.id, m.seats[1].participant.bot.id],
    adopted,
    broken,
  };
}

export class MatchJournal implements TickJournal {
  private readonly subject: string;
  private readonly hash: [number, number] = [0, 0];
  private broken = false;
  /** Another node took the match over (this node was cut off, not dead): its lease and journal are not ours. */
  private taken = false;
  private readonly entry: Extract<JournalEntry, { k: "tick" }> = {
    k: "tick",
    t: 0,
    in: [null, null],
    x: 0,
    h: this.hash,
  };

  /**
   * The stream sequence of the journal's last entry, which each append expects (JetStream's expected last subject
   * sequence): a node that was cut off and wakes up after another took its match over fails its first append
   * once the taker has appended, instead of mixing its stale ticks into the taker's journal.
   */
  private lastSeq: number;
  /** The appends, one after another: each expects the sequence the one before it got. */
  private tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly d: JournalDeps,
    private readonly m: RunningMatch,
    /** A match taken over here: the sequence of the last entry of the journal it was resumed from. */
    resumedAt = 0,
  ) {
    this.lastSeq = resumedAt;
    this.subject = journalSubject(m.id);
    // A match taken over here continues the journal it was resumed from; its lease was moved by the takeover.
    if (m.setup.resume) return;
    const { resume: _, ...setup } = m.setup;
    void d.kv.create(m.id, encodeMatchLease(leaseOf(m, d.node, false))).catch((err: Error) => this.fail(err));
    this.publish({
      k: "setup",
      setup: setup as MatchSetup,
      bots: [m.seats[0].participant.bot, m.seats[1].participant.bot],
      versions: [m.seats[0].participant.version, m.seats[1].participant.version],
      pairing: m.pairing,
    });
  }

  started(ready: [boolean, boolean]): void {
    if (!this.m.setup.resume) this.publish({ k: "start", ready });
  }

  observed(_tick: number, obs: readonly (Uint8Array | null)[]): void {
    this.hash[0] = obsHash(obs[0] ?? null);
    this.hash[1] = obsHash(obs[1] ?? null);
  }

  resolved(
    tick: number,
    inputs: readonly (SeatInput | null)[],
    expired: readonly number[] | undefined,
  ): Promise<void> {
    if (this.broken) return Promise.resolve();
    const e = this.entry;
    e.t = tick;
    e.in[0] = inputs[0] ?? null;
    e.in[1] = inputs[1] ?? null;
    e.x = expired ? expired.reduce((bits, f) => bits | (1 << f), 0) : 0;
    return this.publish(e);
  }

  /** Another node took the match over while it still ran here: this copy stops journaling and leaves both. */
  lost(): void {
    this.taken = true;
    this.broken = true;
  }

  ended(): void {
    this.d.onEnded?.(this.m.id);
    if (this.taken) return;
    const { jsm, log } = this.d;
    // Only while the lease is still this node's: a node that was cut off and woke up may end its copy before it
    // has heard that another node took the match over, and must not delete the taker's lease and journal.
    void this.whileOurs((revision) => this.d.kv.delete(this.m.id, { previousSeq: revision }))
      .then((ours) => {
        if (!ours) return;
        return jsm.streams.purge(JOURNAL_STREAM, { filter: this.subject }).then(
          () => {},
          (err: Error) => log.warn({ err, match: this.m.id }, "match journal not purged"),
        );
      })
      .catch((err: Error) => log.warn({ err, match: this.m.id }, "match lease not removed"));
  }

  /**
   * Runs `write` with the lease's revision if the lease still names this node (a compare-and-set on it), and
   * resolves whether it did. A lease that names another node was taken over while this node was cut off: this
   * copy is lost (failover.ts abandons it when it hears of the takeover), and nothing of the taker's is touched.
   */
  private async whileOurs(write: (revision: number) => Promise<unknown>): Promise<boolean> {
    const e = await this.d.kv.get(this.m.id);
    if (e?.operation !== "PUT") return false;
    const l = decodeMatchLease(e.value);
    if (l && l.node !== this.d.node) {
      this.lost();
      return false;
    }
    await write(e.revision);
    return true;
  }

  /** Appends an entry (encoded now: the runner reuses what it handed in); resolves once stored or given up. */
  private publish(e: JournalEntry): Promise<void> {
    let data: Uint8Array;
    try {
      data = encodeJournal(e);
    } catch (err) {
      this.fail(err as Error);
      return Promise.resolve();
    }
    const append = (): Promise<void> | undefined => {
      if (this.broken) return;
      return this.d.js
        .publish(this.subject, data, { timeout: APPEND_MS, expect: { lastSubjectSequence: this.lastSeq } })
        .then(
          (ack) => {
            this.lastSeq = ack.seq;
          },
          (err: Error) => this.fail(err),
        );
    };
    this.tail = this.tail.then(append);
    return this.tail;
  }

  /** The journal is behind from now on: no node may resume the match from it. */
  private fail(err: Error): void {
    if (this.broken || this.taken) return;
    this.broken = true;
    // Another node appended: most likely it took the match over while this node was cut off; then the lease
    // names it and `mark` below leaves it alone (failover.ts abandons this copy when it hears so). A lease still
    // ours means the refused append was our own, retried: the journal is marked behind as for any failure.
    if (/wrong last sequence/i.test(err.message))
      this.d.log.warn(
        { match: this.m.id },
        "another node appends to this match's journal; this copy stops journaling",
      );
    else this.d.log.warn({ err, match: this.m.id }, "the match journal failed; the match cannot fail over");
    const mark = () =>
      this.whileOurs((revision) =>
        this.d.kv.update(
          this.m.id,
          encodeMatchLease(leaseOf(this.m, this.d.node, !!this.m.setup.resume, true)),
          revision,
        ),
      );
    void mark().catch(() => {
      // NATS away: mark it once it is back (until the match ends, when the entry is deleted anyway).
      const retry = setInterval(() => {
        if (!this.m.playing) return clearInterval(retry);
        void mark().then(
          () => clearInterval(retry),
          () => {},
        );
      }, 1_000);
      retry.unref();
    });
  }
}
