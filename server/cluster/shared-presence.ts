// Who is online in the whole cluster (issue 36, part 4: the lobbies agree on every node). Each node publishes its
// connected player bots in the JetStream key-value bucket `arena_presence` (one key per bot: the node holding its
// socket, the bot, its version, ladder and state) and watches the whole bucket, so `GET /api/lobby` on any node
// lists every node's bots with the same states (the ratings come from each node's book, which agree). House bots
// are not published: every node hosts its own. As the queue does (shared-queue.ts), publishing is a diff every
// SYNC_MS of the node's connected bots against what it last wrote (bucket-mirror.ts), so no path that changes a bot's state needs to
// tell this file; a lobby is behind a node's state by at most SYNC_MS plus a NATS hop. Entries of nodes that left
// the heartbeat directory are ignored (their sockets are gone with them), and deleted once the node has been gone
// a while (dead-entries.ts).
import type { KV } from "@nats-io/kv";
import type { Logger } from "pino";
import { type Lobby, newParticipant, type Participant } from "../lobby/lobby.ts";
import { BucketMirror, keyOf, type LocalEntry } from "./bucket-mirror.ts";
import { decodePresence, encodePresence, type PresenceEntry } from "./codec.ts";

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
  /** The other nodes' bots, each as the participant a lobby read sees. */
  private readonly remote = new Map<string, { node: string; p: Participant }>();
  private readonly mirror: BucketMirror<PresenceEntry>;

  constructor(private readonly o: SharedPresenceOptions) {
    this.mirror = new BucketMirror<PresenceEntry>({
      kv: o.kv,
      node: o.node,
      log: o.log,
      liveNodes: o.liveNodes,
      syncMs: SYNC_MS,
      what: "presence entry",
      encode: encodePresence,
      decode: decodePresence,
      local: () => this.localEntries(),
      taken: (key, entry) => this.take(key, entry),
      dropped: (key) => this.remote.delete(key),
    });
  }

  /** Starts following the bucket (every current entry first, then each change). */
  watch(): Promise<void> {
    return this.mirror.watch();
  }

  private take(key: string, entry: PresenceEntry): void {
    const p = this.remote.get(key)?.p ?? newParticipant(entry.bot, null);
    p.bot = entry.bot;
    p.version = entry.version;
    p.ladderId = entry.ladder_id;
    p.state = entry.state;
    this.remote.set(key, { node: entry.node, p });
  }

  /** This node's connected player bots, as the entries it publishes. */
  private *localEntries(): Iterable<LocalEntry<PresenceEntry>> {
    for (const p of this.o.lobby.all()) {
      if (p.house || !p.conn) continue;
      const b = p.bot;
      yield {
        key: keyOf(b.id),
        sig: `${b.name}|${b.display_name}|${b.avatar}|${p.version}|${p.ladderId}|${p.state}`,
        label: b.name,
        entry: () => ({
          node: this.o.node,
          bot: b,
          version: p.version,
          ladder_id: p.ladderId,
          state: p.state,
        }),
      };
    }
  }

  /** Writes this node's new and changed entries and deletes those of bots no longer connected here. */
  sync(): void {
    this.mirror.sync();
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
  stop(): Promise<void> {
    return this.mirror.stop();
  }
}
