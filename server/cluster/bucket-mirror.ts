// One node's side of a key-value bucket that every node writes its own entries to and reads everyone's from (issue
// 36): the shared queue (shared-queue.ts) and the cluster's presence (shared-presence.ts). Each node publishes a
// diff every `syncMs`: its current entries, each with a signature, against what it last wrote; a new or changed one
// is put, one it no longer has is deleted, so no code path that changes a bot's state needs to tell the bucket.
// Every node watches the whole bucket (every current entry first, then each change) and keeps the other nodes'
// entries; an entry of this node's deleted by someone else while it still means it (a bot that moved nodes, a
// sweep of a node thought gone) is written again at the next sync. The entries of a node gone from the heartbeat
// directory are deleted after a while (dead-entries.ts). A node that stops deletes its own.
import type { KV } from "@nats-io/kv";
import type { Logger } from "pino";
import { DeadEntrySweep } from "./dead-entries.ts";

/** NATS keys take letters, digits, `-`, `_`, `=`, `.` and `/`. */
export const keyOf = (botId: string) => botId.replace(/[^A-Za-z0-9_=./-]/g, "_");

/** One of this node's entries as it is now: its key, a signature that changes when it does, how to write it. */
export interface LocalEntry<E> {
  key: string;
  sig: string;
  entry(): E;
  /** Named in the log line of a failed put. */
  label: string;
}

export interface BucketMirrorOptions<E extends { node: string }> {
  kv: KV;
  node: string;
  log: Logger;
  /** The nodes whose heartbeat is current. */
  liveNodes(): ReadonlySet<string>;
  syncMs: number;
  /** What the bucket holds, for log lines ("queue entry", "presence entry"). */
  what: string;
  encode(e: E): Uint8Array;
  decode(bytes: Uint8Array): E | null;
  /** This node's entries now. */
  local(now: number): Iterable<LocalEntry<E>>;
  /** Another node's entry, new or changed. */
  taken(key: string, entry: E): void;
  /** An entry of another node gone from the bucket, or now written by this node. */
  dropped(key: string): void;
}

export class BucketMirror<E extends { node: string }> {
  /** Key to the signature of the entry this node last wrote for it. */
  private readonly published = new Map<string, string>();
  /** The other nodes' entries: key to node and revision (for the dead-entry sweep). */
  private readonly remote = new Map<string, { node: string; revision: number }>();
  private readonly timer: NodeJS.Timeout;
  private readonly dead: DeadEntrySweep;
  private stopped = false;
  private watching: Promise<void> = Promise.resolve();
  private stopWatch: (() => void) | null = null;

  constructor(private readonly o: BucketMirrorOptions<E>) {
    this.dead = new DeadEntrySweep(o.kv, o.liveNodes, o.log);
    this.timer = setInterval(() => this.sync(), o.syncMs);
    this.timer.unref();
  }

  /** Starts following the bucket (every current entry first, then each change). */
  async watch(): Promise<void> {
    const it = await this.o.kv.watch();
    this.stopWatch = () => it.stop();
    this.watching = (async () => {
      for await (const e of it) {
        if (e.operation !== "PUT") {
          this.drop(e.key);
          this.published.delete(e.key); // removed by someone else while this node still means it: write it again
          continue;
        }
        const entry = this.o.decode(e.value);
        if (!entry) {
          this.o.log.warn({ key: e.key }, `unreadable ${this.o.what} (another release?)`);
          continue;
        }
        if (entry.node === this.o.node) {
          this.drop(e.key);
          continue;
        }
        this.published.delete(e.key); // another node holds this bot's socket now
        this.remote.set(e.key, { node: entry.node, revision: e.revision });
        this.o.taken(e.key, entry);
      }
    })().catch((err: unknown) => {
      if (!this.stopped) this.o.log.error({ err }, `following the bucket of each ${this.o.what} stopped`);
    });
  }

  private drop(key: string): void {
    if (this.remote.delete(key)) this.o.dropped(key);
  }

  /** Writes this node's new and changed entries, deletes those it no longer has, sweeps gone nodes' entries. */
  sync(now = Date.now()): void {
    if (this.stopped) return;
    const seen = new Set<string>();
    for (const l of this.o.local(now)) {
      seen.add(l.key);
      if (this.published.get(l.key) === l.sig) continue;
      this.published.set(l.key, l.sig);
      const key = l.key;
      const sig = l.sig;
      this.o.kv.put(key, this.o.encode(l.entry())).catch((err: unknown) => {
        if (this.published.get(key) === sig) this.published.delete(key); // tried again at the next sync
        this.o.log.warn({ err, bot: l.label }, `publishing a ${this.o.what} failed`);
      });
    }
    for (const key of [...this.published.keys()]) if (!seen.has(key)) this.forget(key);
    this.dead.sweep(
      () => [...this.remote].map(([key, r]) => ({ key, node: r.node, revision: r.revision })),
      now,
    );
  }

  /** Deletes this node's entry at once (its bot was claimed for a match, or left). */
  forget(key: string): void {
    if (!this.published.delete(key)) return;
    this.o.kv
      .delete(key)
      .catch((err: unknown) => this.o.log.warn({ err }, `deleting a ${this.o.what} failed`));
  }

  /** Stops publishing and following, and deletes this node's entries: its sockets close with it. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.timer);
    this.stopWatch?.();
    await this.watching;
    const keys = [...this.published.keys()];
    this.published.clear();
    await Promise.all(keys.map((k) => this.o.kv.delete(k).catch(() => {})));
  }
}
