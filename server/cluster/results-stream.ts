// The results stream (issue 36, part 4): every result a node commits to the database is then published on the
// JetStream stream `arena_results`, and every node follows the stream so its in-memory copies of the ladder state
// (rating books, leaderboards, bot health, and through the books the lobby's ratings) count every node's results.
//
// - Published after the commit, never before: the database stays the source of truth, and the durable path of a
//   single server (commit, or journal and retry) is unchanged; a journaled result is published once it reaches
//   the database. A publish that fails (NATS away) is retried, oldest first, until it is acknowledged; the match
//   id is the message id, so a retry JetStream already has is dropped by the stream (its duplicate window).
// - Followed with an ordered consumer from the stream's last message at the time this node joined: the books
//   loaded from the database before, so what was published before is counted already. A node skips its own
//   results (its runner and its MatchFinished counted them) and any match id it has seen. Each result is handed
//   to the bus as PeerResult; MatchFinished (mail, achievements, events) stays the committing node's alone.
import {
  type ConsumerMessages,
  DeliverPolicy,
  DiscardPolicy,
  type JetStreamClient,
  jetstream,
  jetstreamManager,
  StorageType,
} from "@nats-io/jetstream";
import { type NatsConnection, nanos } from "@nats-io/transport-node";
import type { Logger } from "pino";
import type { MatchRecord } from "../store/types.ts";
import { decodeResult, encodeResult, type SharedResult } from "./codec.ts";

export const RESULTS_STREAM = "arena_results";
/** One subject per ladder: `arena.results.<ladder id>` (a consumer could follow some ladders only). */
export const RESULTS_SUBJECT = "arena.results";
/** How long the stream keeps a result: a follower only reads what was published after it joined. */
const KEEP_MS = 24 * 3600_000;
/** Within this window a message id seen again is dropped by the stream (a publish retried after a lost ack). */
const DUPLICATE_WINDOW_MS = 10 * 60_000;
/** Match ids a follower remembers, to skip a result delivered twice (e.g. published again after the window). */
const SEEN_MAX = 10_000;
const RETRY_MIN_MS = 250;
const PULL_EXPIRES_MS = 2_000;
const RETRY_MAX_MS = 10_000;

const subjectOf = (ladderId: string) => `${RESULTS_SUBJECT}.${ladderId.replace(/[^A-Za-z0-9_-]/g, "_")}`;

export interface ResultsStreamOptions {
  nc: NatsConnection;
  node: string;
  log: Logger;
  /** A result another node committed, in stream order (the feature hands it to the bus as PeerResult). */
  onPeerResult(r: SharedResult): void | Promise<void>;
}

export interface ResultsStream {
  /** A result this node committed: published now, or retried until NATS takes it. */
  publish(match: MatchRecord): void;
  /** Results committed here and not yet acknowledged by the stream. */
  pending(): number;
  /** Results of other nodes taken in since this node joined. */
  followed(): number;
  stop(): Promise<void>;
}

/** Creates (or keeps) the stream, then follows it from its current end. */
export async function openResultsStream(o: ResultsStreamOptions): Promise<ResultsStream> {
  const jsm = await jetstreamManager(o.nc);
  const config = {
    name: RESULTS_STREAM,
    subjects: [`${RESULTS_SUBJECT}.>`],
    storage: StorageType.File,
    max_age: nanos(KEEP_MS),
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    discard: DiscardPolicy.Old,
  };
  const info = await jsm.streams.info(RESULTS_STREAM).catch(() => null);
  const last = info
    ? info.state.last_seq
    : (await jsm.streams.add(config).catch(async () => jsm.streams.info(RESULTS_STREAM))).state.last_seq;
  const js: JetStreamClient = jetstream(o.nc);

  // Publishing: one at a time, in commit order, retried with backoff while NATS does not acknowledge.
  const queue: MatchRecord[] = [];
  let sending = false;
  let stopped = false;
  let retryMs = RETRY_MIN_MS;
  let timer: NodeJS.Timeout | null = null;
  const send = async (): Promise<void> => {
    if (sending || stopped) return;
    sending = true;
    try {
      while (queue.length > 0 && !stopped) {
        const m = queue[0]!;
        try {
          await js.publish(subjectOf(m.ladder_id), encodeResult({ node: o.node, match: m }), {
            msgID: m.id,
          });
          queue.shift();
          retryMs = RETRY_MIN_MS;
        } catch (err) {
          o.log.warn({ err, match: m.id, pending: queue.length }, "publishing a result failed; retrying");
          timer = setTimeout(() => {
            timer = null;
            void send();
          }, retryMs);
          timer.unref();
          retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
          return;
        }
      }
    } finally {
      sending = false;
    }
  };

  // Following: an ordered consumer (it re-creates itself after a reconnect and never skips or repeats a message).
  const seen = new Set<string>();
  let followedCount = 0;
  const consumer = await js.consumers.get(RESULTS_STREAM, {
    deliver_policy: DeliverPolicy.StartSequence,
    opt_start_seq: last + 1,
  });
  // Short pulls (and so heartbeats every second): after NATS itself restarts, the consumer notices the missed
  // heartbeats and re-creates itself within seconds rather than the client's default of a minute.
  const messages: ConsumerMessages = await consumer.consume({ expires: PULL_EXPIRES_MS });
  const following = (async () => {
    for await (const msg of messages) {
      const r = decodeResult(msg.data);
      if (!r) {
        o.log.warn({ seq: msg.seq }, "unreadable result on the results stream (another release?)");
        continue;
      }
      if (r.node === o.node || seen.has(r.match.id)) continue;
      seen.add(r.match.id);
      if (seen.size > SEEN_MAX) seen.delete(seen.values().next().value!);
      followedCount++;
      try {
        await o.onPeerResult(r);
      } catch (err) {
        o.log.error({ err, match: r.match.id }, "taking in another node's result failed");
      }
    }
  })().catch((err: unknown) => o.log.error({ err }, "following the results stream stopped"));
  o.log.info({ stream: RESULTS_STREAM, from: last + 1 }, "following the results stream");

  return {
    publish(match) {
      queue.push(match);
      void send();
    },
    pending: () => queue.length,
    followed: () => followedCount,
    async stop() {
      // One last attempt for what waits (bounded: a node that cannot reach NATS still stops).
      if (timer) clearTimeout(timer);
      timer = null;
      if (queue.length > 0) await Promise.race([send(), sleep(2_000)]);
      stopped = true;
      if (queue.length > 0)
        o.log.warn(
          { pending: queue.length },
          "results not published before stopping (other nodes reload them at restart)",
        );
      await messages.close().catch(() => {});
      await following;
    },
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
