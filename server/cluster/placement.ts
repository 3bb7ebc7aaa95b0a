// Placement (issue 36, parts 2-3): where the holder of a ladder's matchmaker lease starts a pair it made from the
// cluster's queue (shared-queue.ts), and how the chosen node gets the two bots.
//
// - A pair whose bots are all on the holder's node (or house bots) starts there, by the single server's path.
// - Otherwise the match goes to the node holding both sockets when one does (a house bot is on every node), else
//   to the less loaded of the two socket nodes (running matches plus matches waiting for a pool thread, from the
//   heartbeats): one seat then plays across nodes (remote-seat.ts). The holder asks that node on
//   `arena.place.<node>` and holds the two bots out of its passes until the answer.
// - The chosen node claims each bot from the node holding its socket (`arena.claim.<node>`; its own bots
//   directly). The socket's node is the one authority on its bot: it grants a claim only while the bot is still
//   connected and waiting in that ladder's queue with that version, and flips it to playing in the same step, so
//   no bot is started twice whatever the entries said. If either claim fails the other is released (the bot is
//   waiting again, its queue time unchanged) and the holder frees the pair for its next pass.
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { Settings } from "../kernel/settings.ts";
import type { Ladders } from "../ladders/registry.ts";
import { type Lobby, newParticipant, type Participant } from "../lobby/lobby.ts";
import type { ClusterQueue, StartPlan } from "../matchmaker/matchmaker.ts";
import { type LiveMatches, newMatchId } from "../play/live-matches.ts";
import type { PairingRecord } from "../store/pairing-record.ts";
import {
  type Answer,
  type ClaimRequest,
  decodeAnswer,
  decodeClaim,
  decodeNotice,
  decodePlace,
  encodeAnswer,
  encodeClaim,
  encodeNotice,
  encodePlace,
  type NodeBeat,
  type PlaceRequest,
} from "./codec.ts";
import { RemoteSeat, SeatRelay } from "./remote-seat.ts";
import type { ClusterRunning } from "./running-counts.ts";
import type { SharedQueue } from "./shared-queue.ts";

const PLACE_SUBJECT = "arena.place";
const CLAIM_SUBJECT = "arena.claim";
const NOTICE_SUBJECT = "arena.notice";
const REQUEST_MS = 5_000;
/** A claimed bot whose match's node has not spoken within this is given back (a lost answer). */
const UNHEARD_MS = 10_000;
const LIVENESS_MS = 1_000;
/** A relay whose match's node died waits this long for another node to take the match over (failover.ts). */
const TAKEOVER_WAIT_MS = 15_000;

export interface PlacementOptions {
  nc: NatsConnection;
  node: string;
  log: Logger;
  lobby: Lobby;
  live: LiveMatches;
  ladders: Ladders;
  settings: Settings;
  queue: SharedQueue;
  /** The nodes whose heartbeat is current, with their figures. */
  nodes(): readonly NodeBeat[];
  /** The node running a match per its failover lease, or null when it has none (failover.ts). */
  whereIs(matchId: string): string | null;
  /** The cluster's running matches, told of each placement until the placed node's beats show it. */
  running: Pick<ClusterRunning, "placing">;
}

export interface Placement extends ClusterQueue {
  /** The relay of a bot of this node whose match runs on another node. */
  relayOf(botId: string): SeatRelay | undefined;
  /** Matches of this node's bots relayed to other nodes, and remote seats of matches here. */
  figures(): { relayed: number; remoteSeats: number };
  /** No more claims nor placements here; resolves once this node's relayed matches have ended. */
  drain(): Promise<void>;
  stop(): void;
}

export function startPlacement(o: PlacementOptions): Placement {
  const { nc, node: self, log, lobby, live, queue } = o;
  const relays = new Map<string, SeatRelay>();
  const seats = new Set<RemoteSeat>();
  const subs: Subscription[] = [];
  let draining = false;
  let relaysEnded: (() => void) | null = null;
  const ok = (match?: string): Answer => (match ? { ok: true, match } : { ok: true });
  const no = (why: string): Answer => ({ ok: false, why });

  const ask = async (subject: string, data: Uint8Array): Promise<Answer> => {
    try {
      const m = await nc.request(subject, data, { timeout: REQUEST_MS });
      return decodeAnswer(m.data) ?? no("unreadable answer");
    } catch (err) {
      return no(`no answer on ${subject}: ${(err as Error).message}`);
    }
  };

  /** Whether this node's participant may be taken for a match of this ladder and version now. */
  const claimable = (p: Participant | undefined, ladderId: string, version: string): p is Participant =>
    !!p &&
    !p.house &&
    !!p.conn &&
    p.state === "waiting" &&
    p.ladderId === ladderId &&
    (p.version ?? "") === version &&
    !lobby.held(p) &&
    !live.ofBot(p.bot.id) &&
    !relays.has(p.bot.id);

  // --- On the node holding a socket: claims and releases of its bots.
  const relayDone = (relay: SeatRelay, started: boolean): void => {
    if (relays.get(relay.botId) === relay) relays.delete(relay.botId);
    const p = relay.participant;
    p.matches.delete(relay.matchId);
    if (p.state === "playing" && !live.ofBot(p.bot.id)) p.state = started ? "idle" : "waiting";
    if (!started) {
      p.lastStartAt = relay.before.lastStartAt;
      p.starts.length = Math.min(p.starts.length, relay.before.starts);
    } else if (relay.before.ranked) p.lastMet.set(relay.before.opponent, Date.now()); // the rematch hold
    lobby.leaveIfGone(p.bot.id);
    if (relays.size === 0) relaysEnded?.();
  };
  const claim = (c: ClaimRequest): Answer => {
    if (c.op === "release") {
      const r = relays.get(c.bot_id);
      if (r && r.matchId === c.match) r.finish(false);
      return ok();
    }
    if (draining) return no("this node is draining");
    const p = lobby.get(c.bot_id);
    if (!claimable(p, c.ladder_id, c.version)) return no("not waiting here");
    const before = {
      lastStartAt: p.lastStartAt,
      starts: p.starts.length,
      ranked: c.ranked,
      opponent: c.opponent,
    };
    const now = Date.now();
    p.state = "playing";
    p.lastStartAt = now;
    if (c.ranked) p.starts.push(now);
    p.matches.add(c.match);
    relays.set(p.bot.id, new SeatRelay(nc, c.match, c.seat, p, c.node, before, log, relayDone));
    queue.forget(p.bot.id);
    return ok();
  };

  // --- On the match's node: a placement.
  const runPlaced = async (r: PlaceRequest): Promise<Answer> => {
    if (draining) return no("this node is draining");
    const limits = o.settings.limits();
    if (live.running() >= limits.maxConcurrentMatches) return no("this node is full");
    if (!o.ladders.get(r.ladder_id)) return no(`no ladder ${r.ladder_id} here`);
    const matchId = newMatchId();
    const remote = r.seats.map((s, i) => (s.node !== null && s.node !== self ? { s, i } : null));
    const claims = await Promise.all(
      remote.map((x) => {
        if (!x) return Promise.resolve(ok());
        const c: ClaimRequest = {
          op: "claim",
          match: matchId,
          seat: x.i,
          bot_id: x.s.bot.id,
          ladder_id: r.ladder_id,
          version: x.s.version,
          node: self,
          ranked: true,
          opponent: r.seats[1 - x.i]!.bot.id,
        };
        return ask(`${CLAIM_SUBJECT}.${x.s.node}`, encodeClaim(c));
      }),
    );
    // This node's own seats are checked after the awaits, with nothing in between and the start.
    const parts: Participant[] = [];
    let why: string | null = claims.find((a) => !a.ok)?.why ?? null;
    for (const s of r.seats) {
      if (why) break;
      if (s.node === null) {
        const h = lobby.get(s.bot.id);
        if (h?.house) parts.push(h);
        else why = `no house bot ${s.bot.name} here`;
      } else if (s.node === self) {
        const p = lobby.get(s.bot.id);
        if (claimable(p, r.ladder_id, s.version)) parts.push(p);
        else why = `${s.bot.name} is not waiting here`;
      } else {
        const p = newParticipant(s.bot, null);
        p.version = s.version === "" ? null : s.version;
        p.ladderId = r.ladder_id;
        p.state = "waiting";
        parts.push(p);
      }
    }
    if (why) {
      for (const [i, x] of remote.entries())
        if (x && claims[i]!.ok)
          void ask(
            `${CLAIM_SUBJECT}.${x.s.node}`,
            encodeClaim({
              op: "release",
              match: matchId,
              seat: x.i,
              bot_id: x.s.bot.id,
              ladder_id: r.ladder_id,
              version: x.s.version,
              node: self,
              ranked: true,
              opponent: r.seats[1 - x.i]!.bot.id,
            }),
          );
      return no(why);
    }
    const mine = remote.flatMap((x) => (x ? [new RemoteSeat(nc, matchId, x.i, x.s.node!, log)] : []));
    const m = live.start(
      {
        seats: parts as [Participant, Participant],
        map: r.map,
        seed: r.seed,
        pairing: r.pairing as PairingRecord,
        matchId,
      },
      r.ladder_id,
      "ranked",
    );
    for (const s of mine) {
      seats.add(s);
      s.bind(m);
      void m.ended.then(() => seats.delete(s));
    }
    log.info({ match: m.id, from: r.from, remote: mine.length }, "placed match started");
    return ok(m.id);
  };

  subs.push(
    nc.subscribe(`${PLACE_SUBJECT}.${self}`, {
      callback: (err, msg) => {
        if (err) return;
        const r = decodePlace(msg.data);
        if (!r) return void msg.respond(encodeAnswer(no("unreadable placement")));
        void runPlaced(r)
          .catch((e: Error) => no(`placement failed: ${e.message}`))
          .then((a) => msg.respond(encodeAnswer(a)));
      },
    }),
    nc.subscribe(`${CLAIM_SUBJECT}.${self}`, {
      callback: (err, msg) => {
        if (err) return;
        const c = decodeClaim(msg.data);
        msg.respond(encodeAnswer(c ? claim(c) : no("unreadable claim")));
      },
    }),
    // The matchmaker's notices to this node's bots (a quota reached: the bot stays queued and is told).
    nc.subscribe(`${NOTICE_SUBJECT}.${self}`, {
      callback: (err, msg) => {
        if (err) return;
        const n = decodeNotice(msg.data);
        if (n) lobby.get(n.bot_id)?.conn?.error(n.code, n.message);
      },
    }),
  );

  // Each side watches the other's node: one that left the heartbeat directory ends its half of the match.
  // A relay whose match's node died follows the match to the node that takes it over, while its lease says one
  // may; a match with no lease (not journaled, or ended by the crash rule) is over for its bot.
  const orphaned = new Map<SeatRelay, number>();
  const liveness = setInterval(() => {
    const alive = new Set(o.nodes().map((n) => n.node));
    for (const r of [...relays.values()]) {
      if (!alive.has(r.matchNode)) {
        const now = o.whereIs(r.matchId);
        const since = orphaned.get(r) ?? Date.now();
        if (now !== null && alive.has(now)) r.moved(now);
        else if (now === null || Date.now() - since > TAKEOVER_WAIT_MS) {
          orphaned.delete(r);
          r.nodeGone();
        } else orphaned.set(r, since);
        continue;
      }
      orphaned.delete(r);
      if (!r.heard && r.age > UNHEARD_MS) r.finish(false);
    }
    for (const s of seats) if (!alive.has(s.socketNode)) s.nodeGone();
  }, LIVENESS_MS);
  liveness.unref();

  /** Load of a node: its running matches and those waiting for a pool thread, from its last heartbeat. */
  const load = (id: string): number => {
    if (id === self) return live.running() + live.pool.queued;
    const b = o.nodes().find((n) => n.node === id);
    return b ? b.matches + b.pool.queued : Number.POSITIVE_INFINITY;
  };

  return {
    waiting: (ladderId, local) => queue.waiting(ladderId, local),
    place(plan: StartPlan, ladderId: string): boolean {
      const where = plan.seats.map((p) => (p.house ? null : queue.nodeOf(p)));
      const sockets = [...new Set(where.filter((n): n is string => n !== null))];
      if (sockets.every((n) => n === self)) return false; // the single server's path
      const target =
        sockets.length === 1 ? sockets[0]! : sockets.reduce((a, b) => (load(b) < load(a) ? b : a));
      queue.hold(plan.seats);
      const settle = o.running.placing(
        target,
        ladderId,
        plan.seats.flatMap((p) => (p.house ? [] : [p.bot.owner])),
      );
      const req: PlaceRequest = {
        from: self,
        ladder_id: ladderId,
        seats: plan.seats.map((p, i) => ({ bot: p.bot, version: p.version ?? "", node: where[i]! })) as [
          PlaceRequest["seats"][0],
          PlaceRequest["seats"][1],
        ],
        map: plan.map,
        seed: plan.seed,
        pairing: plan.pairing,
      };
      const answer =
        target === self
          ? runPlaced(req).catch((e: Error) => no(`placement failed: ${e.message}`))
          : ask(`${PLACE_SUBJECT}.${target}`, encodePlace(req));
      void answer.then((a) => {
        settle(a.ok);
        if (a.ok) {
          // The quotas of this ladder count the start now, as they do a start of this node's.
          if (a.match)
            o.ladders.get(ladderId)?.quotas.started(
              a.match,
              plan.seats.map((p) => ({ botId: p.bot.id, owner: p.bot.owner, house: p.bot.house })),
            );
          return;
        }
        queue.unhold(plan.seats);
        log.info({ ladder: ladderId, on: target, why: a.why }, "placement refused; the pair waits again");
      });
      return true;
    },
    tell(p, code, message) {
      const at = queue.nodeOf(p);
      if (at === self) return void p.conn?.error(code, message);
      try {
        nc.publish(`${NOTICE_SUBJECT}.${at}`, encodeNotice({ bot_id: p.bot.id, code, message }));
      } catch (err) {
        log.warn({ err }, "telling a bot of another node failed");
      }
    },
    relayOf: (botId) => relays.get(botId),
    figures: () => ({ relayed: relays.size, remoteSeats: seats.size }),
    drain() {
      draining = true;
      if (relays.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        relaysEnded = resolve;
      });
    },
    stop() {
      clearInterval(liveness);
      for (const s of subs) s.unsubscribe();
    },
  };
}
