// What a bot socket may send (SPEC 8's message limits, reported in operational_policy) and how a queue request is
// refused. The hub, human play, the live matches and the ladders' policy read them; they sit here, below all of
// them, so none of those imports the hub for a number.
import type { SocketErrorCode } from "../errors.ts";

export const MAX_MESSAGE_BYTES = 4096;
export const MESSAGES_PER_TICK = 5;
export const IDLE_MESSAGES_PER_SECOND = 50;

/** Why a `queue` was refused: the socket error the bot receives. */
export interface QueueRefusal {
  code: SocketErrorCode;
  message: string;
}
