// The shared queue and cross-node play of one node (issue 36, parts 2-3), opened on the node's NATS connection:
// the queue bucket and its follower (shared-queue.ts), every node's connected bots (shared-presence.ts), and the
// placements, claims and relays (placement.ts).
import type { Settings } from "../kernel/settings.ts";
import type { Ladders } from "../ladders/registry.ts";
import { type Failover, type FailoverOptions, startFailover } from "./failover.ts";
import { type Placement, startPlacement } from "./placement.ts";
import { ClusterRunning } from "./running-counts.ts";
import { PRESENCE_BUCKET, SharedPresence } from "./shared-presence.ts";
import { QUEUE_BUCKET, SharedQueue } from "./shared-queue.ts";

/** Failover's options (this node's NATS, its peers, lobby and live matches, journaling) and the ladders'. */
export interface SharedPlayOptions extends FailoverOptions {
  ladders: Ladders;
  settings: Settings;
}

export interface SharedPlay {
  queue: SharedQueue;
  placement: Placement;
  failover: Failover;
  /** Every node's connected player bots (the lobbies). */
  presence: SharedPresence;
  /** Matches running in the whole cluster, by ladder and owner (the matchmaker's limits). */
  running: ClusterRunning;
  /** The node drains: its bots leave the shared queue, it takes no match, and its relayed matches end. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

export async function openSharedPlay(o: SharedPlayOptions): Promise<SharedPlay> {
  // No TTL: an entry lives as long as its bot waits; a dead node's entries are ignored (not in the directory).
  const kv = await o.kvm.create(QUEUE_BUCKET, { history: 1 });
  const queue = new SharedQueue({
    kv,
    node: o.node,
    log: o.log,
    lobby: o.lobby,
    liveNodes: () => new Set(o.nodes().map((n) => n.node)),
    changed: () => o.ladders.poke(),
  });
  await queue.watch();
  const presence = new SharedPresence({
    kv: await o.kvm.create(PRESENCE_BUCKET, { history: 1 }),
    node: o.node,
    log: o.log,
    lobby: o.lobby,
    liveNodes: () => new Set(o.nodes().map((n) => n.node)),
  });
  await presence.watch();
  const failover = await startFailover(o);
  const running = new ClusterRunning(o.node, o.nodes, o.live);
  const placement = startPlacement({ ...o, queue, whereIs: (id) => failover.whereIs(id), running });
  return {
    queue,
    placement,
    running,
    presence,
    failover,
    async drain() {
      await queue.stop();
      await placement.drain();
    },
    async stop() {
      placement.stop();
      await failover.stop();
      await queue.stop();
      // Its sockets close with it: its bots are no longer online anywhere.
      await presence.stop();
    },
  };
}
