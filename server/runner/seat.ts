// One seat of a running match as the runner keeps it (match-runner.ts): its participant and socket, its place
// in the current tick (input, deadline, messages), and what the reconnect grace and the owner's diagnostics need.
import type { SeatInput } from "../../pool/link.ts";
import type { SeatKind } from "../../pool/protocol.ts";
import type { BotConnection } from "../connection/bot-connection.ts";
import type { Participant } from "../lobby/lobby.ts";
import type { LateReply } from "./match-result.ts";

/**
 * What the runner sends a seat's bot through: its socket, or in a cluster a socket on another node reached through
 * NATS (server/cluster/remote-seat.ts).
 */
export type SeatConn = Pick<BotConnection, "send" | "sendUtf8" | "error" | "since">;

export interface Seat {
  participant: Participant;
  remote: boolean;
  conn: SeatConn | null;
  ready: boolean;
  input: SeatInput | null;
  sentAt: number;
  deadlineMs: number;
  /** performance.now() at which the seat's reply for this tick is due (sentAt + deadlineMs). */
  dueAt: number;
  messages: number;
  rateNoticeTick: number;
  /** A reconnected socket waits for its `hello`; observations go out only after it (SPEC 6.2 order). */
  resuming: boolean;
  /** performance.now() at which the seat's socket was lost; null while it is connected. */
  lostAt: number | null;
  /** The reconnect grace ran out: the seat is disqualified once the current tick is played. */
  graceOver: boolean;
  /** The last tick the seat idled as timeout, and when its reply was due (-1: none to wait for). */
  missedTick: number;
  missedDueAt: number;
  /** How late replies to missed ticks came (the owner's diagnostics; merged into the stats at the end). */
  late: LateReply[];
}

/** A seat before the match starts: a house bot's is ready at once, a remote bot's waits for its `ready`. */
export function newSeat(participant: Participant, remote: boolean, conn: SeatConn | null): Seat {
  return {
    participant,
    remote,
    conn,
    ready: !remote,
    input: null,
    sentAt: 0,
    deadlineMs: 0,
    dueAt: 0,
    messages: 0,
    rateNoticeTick: -1,
    resuming: false,
    lostAt: null,
    graceOver: false,
    missedTick: -1,
    missedDueAt: 0,
    late: [],
  };
}

export function seatKinds(a: Participant, b: Participant): [SeatKind, SeatKind] {
  const kind = (p: Participant): SeatKind =>
    p.house ? { kind: "house", name: p.house.name } : { kind: "remote" };
  return [kind(a), kind(b)];
}
