// Who is online in the whole cluster (issue 36, part 4: the lobbies agree on every node). Each node publishes its
// connected player bots in the JetStream key-value bucket `arena_presence` (one key per bot: the node holding its
// socket, the bot, its version, ladder and state) and watches the whole bucket, so `GET /api/lobby` on any node
// lists every node's bots with the same states (the ratings come from each node's book, which agree). House bots
// are not published: every node hosts its own. As the queue does (shared-queue.ts), publishing is a diff every
// SYNC_MS of the node's connected bots against what it last wrote, so no path that changes a bot's state needs to
// tell this file; a lobby is behind a node's state by at most SYNC_MS plus a NATS hop. Entries of nodes that left
// the heartbeat directory are ignored (their sockets are gone with them), and deleted once the node has been gone
// a while (dead-entries.ts).
import type { KV } from "@nats-io/kv";
import type { Logger } from "pino";
import { type Lobby, newParticipant, type Participant } from "../lobby/lobby.ts";
import { decodePresence, encodePresence, type PresenceEntry } from "./codec.ts";
import { DeadEntrySweep } from "./dead-entries.ts";
import { keyOf } from "./shared-queue.ts";

export const PRESENCE_BUCKET = "arena_presence";
const SYNC_MS = 250;

export interface SharedPresenceOptions {
  kv: KV;
  node: string;
  log: Logger;
  lobby: Lobby;
  /** The nodes whose heartbeat is current. */
  liveNodes(): ReadonlySet<string>;
}

export class SharedPresence {
  /** Key to the signature of the entry this node last wrote for it. */
  private readonly published = new Map<string, string>();
  /** The other nodes' bots, each as the participant a lobby read sees. */
  private readonly remote = new Map<string, { node: string; p: Participant; revision: number }>();
  private readonly timer: NodeJS.Timeout;
  private stopped = false;
  private stopWatch: (() => void) | null = null;
  private readonly dead: DeadEntrySweep;

  constructor(private readonly o: SharedPresenceOptions) {
    this.dead = new DeadEntrySweep(o.kv, o.liveNodes, o.log);
    this.timer = setInterval(() => this.sync(), SYNC_MS);
    this.timer.unref();
  }

  /** Starts following the bucket (every current entry first, then each change). */
  async watch(): Promise<void> {
    const it = await this.o.kv.watch();
    this.stopWatch = () => it.stop();
    void (async () => {
      for await (const e of it) {
        if (e.operation !== "PUT") {
          this.remote.delete(e.key);
          this.published.delete(e.key); // removed by someone else while this node still means it: write it again
          continue;
        }
        const entry = decodePresence(e.value);
        if (!entry) {
          this.o.log.warn({ key: e.key }, "unreadable presence entry (another release?)");
          continue;
        }
        if (entry.node === this.o.node) {
          this.remote.delete(e.key);
          continue;
        }
        this.published.delete(e.key); // another node holds this bot's socket now
        this.take(e.key, entry, e.revision);
      }
    })().catch((err: unknown) => {
      if (!this.stopped) this.o.log.error({ err }, "following the cluster's presence stopped");
    });
  }

  private take(key: string, entry: PresenceEntry, revision: number): void {
    const p = this.remote.get(key)?.p ?? newParticipant(entry.bot, null);
    p.bot = entry.bot;
    p.version = entry.version;
    p.ladderId = entry.ladder_id;
    p.state = entry.state;
    this.remote.set(key, { node: entry.node, p, revision });
  }

  /** Writes this node's new and changed entries and deletes those of bots no longer connected here. */
  sync(): void {
    if (this.stopped) return;
    const seen = new Set<string>();
    for (const p of this.o.lobby.all()) {
      if (p.house || !p.conn) continue;
      const key = keyOf(p.bot.id);
      seen.add(key);
      const b = p.bot;
      const sig = `${b.name}|${b.display_name}|${b.avatar}|${p.version}|${p.ladderId}|${p.state}`;
      if (this.published.get(key) === sig) continue;
      this.published.set(key, sig);
      const entry: PresenceEntry = {
        node: this.o.node,
        bot: b,
        version: p.version,
        ladder_id: p.ladderId,
        state: p.state,
      };
      this.o.kv.put(key, encodePresence(entry)).catch((err: unknown) => {
        if (this.published.get(key) === sig) this.published.delete(key); // tried again at the next sync
        this.o.log.warn({ err, bot: b.name }, "publishing a presence entry failed");
      });
    }
    for (const key of [...this.published.keys()]) {
      if (seen.has(key)) continue;
      this.published.delete(key);
      this.o.kv
        .delete(key)
        .catch((err: unknown) => this.o.log.warn({ err }, "deleting a presence entry failed"));
    }
    this.dead.sweep(() => [...this.remote].map(([key, r]) => ({ key, node: r.node, revision: r.revision })));
  }

  /** The other live nodes' connected bots, less any whose socket is on this node now. */
  elsewhere(): Participant[] {
    const live = this.o.liveNodes();
    const out: Participant[] = [];
    for (const { node, p } of this.remote.values())
      if (live.has(node) && !this.o.lobby.get(p.bot.id)?.conn) out.push(p);
    return out;
  }

  /** Stops publishing and deletes this node's entries: its sockets close with it. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.stopWatch?.();
    await Promise.all([...this.published.keys()].map((k) => this.o.kv.delete(k).catch(() => {})));
    this.published.clear();
  }
}
