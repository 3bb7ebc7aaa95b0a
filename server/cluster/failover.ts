// Match failover (issue 36, part 5): the matches of a node that died go on elsewhere. Every node follows the
// bucket of match leases (`arena_matches`, match-journal.ts). When a match's node has left the heartbeat
// directory (its beat expired: it died, or lost NATS for longer than the beat's TTL), every live node tries to
// take the lease with compare-and-set on the entry's revision; the one that wins reads the match's journal,
// re-simulates it in a pool worker from the seed and the journaled inputs to the last tick (the worker checks
// the observations it reaches against the journal's hash of those sent; pool/resume.ts) and plays on from there.
// Its bots are away until they reconnect, to any node with their token: on the taking node the hub finds the
// match as for any reconnect; on another node a relay (remote-seat.ts) joins it across NATS. Each seat's
// reconnect grace counts from the takeover.
//
// Where the journal cannot be followed (it is broken or incomplete, the match had not begun play, the
// re-simulation differs, a house bot is not hosted here), the match is abandoned as SPEC 3.3's crash rule says:
// no result and no `end`. A match whose result was committed before its node died is not taken: the results
// commit is idempotent per match id anyway, so a result is never stored twice.
import { DeliverPolicy, DiscardPolicy, jetstream, jetstreamManager, StorageType } from "@nats-io/jetstream";
import type { Kvm } from "@nats-io/kv";
import { type NatsConnection, nanos } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { MatchResume } from "../../pool/protocol.ts";
import type { Lobby, Participant } from "../lobby/lobby.ts";
import type { LiveMatches } from "../play/live-matches.ts";
import type { RunningMatch } from "../runner/match-runner.ts";
import type { SeatedMatch } from "../socket/hub.ts";
import type { NodeBeat } from "./codec.ts";
import {
  decodeJournal,
  decodeMatchLease,
  encodeMatchLease,
  type JournalEntry,
  type MatchLease,
} from "./journal-codec.ts";
import {
  JOURNAL_STREAM,
  JOURNAL_SUBJECT,
  journalSubject,
  MATCHES_BUCKET,
  MatchJournal,
} from "./match-journal.ts";
import { RemoteSeat, SeatRelay } from "./remote-seat.ts";

/** How long the stream keeps a match's inputs when its end's purge was lost (no match runs this long). */
const KEEP_MS = 6 * 3600_000;
const SCAN_MS = 1_000;
const READ_MS = 5_000;
/** How long a relay to another node's match waits to hear from it before the bot is counted free again. */
const UNHEARD_MS = 15_000;
/** Each node answers on `arena.alive.<node>` while its NATS connection is up (core NATS, not JetStream). */
const ALIVE_SUBJECT = "arena.alive";
const ALIVE_MS = 1_000;

export interface FailoverOptions {
  nc: NatsConnection;
  kvm: Kvm;
  node: string;
  log: Logger;
  nodes(): readonly NodeBeat[];
  lobby: Lobby;
  live: LiveMatches;
  /** Whether this node journals its matches' inputs (off: its matches end by the crash rule if it dies). */
  journaling: boolean;
  /** Whether the match's result is in the database already. */
  stored(matchId: string): Promise<boolean>;
}

export interface Failover {
  /** The journal of a match starting here (null when journaling is off, or for a person's game). */
  journalFor(m: RunningMatch): MatchJournal | null;
  /** The node running a match now per its lease, or null when it has none (ended, or never journaled). */
  whereIs(matchId: string): string | null;
  /** The relay of a bot of this node whose match was taken over by another node. */
  relayOf(botId: string): SeatedMatch | undefined;
  /**
   * A bot that connected here while its match runs on another node (its socket was on a third node, or on the
   * match's own): a relay that joins it there, as after a takeover. Undefined when it has no match elsewhere.
   */
  rejoin(botId: string): SeatedMatch | undefined;
  /** Matches this node took over since it started. */
  taken(): number;
  stop(): Promise<void>;
}

export async function startFailover(o: FailoverOptions): Promise<Failover> {
  const { nc, node: self, log, live, lobby } = o;
  const jsm = await jetstreamManager(nc);
  const js = jetstream(nc);
  await jsm.streams
    .add({
      name: JOURNAL_STREAM,
      subjects: [`${JOURNAL_SUBJECT}.>`],
      storage: StorageType.File,
      max_age: nanos(KEEP_MS),
      discard: DiscardPolicy.Old,
    })
    .catch(() => jsm.streams.info(JOURNAL_STREAM));
  const kv = await o.kvm.create(MATCHES_BUCKET, { history: 1 });
  const leases = new Map<string, { lease: MatchLease; revision: number }>();
  /** Bots of matches taken over by another node: their match's id. */
  const adoptedBots = new Map<string, string>();
  /** The bots of every journaled match, wherever it runs: their match's id (a bot may reconnect to any node). */
  const playingBots = new Map<string, string>();
  /** Matches in the middle of a takeover: moved to a node that does not listen for their bots yet. */
  const moving = new Set<string>();
  const relays = new Map<string, SeatRelay>();
  /** The journals of the matches running here, by match id. */
  const journals = new Map<string, MatchJournal>();
  /** A match being adopted here: the sequence of its journal's last entry (read by journalFor). */
  const resumedAt = new Map<string, number>();
  const watcher = await kv.watch();
  const alive = nc.subscribe(`${ALIVE_SUBJECT}.${self}`, {
    callback: (_err, msg) => {
      msg.respond();
    },
  });
  /**
   * Whether a node whose beat expired still answers: then it is not dead and its matches are not taken. Its beat
   * is a JetStream write, and right after nats-server itself restarts JetStream can time out writes for several
   * seconds while plain messages already flow: every node's beat may lapse at once, and a node that took the
   * matches of a live node ended them by the crash rule (its journal was behind too), so their bots never had an
   * end (test/server/cluster-once.test.ts). A node killed or cut off from NATS has no responder: the request
   * fails at once (or after ALIVE_MS) and the takeover goes on as before.
   */
  const answers = (node: string) =>
    nc.request(`${ALIVE_SUBJECT}.${node}`, undefined, { timeout: ALIVE_MS }).then(
      () => true,
      () => false,
    );
  void (async () => {
    for await (const e of watcher) {
      const l = e.operation === "PUT" ? decodeMatchLease(e.value) : null;
      const was = leases.get(e.key)?.lease;
      if (was?.adopted) for (const b of was.bots) if (adoptedBots.get(b) === e.key) adoptedBots.delete(b);
      if (was) for (const b of was.bots) if (playingBots.get(b) === e.key) playingBots.delete(b);
      if (l && was && was.node !== l.node && !l.adopted) moving.add(e.key);
      else moving.delete(e.key);
      if (l) leases.set(e.key, { lease: l, revision: e.revision });
      else leases.delete(e.key);
      if (l) for (const b of l.bots) playingBots.set(b, e.key);
      // This node was cut off from NATS long enough for another to take a match it still runs: the other copy
      // goes on (its bots reconnect there); this one is abandoned without touching the lease or the journal.
      const mine = journals.get(e.key);
      if (l && l.node !== self && mine) {
        journals.delete(e.key);
        mine.lost();
        log.warn({ match: e.key, by: l.node }, "another node took this match over; this copy is abandoned");
        const copy = live.byId.get(e.key);
        if (copy) copy.movedTo = l.node;
        // Its bots still connected here join the match where it goes on once this copy is gone (joinAdopted
        // passes over a bot that is still in a match here, as they are until the abandoned copy has ended).
        void copy?.abandon().then(() =>
          setImmediate(() => {
            const now = leases.get(e.key)?.lease;
            if (now?.adopted && now.node !== self) joinAdopted(e.key, now);
          }),
        );
      }
      if (l?.adopted && l.node !== self) {
        for (const b of l.bots) adoptedBots.set(b, e.key);
        joinAdopted(e.key, l);
      }
    }
  })().catch((err: unknown) => log.error({ err }, "following the match leases stopped"));

  const trying = new Set<string>();
  let takenCount = 0;

  /** A bot connected here whose match another node took over: it joins through a relay. */
  function relayFor(botId: string, matchId: string, l: MatchLease): SeatRelay | undefined {
    const seat = l.bots.indexOf(botId);
    const p = lobby.get(botId);
    if (seat < 0 || !p || p.house) return undefined;
    let r = relays.get(botId);
    if (r?.matchId === matchId) return r;
    r?.finish(true);
    const before = { lastStartAt: p.lastStartAt, starts: p.starts.length, ranked: false, opponent: "" };
    r = new SeatRelay(nc, matchId, seat, p, l.node, before, log, (done) => {
      if (relays.get(botId) === done) relays.delete(botId);
      p.matches.delete(matchId);
      if (!live.ofBot(botId)) p.state = "idle";
      lobby.leaveIfGone(botId);
    });
    relays.set(botId, r);
    // A match answers an attach at once (its hello); one that does not is over, and the bot is free again.
    const relay = r;
    setTimeout(() => {
      if (!relay.heard) relay.finish(false);
    }, UNHEARD_MS).unref();
    p.matches.add(matchId);
    p.state = "playing";
    return r;
  }

  /** A match another node took over: its bots already connected here join it now. */
  function joinAdopted(matchId: string, l: MatchLease): void {
    for (const botId of l.bots) {
      const p = lobby.get(botId);
      // A relay made when the bot came back, before the takeover (its dead node still beat): it follows the match.
      const r = relays.get(botId);
      if (r?.matchId === matchId) {
        r.moved(l.node);
        continue;
      }
      if (!p?.conn || live.ofBot(botId)) continue;
      relayFor(botId, matchId, l)?.attach(0, p.conn);
    }
  }

  /** Reads a match's journal, in order, and the stream sequence of its last entry. */
  async function readJournal(matchId: string): Promise<{ entries: JournalEntry[]; lastSeq: number } | null> {
    const c = await js.consumers.get(JOURNAL_STREAM, {
      filter_subjects: journalSubject(matchId),
      deliver_policy: DeliverPolicy.All,
    });
    const pending = (await c.info()).num_pending;
    const out: JournalEntry[] = [];
    let lastSeq = 0;
    if (pending === 0) return { entries: out, lastSeq };
    const msgs = await c.fetch({ max_messages: pending, expires: READ_MS });
    for await (const m of msgs) {
      const e = decodeJournal(m.data);
      if (!e) return null;
      out.push(e);
      lastSeq = m.seq;
      if (out.length === pending) break;
    }
    await c.delete().catch(() => {});
    return out.length === pending ? { entries: out, lastSeq } : null;
  }

  /** Why a journal cannot be resumed, or the resume and its setup entry. */
  function resumeOf(
    entries: JournalEntry[],
  ): string | { setup: Extract<JournalEntry, { k: "setup" }>; resume: MatchResume } {
    const setup = entries[0]?.k === "setup" ? entries[0] : null;
    if (!setup) return "the journal has no setup";
    const start = entries[1]?.k === "start" ? entries[1] : null;
    if (!start) return "the match had not begun play";
    const resume: MatchResume = { ready: start.ready, ticks: [] };
    for (const e of entries.slice(2)) {
      if (e.k !== "tick" || e.t !== resume.ticks.length) return "the journal has a gap";
      resume.ticks.push({ tick: e.t, inputs: e.in, expired: e.x, hash: e.h });
    }
    return { setup, resume };
  }

  /** Takes over one match of a dead node, or ends it by the crash rule. */
  async function takeOver(matchId: string, l: MatchLease, revision: number): Promise<void> {
    if (await answers(l.node)) return;
    let rev: number;
    try {
      rev = await kv.update(matchId, encodeMatchLease({ ...l, node: self, adopted: false }), revision);
    } catch {
      return; // another node took it first
    }
    const crash = async (why: string) => {
      log.warn(
        { match: matchId, from: l.node, why },
        "match not resumed; it ends by the crash rule (no result)",
      );
      await kv.delete(matchId).catch(() => {});
      await jsm.streams.purge(JOURNAL_STREAM, { filter: journalSubject(matchId) }).catch(() => {});
    };
    if (l.broken) return crash("its journal is behind");
    if (await o.stored(matchId)) return crash("its result is already stored");
    const read = await readJournal(matchId).catch((err: Error) => err.message);
    if (read === null || typeof read === "string")
      return crash(`its journal could not be read${read ? `: ${read}` : ""}`);
    const r = resumeOf(read.entries);
    if (typeof r === "string") return crash(r);
    const { setup, resume } = r;
    const parts: Participant[] = [];
    for (const [i, bot] of setup.bots.entries()) {
      if (setup.setup.seats[i]!.kind === "house") {
        const h = lobby.get(bot.id);
        if (!h?.house) return crash(`the house bot ${bot.name} is not hosted here`);
        parts.push(h);
        continue;
      }
      const p = lobby.get(bot.id) ?? lobby.join(bot, null);
      p.version = setup.versions[i]!;
      p.ladderId = setup.setup.ladderId;
      parts.push(p);
    }
    // The adopted match's journal (journalFor, called from adopt) appends after the last entry read here.
    resumedAt.set(matchId, read.lastSeq);
    let m: RunningMatch;
    try {
      m = live.adopt({ ...setup.setup, resume }, parts as [Participant, Participant], setup.pairing);
    } finally {
      resumedAt.delete(matchId);
    }
    takenCount++;
    log.info({ match: m.id, from: l.node, ticks: resume.ticks.length }, "match taken over");
    // Each seat listens for its bot coming back through another node's relay; one connected here joins now.
    m.seats.forEach((s, i) => {
      if (!s.remote) return;
      new RemoteSeat(nc, m.id, i, self, log).listen(m);
      if (s.participant.conn) m.attach(i, s.participant.conn);
    });
    // Only now do the other nodes hear it was taken over (their relays would speak before anyone listened).
    await kv
      .update(matchId, encodeMatchLease({ ...l, node: self, adopted: true }), rev)
      .catch((err: Error) =>
        log.warn({ err, match: matchId }, "the taken-over match's lease was not updated"),
      );
  }

  const scan = setInterval(() => {
    const alive = new Set(o.nodes().map((n) => n.node));
    if (!alive.has(self)) return; // this node is the one cut off: it takes nothing over
    for (const [matchId, { lease, revision }] of leases) {
      if (alive.has(lease.node) || trying.has(matchId)) continue;
      trying.add(matchId);
      void takeOver(matchId, lease, revision)
        .catch((err: Error) => log.error({ err, match: matchId }, "taking over a match failed"))
        .finally(() => trying.delete(matchId));
    }
  }, SCAN_MS);
  scan.unref();

  return {
    journalFor(m) {
      if (!o.journaling || m.setup.mode === "human") return null;
      const j = new MatchJournal(
        { js, jsm, kv, node: self, log, onEnded: (id) => journals.delete(id) },
        m,
        resumedAt.get(m.id),
      );
      journals.set(m.id, j);
      // Its bots whose sockets are here may come back through another node (a load balancer picks any): each such
      // seat listens for a relay, as a seat whose socket is elsewhere does from the start (placement.ts).
      m.seats.forEach((s, i) => {
        if (s.remote && s.conn) new RemoteSeat(nc, m.id, i, self, log).listen(m);
      });
      return j;
    },
    whereIs: (matchId) => leases.get(matchId)?.lease.node ?? null,
    relayOf(botId) {
      const r = relays.get(botId);
      if (r) return r;
      const matchId = adoptedBots.get(botId);
      const lease = matchId ? leases.get(matchId)?.lease : undefined;
      return matchId && lease ? relayFor(botId, matchId, lease) : undefined;
    },
    rejoin(botId) {
      // Only for a socket that just connected: a bot that heard its `end` and queues again at once must not be
      // sent back to the match before its entry is gone.
      const matchId = playingBots.get(botId);
      const lease = matchId ? leases.get(matchId)?.lease : undefined;
      if (!matchId || !lease || lease.node === self || moving.has(matchId)) return undefined;
      // A match whose node is dead is not joined here: the node that takes it over says so (joinAdopted).
      if (!o.nodes().some((n) => n.node === lease.node)) return undefined;
      return relays.get(botId) ?? relayFor(botId, matchId, lease);
    },
    taken: () => takenCount,
    async stop() {
      clearInterval(scan);
      watcher.stop();
      alive.unsubscribe();
      for (const r of [...relays.values()]) r.finish(true);
    },
  };
}
