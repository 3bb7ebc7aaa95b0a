// Writes to cached tables, told to every node (issue 36). Each node keeps an in-memory copy of some tables that
// reloads when its own process writes them (the bot directory behind token checks, leaderboards and bot pages:
// server/bots/directory.ts and Store.botWrites). In a cluster another node may write them: each node publishes
// a short message on `arena.writes.<table>` after each committed write of its own, and counts the others' as a
// write (WriteCounter.bump), so its next read reloads. Plain NATS, not JetStream: a message missed while the
// connection was down is made up for by counting a write at each reconnect.
import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { WriteCounter } from "../db/track-writes.ts";
import { decodeWrite, encodeWrite } from "./codec.ts";

export const WRITES_SUBJECT = "arena.writes";

export interface SharedWrites {
  stop(): void;
}

export function shareWrites(
  nc: NatsConnection,
  node: string,
  log: Logger,
  tables: Record<string, WriteCounter>,
): SharedWrites {
  const subs: Subscription[] = [];
  for (const [table, counter] of Object.entries(tables)) {
    const subject = `${WRITES_SUBJECT}.${table}`;
    counter.onWrite(() => {
      try {
        nc.publish(subject, encodeWrite({ node, table }));
      } catch (err) {
        log.warn({ err, table }, "telling the other nodes of a write failed");
      }
    });
    subs.push(
      nc.subscribe(subject, {
        callback: (err, msg) => {
          if (err) return;
          const w = decodeWrite(msg.data);
          if (w && w.node !== node) counter.bump();
        },
      }),
    );
  }
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "reconnect") for (const c of Object.values(tables)) c.bump();
    }
  })().catch(() => {});
  return {
    stop() {
      for (const s of subs) s.unsubscribe();
    },
  };
}

/**
 * A write counter for an in-memory copy that is told of its own process's writes by `onLocal` (a bus event, for
 * a service that is the only writer of its table and updates its copy itself) and reloads with `reload` when
 * another node wrote. Reloads run one at a time; a write told during one reloads once more after it.
 */
export function reloadOnPeerWrite(
  onLocal: (listener: () => void) => void,
  reload: () => Promise<void>,
  log: Logger,
): WriteCounter {
  let generation = 0;
  let running: Promise<void> | null = null;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = reload()
      .catch((err: unknown) => log.warn({ err }, "reloading after another node's write failed"))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          run();
        }
      });
  };
  return {
    get generation() {
      return generation;
    },
    onWrite: onLocal,
    bump() {
      generation++;
      run();
    },
  };
}
