// The per-address socket budgets for the whole cluster (issue 36, part 4). Each node keeps its own token buckets
// (server/socket/address-limits.ts); behind a load balancer without stickiness one address's connects spread over
// every node, so per-node buckets would let it through N times its budget. Each node tells the others what it
// spent, per address, in one message every SEND_MS (`arena.spend`), and charges what they spent to its own
// buckets: an address then has one budget in the cluster, overrun by at most what it can spend on the other nodes
// within SEND_MS plus a NATS hop. Plain NATS, not JetStream: a message lost while the connection is down loses
// those units, which only lets an address a little more through, never less.
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { AddressLimits } from "../socket/address-limits.ts";
import { decodeSpends, encodeSpends } from "./codec.ts";

export const SPEND_SUBJECT = "arena.spend";
const SEND_MS = 100;
/** At most this many addresses a message; a flood over more addresses is sent in several. */
const MAX_ENTRIES = 2_000;

export function shareBudgets(
  nc: NatsConnection,
  node: string,
  log: Logger,
  limits: Pick<AddressLimits, "tellSpends" | "spentElsewhere">,
): { stop(): void } {
  /** Units spent here since the last message: connects, failures, by address. */
  let pending = new Map<string, [number, number]>();
  let timer: NodeJS.Timeout | null = null;
  const send = () => {
    timer = null;
    const batch = [...pending].map(([addr, [c, f]]): [string, number, number] => [addr, c, f]);
    pending = new Map();
    for (let i = 0; i < batch.length; i += MAX_ENTRIES) {
      try {
        nc.publish(SPEND_SUBJECT, encodeSpends({ node, spent: batch.slice(i, i + MAX_ENTRIES) }));
      } catch (err) {
        log.warn({ err }, "telling the other nodes of address budget spends failed");
        return;
      }
    }
  };
  limits.tellSpends((addr, spend) => {
    const e = pending.get(addr) ?? [0, 0];
    e[spend === "connect" ? 0 : 1]++;
    pending.set(addr, e);
    timer ??= setTimeout(send, SEND_MS);
  });
  const sub: Subscription = nc.subscribe(SPEND_SUBJECT, {
    callback: (err, msg) => {
      if (err) return;
      const s = decodeSpends(msg.data);
      if (!s || s.node === node) return;
      for (const [addr, c, f] of s.spent) limits.spentElsewhere(addr, c, f);
    },
  });
  return {
    stop() {
      if (timer) clearTimeout(timer);
      sub.unsubscribe();
    },
  };
}
