// The cluster's queue (issue 36, part 2): each node publishes its own queued bots in the JetStream key-value
// bucket `arena_queue` (one key per bot, the value says which node holds its socket), and every node watches the
// whole bucket, so the holder of a ladder's matchmaker lease pairs the whole cluster's queue, and a node that
// takes the lease after the holder died already knows it (the entries were written by the nodes holding the
// sockets, not by the dead matchmaker, and the bucket is kept by NATS). docs/architecture.md says why a bucket and
// not a stream.
//
// - Publishing is a diff, every 100 ms (bucket-mirror.ts): the node's waiting bots (connected, queued, not claimed
//   by a scrimmage) against what it last wrote; a new or changed entry is put, a bot that left, disconnected or
//   started a match is deleted. So no path that changes a bot's lobby state needs to tell this file.
// - An entry is only a hint: the node holding the socket decides, when the match's node claims the bot
//   (placement.ts), whether it is still waiting, and flips it to playing in the same step. A bot is thus started
//   at most once, whatever the entries said and however late a deletion arrived.
// - Entries of nodes that are not in the heartbeat directory are ignored (their sockets are gone with them), and
//   deleted once the node has been gone a while (dead-entries.ts).
// - A placement under way holds its bots (`hold`) so the next pass does not pair them again before the answer.
import type { KV } from "@nats-io/kv";
import type { Logger } from "pino";
import { type Lobby, newParticipant, type Participant } from "../lobby/lobby.ts";
import { REMATCH_HOLD_MS } from "../matchmaker/matchmaker.ts";
import { BucketMirror, keyOf, type LocalEntry } from "./bucket-mirror.ts";
import { decodeEntry, encodeEntry, type QueueEntry } from "./codec.ts";

export const QUEUE_BUCKET = "arena_queue";
const SYNC_MS = 100;
/** How long a placement may keep its bots out of the passes before its answer (it normally takes milliseconds). */
const HOLD_MS = 10_000;
const HOUR_MS = 3_600_000;

export interface SharedQueueOptions {
  kv: KV;
  node: string;
  log: Logger;
  lobby: Lobby;
  /** The nodes whose heartbeat is current. */
  liveNodes(): ReadonlySet<string>;
  /** Another node's bot has queued (or queued again): the matchmakers may pass now. */
  changed?(): void;
}

export class SharedQueue {
  /** The other nodes' entries, each with the participant the matchmaker sees for it. */
  private readonly remote = new Map<string, { entry: QueueEntry; p: Participant }>();
  /** Bots of a placement under way: until when, and the queue time they were held at. */
  private readonly held = new Map<string, { until: number; queuedAt: number }>();
  private readonly mirror: BucketMirror<QueueEntry>;

  constructor(private readonly o: SharedQueueOptions) {
    this.mirror = new BucketMirror<QueueEntry>({
      kv: o.kv,
      node: o.node,
      log: o.log,
      liveNodes: o.liveNodes,
      syncMs: SYNC_MS,
      what: "queue entry",
      encode: encodeEntry,
      decode: decodeEntry,
      local: (now) => this.localEntries(now),
      taken: (key, entry) => {
        this.take(key, entry);
        this.o.changed?.();
      },
      dropped: (key) => this.remote.delete(key),
    });
  }

  /** Starts following the bucket (every current entry first, then each change). */
  watch(): Promise<void> {
    return this.mirror.watch();
  }

  private take(key: string, entry: QueueEntry): void {
    const known = this.remote.get(key);
    const p = known?.p ?? newParticipant(entry.bot, null);
    p.bot = entry.bot;
    p.state = "waiting";
    p.version = entry.version;
    p.ladderId = entry.ladder_id;
    p.queuedAt = entry.queued_at;
    p.lastStartAt = entry.last_start_at;
    p.starts = [...entry.starts];
    p.lastMet = new Map(entry.last_met);
    this.remote.set(key, { entry, p });
  }

  /** This node's bots that wait in a ranked queue, as the entries it publishes. */
  private *localEntries(now: number): Iterable<LocalEntry<QueueEntry>> {
    const { lobby } = this.o;
    for (const p of lobby.all()) {
      if (p.house || !p.conn || p.state !== "waiting" || lobby.held(p)) continue;
      yield {
        key: keyOf(p.bot.id),
        sig: `${p.ladderId}|${p.version}|${p.queuedAt}|${p.lastStartAt}`,
        label: p.bot.name,
        entry: () => ({
          node: this.o.node,
          bot: p.bot,
          version: p.version ?? "",
          ladder_id: p.ladderId,
          queued_at: p.queuedAt,
          last_start_at: p.lastStartAt,
          starts: p.starts.filter((t) => now - t < HOUR_MS),
          last_met: [...p.lastMet].filter(([, t]) => now - t < REMATCH_HOLD_MS * 10),
        }),
      };
    }
  }

  /** Writes this node's new and changed entries and deletes those that no longer wait. */
  sync(now = Date.now()): void {
    this.mirror.sync(now);
  }

  /** Deletes this node's entry for a bot at once (it was claimed for a match, or left). */
  forget(botId: string): void {
    this.mirror.forget(keyOf(botId));
  }

  /** A ladder's queue across the cluster: this node's waiting bots and the other live nodes' ones. */
  waiting(ladderId: string, local: Participant[], now = Date.now()): Participant[] {
    const live = this.o.liveNodes();
    const out = local.filter((p) => !this.isHeld(p, now));
    for (const { entry, p } of this.remote.values()) {
      if (entry.ladder_id !== ladderId || !live.has(entry.node) || this.isHeld(p, now)) continue;
      if (this.o.lobby.get(p.bot.id)?.conn) continue; // its socket is here now: the lobby's participant counts
      out.push(p);
    }
    return out.sort((a, b) => a.queuedAt - b.queuedAt);
  }

  /** The node holding a participant's socket: another node for a bot of the shared queue, else this one. */
  nodeOf(p: Participant): string {
    const r = this.remote.get(keyOf(p.bot.id));
    return r && r.p === p ? r.entry.node : this.o.node;
  }

  private isHeld(p: Participant, now: number): boolean {
    const h = this.held.get(p.bot.id);
    if (!h) return false;
    if (now < h.until && h.queuedAt === p.queuedAt) return true;
    this.held.delete(p.bot.id);
    return false;
  }

  /** Keeps these bots out of the passes while a placement of them is under way. */
  hold(ps: readonly Participant[], now = Date.now()): void {
    for (const p of ps) if (!p.house) this.held.set(p.bot.id, { until: now + HOLD_MS, queuedAt: p.queuedAt });
  }

  /** The placement failed: its bots may be paired again. */
  unhold(ps: readonly Participant[]): void {
    for (const p of ps) this.held.delete(p.bot.id);
  }

  /** Bots of other nodes in the shared queue (the status and the tests). */
  get remoteCount(): number {
    return this.remote.size;
  }

  /** A node that stops takes its bots out of the shared queue (their sockets close with it). */
  stop(): Promise<void> {
    return this.mirror.stop();
  }
}
