// Disconnects for the whole cluster (issue 36, part 4). Staff ban or suspend a bot, ban or delete an account, an
// owner retires a bot or gives it a new token, through any node; the bot's socket may be on another. Each node
// tells the others of every disconnect asked of it (`arena.disconnect`), and the node holding the socket closes
// it with the same connection error. The refusal of the bot's next connect needs no message: each node's bot
// directory and account reads reload on the other nodes' writes (shared-writes.ts).
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { SOCKET_ERRORS, type SocketErrorCode } from "../errors.ts";
import type { BotHub } from "../socket/hub.ts";
import { decodeDisconnect, encodeDisconnect } from "./codec.ts";
import { heldPublisher } from "./held-publish.ts";

export const DISCONNECT_SUBJECT = "arena.disconnect";

const isSocketCode = (code: string): code is SocketErrorCode => Object.hasOwn(SOCKET_ERRORS, code);

export function shareDisconnects(
  nc: NatsConnection,
  node: string,
  log: Logger,
  hub: Pick<BotHub, "onDisconnect" | "disconnectHere">,
): { stop(): void } {
  // A disconnect asked while NATS is away goes out once it is back (a second one finds no socket to close).
  const out = heldPublisher(nc, log);
  hub.onDisconnect((botId, code) => {
    try {
      out.publish(DISCONNECT_SUBJECT, encodeDisconnect({ node, bot_id: botId, code }));
    } catch (err) {
      log.warn({ err, bot: botId }, "telling the other nodes of a disconnect failed");
    }
  });
  const sub: Subscription = nc.subscribe(DISCONNECT_SUBJECT, {
    callback: (err, msg) => {
      if (err) return;
      const d = decodeDisconnect(msg.data);
      if (!d || d.node === node) return;
      if (isSocketCode(d.code)) hub.disconnectHere(d.bot_id, d.code);
      else log.warn({ code: d.code }, "a disconnect with an unknown code was passed over");
    },
  });
  return {
    stop: () => {
      out.stop();
      sub.unsubscribe();
    },
  };
}
