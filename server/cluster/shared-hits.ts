// The limits counted in hits per key for the whole cluster (issue 36, part 4): the sign-in routes' budget per client
// address (--auth-rate-limit) and the per-account throttles (bot registrations, key creations). Behind a load
// balancer without stickiness one address's (or one account's) requests spread over every node; each node tells
// the others what it counted, per key, in one message every SEND_MS (`arena.hits.<limit>`), and adds what they
// counted to its own (server/kernel/hit-log.ts). As with the socket budgets (shared-budgets.ts), a limit is overrun
// by at most what is spent on other nodes within SEND_MS and a NATS hop, and hits sent while NATS is away are lost.
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { HitLog } from "../kernel/hit-log.ts";
import { decodeHits, encodeHits } from "./codec.ts";
import { batchCounts, type CountBatch } from "./count-batch.ts";

export const HITS_SUBJECT = "arena.hits";
const SEND_MS = 100;

export function shareHits(
  nc: NatsConnection,
  node: string,
  log: Logger,
  logs: Record<string, HitLog>,
): { stop(): void } {
  const subs: Subscription[] = [];
  const batches: CountBatch[] = [];
  for (const [name, hits] of Object.entries(logs)) {
    const subject = `${HITS_SUBJECT}.${name}`;
    const batch = batchCounts(1, SEND_MS, (rows) => {
      try {
        nc.publish(subject, encodeHits({ node, hits: rows as [string, number][] }));
      } catch (err) {
        log.warn({ err, limit: name }, "telling the other nodes of a limit's hits failed");
      }
    });
    batches.push(batch);
    hits.tellHits((key) => batch.add(key));
    subs.push(
      nc.subscribe(subject, {
        callback: (err, msg) => {
          if (err) return;
          const h = decodeHits(msg.data);
          if (!h || h.node === node) return;
          for (const [key, n] of h.hits) hits.hitsElsewhere(key, n);
        },
      }),
    );
  }
  return {
    stop() {
      for (const b of batches) b.stop();
      for (const s of subs) s.unsubscribe();
    },
  };
}
