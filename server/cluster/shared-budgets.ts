// The per-address socket budgets for the whole cluster (issue 36, part 4). Each node keeps its own token buckets
// (server/socket/address-limits.ts); behind a load balancer without stickiness one address's connects spread over
// every node, so per-node buckets would let it through N times its budget. Each node tells the others what it
// spent, per address, in one message every SEND_MS (`arena.spend`), and charges what they spent to its own
// buckets: an address then has one budget in the cluster, overrun by at most what it can spend on the other nodes
// within SEND_MS plus a NATS hop. Plain NATS, not JetStream: a message lost while the connection is down loses
// those units, which only lets an address a little more through, never less.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { AddressLimits } from "../socket/address-limits.ts";
import { type CountBatch, shareCounts } from "./count-batch.ts";

export const SPEND_SUBJECT = "arena.spend";
const SEND_MS = 100;

export function shareBudgets(
  nc: NatsConnection,
  node: string,
  log: Logger,
  limits: Pick<AddressLimits, "tellSpends" | "spentElsewhere">,
): Pick<CountBatch, "stop"> {
  const shared = shareCounts({
    nc,
    node,
    log,
    subject: SPEND_SUBJECT,
    slots: 2,
    everyMs: SEND_MS,
    what: "address budget spends",
    elsewhere: (addr, [connects, failures]) => limits.spentElsewhere(addr, connects!, failures!),
  });
  limits.tellSpends((addr, spend) => shared.add(addr, spend === "connect" ? 0 : 1));
  return shared;
}
