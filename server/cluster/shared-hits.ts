// The limits counted in hits per key for the whole cluster (issue 36, part 4): the sign-in routes' budget per client
// address (--auth-rate-limit) and the per-account throttles (bot registrations, key creations). Behind a load
// balancer without stickiness one address's (or one account's) requests spread over every node; each node tells
// the others what it counted, per key, in one message every SEND_MS (`arena.hits.<limit>`), and adds what they
// counted to its own (server/kernel/hit-log.ts). As with the socket budgets (shared-budgets.ts), a limit is overrun
// by at most what is spent on other nodes within SEND_MS and a NATS hop, and hits sent while NATS is away are lost.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { GuessThrottle } from "../accounts/guessing.ts";
import type { HitLog } from "../kernel/hit-log.ts";
import { type CountBatch, shareCounts } from "./count-batch.ts";

export const HITS_SUBJECT = "arena.hits";
export const GUESSES_SUBJECT = "arena.guesses";
const SEND_MS = 100;

export function shareHits(
  nc: NatsConnection,
  node: string,
  log: Logger,
  logs: Record<string, HitLog>,
): Pick<CountBatch, "stop"> {
  const shared = Object.entries(logs).map(([name, hits]) => {
    const s = shareCounts({
      nc,
      node,
      log,
      subject: `${HITS_SUBJECT}.${name}`,
      slots: 1,
      everyMs: SEND_MS,
      what: `the ${name} limit's hits`,
      elsewhere: (key, [n]) => hits.hitsElsewhere(key, n!),
    });
    hits.tellHits((key) => s.add(key));
    return s;
  });
  return {
    stop() {
      for (const s of shared) s.stop();
    },
  };
}

/**
 * The built-in identity provider's failed password attempts per email (server/accounts/guessing.ts): each node
 * sends, per email, the attempts and successes it counted in one message every SEND_MS, and the others count them
 * as their own, so one email's guessing delay holds on every node.
 */
export function shareGuesses(
  nc: NatsConnection,
  node: string,
  log: Logger,
  guesses: Pick<GuessThrottle, "tellGuesses" | "guessedElsewhere">,
): Pick<CountBatch, "stop"> {
  const shared = shareCounts({
    nc,
    node,
    log,
    subject: GUESSES_SUBJECT,
    slots: 2,
    everyMs: SEND_MS,
    what: "password attempts",
    elsewhere: (email, [attempts, successes]) => guesses.guessedElsewhere(email, attempts!, successes!),
  });
  guesses.tellGuesses((email, what) => shared.add(email, what === "attempt" ? 0 : 1));
  return shared;
}
