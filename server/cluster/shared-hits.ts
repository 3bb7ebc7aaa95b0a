// The limits counted in hits per key for the whole cluster (issue 36, part 4): the sign-in routes' budget per client
// address (--auth-rate-limit) and the per-account throttles (bot registrations, key creations). Behind a load
// balancer without stickiness one address's (or one account's) requests spread over every node; each node tells
// the others what it counted, per key, in one message every SEND_MS (`arena.hits.<limit>`), and adds what they
// counted to its own (server/kernel/hit-log.ts). As with the socket budgets (shared-budgets.ts), a limit is overrun
// by at most what is spent on other nodes within SEND_MS and a NATS hop, and hits sent while NATS is away are lost.
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { GuessThrottle } from "../accounts/guessing.ts";
import type { HitLog } from "../kernel/hit-log.ts";
import { decodeHits, decodeSpends, encodeHits, encodeSpends } from "./codec.ts";
import { batchCounts, type CountBatch } from "./count-batch.ts";

export const HITS_SUBJECT = "arena.hits";
export const GUESSES_SUBJECT = "arena.guesses";
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

/**
 * The built-in identity provider's failed password attempts per email (server/accounts/guessing.ts): each node
 * sends, per email, the attempts and successes it counted in one message every SEND_MS (the budgets' two-count
 * rows), and the others count them as their own, so one email's guessing delay holds on every node.
 */
export function shareGuesses(
  nc: NatsConnection,
  node: string,
  log: Logger,
  guesses: Pick<GuessThrottle, "tellGuesses" | "guessedElsewhere">,
): { stop(): void } {
  const batch = batchCounts(2, SEND_MS, (rows) => {
    try {
      nc.publish(GUESSES_SUBJECT, encodeSpends({ node, spent: rows as [string, number, number][] }));
    } catch (err) {
      log.warn({ err }, "telling the other nodes of password attempts failed");
    }
  });
  guesses.tellGuesses((email, what) => batch.add(email, what === "attempt" ? 0 : 1));
  const sub = nc.subscribe(GUESSES_SUBJECT, {
    callback: (err, msg) => {
      if (err) return;
      const g = decodeSpends(msg.data);
      if (!g || g.node === node) return;
      for (const [email, attempts, successes] of g.spent)
        guesses.guessedElsewhere(email, attempts, successes);
    },
  });
  return {
    stop() {
      batch.stop();
      sub.unsubscribe();
    },
  };
}
