// Plain NATS messages to the other nodes that a NATS outage must not lose (issue 36: the shared counts and the
// disconnects). A core NATS publish is lost when the connection is down, or drops before the server has read it:
// the client empties its outgoing buffer at each reconnect attempt (nats-core's ProtocolHandler.prepare). So each
// message is confirmed by a flush (a PING the server answers after everything sent before it), and one that was
// published while the connection was down, or whose flush failed, is kept and published again once the
// connection is back, after SETTLE_MS so that the other nodes, which reconnect on their own schedule (every
// 250 ms, node.ts), have subscribed again. A message the server read whose PONG was lost is sent twice: the shared
// counts then count it twice (a limit holds a little early, never late), and a second disconnect finds no socket.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";

/** How long after a reconnect the kept messages go out. */
export const SETTLE_MS = 1_000;
/** At most this many kept messages (the oldest go first): a long outage must not grow the heap without bound. */
const MAX_HELD = 10_000;

export interface HeldPublisher {
  /** Publishes `data` on `subject`, and publishes it again after the next reconnect if it may not have arrived. */
  publish(subject: string, data: Uint8Array): void;
  /** Messages kept for the next reconnect. */
  readonly held: number;
  stop(): void;
}

export function heldPublisher(nc: NatsConnection, log: Logger, settleMs = SETTLE_MS): HeldPublisher {
  let held: [string, Uint8Array][] = [];
  let down = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const keep = (subject: string, data: Uint8Array) => {
    if (stopped) return;
    held.push([subject, data]);
    if (held.length > MAX_HELD) {
      held.splice(0, held.length - MAX_HELD);
      log.warn(
        { kept: MAX_HELD },
        "NATS has been away long: the oldest messages for the other nodes are dropped",
      );
    }
  };
  const publish = (subject: string, data: Uint8Array) => {
    if (down || nc.isClosed()) return keep(subject, data);
    try {
      nc.publish(subject, data);
    } catch {
      return keep(subject, data);
    }
    nc.flush().catch(() => keep(subject, data));
  };
  const resend = () => {
    timer = null;
    if (down || stopped) return;
    const again = held;
    held = [];
    for (const [subject, data] of again) publish(subject, data);
  };
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect") down = true;
      else if (s.type === "reconnect") {
        down = false;
        if (timer) clearTimeout(timer);
        timer = setTimeout(resend, settleMs);
        timer.unref();
      }
    }
  })().catch(() => {});
  return {
    publish,
    get held() {
      return held.length;
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      held = [];
    },
  };
}
