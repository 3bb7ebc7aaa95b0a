// Counts per key a node sums for a moment before telling the other nodes (issue 36): one NATS message per hit would
// be thousands a second under a flood of connects or sign-ins, one message every `everyMs` carries each key's sums
// (shared-budgets.ts, shared-hits.ts: through shareCounts below). A row is the key and one count per slot; at most
// MAX_ROWS rows a message.
import type { NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { decodeHits, decodeSpends, encodeHits, encodeSpends } from "./codec.ts";
import { heldPublisher } from "./held-publish.ts";

const MAX_ROWS = 2_000;

export interface CountBatch {
  /** One more in `slot` of `key`; the batch goes out `everyMs` after its first count. */
  add(key: string, slot?: number): void;
  stop(): void;
}

export function batchCounts(
  slots: number,
  everyMs: number,
  send: (rows: [string, ...number[]][]) => void,
): CountBatch {
  let pending = new Map<string, number[]>();
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    const rows = [...pending].map(([key, counts]): [string, ...number[]] => [key, ...counts]);
    pending = new Map();
    for (let i = 0; i < rows.length; i += MAX_ROWS) send(rows.slice(i, i + MAX_ROWS));
  };
  return {
    add(key, slot = 0) {
      const counts = pending.get(key) ?? new Array<number>(slots).fill(0);
      counts[slot]!++;
      pending.set(key, counts);
      timer ??= setTimeout(flush, everyMs);
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}

/** One shared count: each key's counts from this node go out on `subject`; the other nodes' come to `elsewhere`. */
export interface SharedCountOptions {
  nc: NatsConnection;
  node: string;
  log: Logger;
  subject: string;
  /** One count per key (Hits rows), or two (Spends rows). */
  slots: 1 | 2;
  everyMs: number;
  /** What is counted, for the log line of a failed send. */
  what: string;
  elsewhere(key: string, counts: readonly number[]): void;
}

/**
 * Counts shared with the other nodes: this node's, batched per key (`add`), are sent every `everyMs`; the other
 * nodes' are handed to `elsewhere` (the shared budgets, hits and guesses). Plain NATS, so counts sent while the
 * connection is down are kept and sent again once it is back (held-publish.ts).
 */
export function shareCounts(o: SharedCountOptions): CountBatch {
  const out = heldPublisher(o.nc, o.log);
  const batch = batchCounts(o.slots, o.everyMs, (rows) => {
    try {
      out.publish(
        o.subject,
        o.slots === 1
          ? encodeHits({ node: o.node, hits: rows as [string, number][] })
          : encodeSpends({ node: o.node, spent: rows as [string, number, number][] }),
      );
    } catch (err) {
      o.log.warn({ err, subject: o.subject }, `telling the other nodes of ${o.what} failed`);
    }
  });
  const sub = o.nc.subscribe(o.subject, {
    callback: (err, msg) => {
      if (err) return;
      const m = o.slots === 1 ? decodeHits(msg.data) : decodeSpends(msg.data);
      if (!m || m.node === o.node) return;
      for (const [key, ...counts] of "hits" in m ? m.hits : m.spent) o.elsewhere(key, counts);
    },
  });
  return {
    add: (key, slot) => batch.add(key, slot),
    stop() {
      batch.stop();
      out.stop();
      sub.unsubscribe();
    },
  };
}
