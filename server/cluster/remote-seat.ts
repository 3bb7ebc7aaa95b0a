// Cross-node play (issue 36, part 3): a bot whose socket is on another node than its match plays through two
// per-match NATS subjects, `arena.seat.<match>.<seat>.in` (its messages, and its socket going and coming back) and
// `.out` (hello, observations, errors, end). Two halves:
//
// - `RemoteSeat`, on the match's node, is what the runner sends to instead of a socket (it has the three methods
//   the runner uses of one), and hands the runner what arrives on `.in` as the hub hands it a socket's message.
//   The runner is the same code as for a local socket: the deadlines, the match budget, the per-tick message limit
//   and the reconnect grace apply unchanged; a reply's time is counted from when the observation left the match's
//   node, so the two NATS hops are the bot's (measured by `npm run bench -- --cluster`).
// - `SeatRelay`, on the node holding the socket, is what the hub finds as the bot's match (a SeatedMatch): it
//   forwards the socket's messages to `.in` and writes what comes on `.out` to the socket. Outside the ticks the
//   hub's per-second limit applies on this node, as for a local match (`playing` follows the match's node).
//
// Plain NATS (at most once), as a socket is: a message lost while NATS is away is a missed tick, as a slow network
// is. Two nodes may hold a socket of the same bot at once: a node that was cut off and woke up still has the bot's
// old socket (its close not yet read) when it hears that its match went on elsewhere, and relays it there too. The
// newer socket wins, as a `replaced` one does on one node: an attach of an older socket than the seat's is passed
// over, a detach counts only from the relay the seat has now, and a message only while the seat's socket is a
// relay's (not one the bot opened on the match's node itself). "Older" compares the connect times of two nodes'
// clocks, which differ by far less than a cut-off takes to be noticed (the heartbeat).
// A node that leaves the heartbeat directory ends its side: the relay tells its bot the match was aborted;
// the match's node counts the seat as disconnected (its grace runs, then the forfeit of SPEC 3.3).
import { randomUUID } from "node:crypto";
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { ServerMessageT } from "../../engine/protocol.ts";
import type { MessageHead } from "../connection/message-head.ts";
import { SOCKET_ERRORS, type SocketErrorCode } from "../errors.ts";
import type { Participant } from "../lobby/lobby.ts";
import type { RunningMatch } from "../runner/match-runner.ts";
import type { SeatConn } from "../runner/seat.ts";
import type { SeatedMatch } from "../socket/hub.ts";
import { decodeIn, decodeOut, encodeIn, encodeOut, type SeatOut } from "./codec.ts";

export const SEAT_SUBJECT = "arena.seat";
const subject = (match: string, seat: number, dir: "in" | "out") => `${SEAT_SUBJECT}.${match}.${seat}.${dir}`;

/** On the match's node: one seat whose socket is on `socketNode`. */
export class RemoteSeat implements SeatConn {
  private match: RunningMatch | null = null;
  private readonly sub: Subscription;
  private readonly head: MessageHead = { type: "other", tick: null };
  private gone = false;
  /** The relay attached last, and when its socket connected (null: none has said so, as when bound at start). */
  private relay: { r: string; at: number } | null = null;

  constructor(
    private readonly nc: NatsConnection,
    readonly matchId: string,
    readonly seat: number,
    readonly socketNode: string,
    private readonly log: Logger,
  ) {
    this.sub = nc.subscribe(subject(matchId, seat, "in"), {
      callback: (err, msg) => {
        // A copy that another node took over (this node was cut off) no longer takes the bot's socket.
        if (err || !this.match || this.match.movedTo !== null) return;
        const m = decodeIn(msg.data);
        if (!m) return void this.log.warn({ match: matchId }, "unreadable seat message");
        const now = this.match.seats[seat]!.conn;
        if (m.k === "attach") {
          // A socket older than the seat's (another node's stale one): passed over.
          if (now && (m.at ?? 0) < now.since && !(now === this && this.relay?.r === m.r)) return;
          this.relay = m.r !== undefined ? { r: m.r, at: m.at ?? 0 } : null;
          this.gone = false;
          this.match.attach(seat, this);
          // Heard at once, whatever the match sends next (a match re-simulated after a takeover says hello only
          // when it is done): a relay that hears nothing takes the match to be over.
          this.out({});
        } else if (now !== this) {
          return; // the seat has another socket now (the bot connected to the match's node itself)
        } else if (m.k === "detach") {
          if (this.relay && this.relay.r !== m.r) return; // from a relay the seat has moved away from
          this.relay = null;
          this.match.detach(seat);
        } else {
          this.head.type = m.type ?? "other";
          this.head.tick = m.tick ?? null;
          this.match.fromSocket(seat, this.head, m.b ?? null);
        }
      },
    });
  }

  /** When the seat's socket (on the other node) connected, as far as its relay said (0: not said). */
  get since(): number {
    return this.relay?.at ?? 0;
  }

  /** The match has started: this seat is its bot's connection; the relay hears that the match is on. */
  bind(match: RunningMatch): void {
    this.listen(match);
    match.attach(this.seat, this);
    this.out({});
  }

  /** A match taken over from a dead node (failover.ts): the bot may come back through a relay; none is attached yet. */
  listen(match: RunningMatch): void {
    this.match = match;
    void match.ended.then(() => {
      // The relays hear the match is over, unless it goes on at the node that took it over.
      if (match.movedTo === null) this.out({ done: true });
      this.sub.unsubscribe();
    });
  }

  private out(m: Omit<SeatOut, "p">): void {
    if (this.match?.movedTo) return; // a cut-off node's copy: the relays hear the node that took the match over
    try {
      this.nc.publish(
        subject(this.matchId, this.seat, "out"),
        encodeOut({ p: this.match?.playing ?? false, ...m }),
      );
    } catch (err) {
      this.log.warn({ err, match: this.matchId }, "sending to a remote seat failed");
    }
  }

  send(msg: string | ServerMessageT): void {
    this.out({ s: typeof msg === "string" ? msg : JSON.stringify(msg) });
  }

  sendUtf8(bytes: Uint8Array): void {
    this.out({ b: bytes });
  }

  error(code: SocketErrorCode, message?: string): void {
    this.send({ type: "error", code, message: message ?? SOCKET_ERRORS[code] });
  }

  /** The socket's node left the cluster: the seat is disconnected (its grace runs). */
  nodeGone(): void {
    if (this.gone || !this.match || this.match.seats[this.seat]!.conn !== this) return;
    this.gone = true;
    this.match.detach(this.seat);
  }
}

/** On the node holding the socket: the bot's match, which runs on `matchNode`. */
export class SeatRelay implements SeatedMatch {
  playing = false;
  /** The match's node has spoken (the match started there). */
  heard = false;
  private conn: SeatConn | null;
  private readonly sub: Subscription;
  private readonly claimedAt = Date.now();
  private over = false;
  /** Names this relay in its attach and detach (a bot may have a relay on two nodes at once). */
  private readonly id = randomUUID();

  constructor(
    private readonly nc: NatsConnection,
    readonly matchId: string,
    readonly seat: number,
    readonly participant: Participant,
    public matchNode: string,
    /** The lobby state before the claim, put back if the match never starts; and whom the bot meets. */
    readonly before: { lastStartAt: number; starts: number; ranked: boolean; opponent: string },
    private readonly log: Logger,
    private readonly onDone: (relay: SeatRelay, started: boolean) => void,
  ) {
    this.conn = participant.conn;
    this.sub = nc.subscribe(subject(matchId, seat, "out"), {
      callback: (err, msg) => {
        if (err) return;
        const m = decodeOut(msg.data);
        if (!m) return void this.log.warn({ match: matchId }, "unreadable seat message");
        if (!this.heard) {
          this.heard = true;
          // The socket went between the claim and the match's start, before the match's node listened.
          if (!this.conn) this.publish({ k: "detach", r: this.id });
        }
        this.playing = m.p;
        if (m.s !== undefined) this.conn?.send(m.s);
        if (m.b !== undefined) this.conn?.sendUtf8(m.b);
        if (m.done) this.finish(true);
      },
    });
  }

  get botId(): string {
    return this.participant.bot.id;
  }

  get age(): number {
    return Date.now() - this.claimedAt;
  }

  seatOf(botId: string): number {
    return botId === this.botId ? this.seat : -1;
  }

  fromSocket(_seat: number, head: MessageHead, bytes: Uint8Array | null): void {
    this.publish({ k: "msg", type: head.type, tick: head.tick, b: bytes });
  }

  attach(_seat: number, conn: SeatConn): void {
    this.conn = conn;
    this.publish({ k: "attach", r: this.id, at: conn.since });
  }

  detach(_seat: number): void {
    this.conn = null;
    this.publish({ k: "detach", r: this.id });
  }

  private publish(m: Parameters<typeof encodeIn>[0]): void {
    try {
      this.nc.publish(subject(this.matchId, this.seat, "in"), encodeIn(m));
    } catch (err) {
      this.log.warn({ err, match: this.matchId }, "forwarding to a remote match failed");
    }
  }

  /** Another node took the match over (failover.ts): the bot's socket joins it there. */
  moved(node: string): void {
    if (this.over || node === this.matchNode) return;
    this.matchNode = node;
    if (this.conn) this.publish({ k: "attach", r: this.id, at: this.conn.since });
  }

  /** The match's node left the cluster mid-match: the bot hears the match is over, void. */
  nodeGone(): void {
    if (this.over) return;
    this.conn?.error("match_aborted", "the node running this match stopped; the match is void for this bot");
    this.finish(true);
  }

  /** The match is over (`started`), or never started (released, or never heard of): the bot is idle again. */
  finish(started: boolean): void {
    if (this.over) return;
    this.over = true;
    this.sub.unsubscribe();
    this.onDone(this, started);
  }
}
