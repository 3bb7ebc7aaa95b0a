// One node of a cluster (issue 36), connected to NATS with JetStream: its id, its heartbeat, the directory of
// the nodes whose heartbeat is current, and the leases it takes part in. Loaded only in cluster mode (the
// feature imports this file dynamically), so a single server never loads the NATS client.
//
// The heartbeat is a JetStream key-value bucket with one key per node and a TTL: each node rewrites its key every
// second with its figures (sockets, matches, queue, pool, leases held), and reads the whole bucket back; a node
// that stops beating drops out of everyone's list when its entry expires (NODE_TTL_MS). The figures are read
// from the node's own services at each beat (the feature hands in `figures`).

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type KV, Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import type { Logger } from "pino";
import { Gauge } from "prom-client";
import type { z } from "zod";
import { VERSIONS } from "../../engine/versions.ts";
import type { ClusterStatus } from "../api/responses.ts";
import type { WriteCounter } from "../db/track-writes.ts";
import type { Lease, LeaseGrant } from "../kernel/lease.ts";
import type { Metrics } from "../metrics/metrics.ts";
import type { MatchRecord } from "../store/types.ts";
import { decodeBeat, encodeBeat, type NodeBeat, type SharedResult } from "./codec.ts";
import { KvLease, LEASE_TIMING, type LeaseBucket } from "./kv-lease.ts";
import { openResultsStream } from "./results-stream.ts";
import { shareWrites } from "./shared-writes.ts";

export const NODES_BUCKET = "arena_nodes";
export const LEASES_BUCKET = "arena_leases";
/** Seconds between heartbeats, and how long a silent node stays listed. */
export const BEAT_MS = 1000;
export const NODE_TTL_MS = 4000;
/**
 * After this node was away from NATS (a disconnect, a failed heartbeat), how long the nodes it saw before stay
 * listed though their entries are missing. An outage of NATS itself stops every node's beats at once, and each
 * comes back on its own: an entry may have expired while its node's first put after the outage still waits out
 * JetStream's request timeout (5 s) behind a server that is not ready. Without this, a node back first would
 * count the others gone and end their seats (remote-seat.ts) or take their matches over. A node that really
 * died in the outage drops out this much later.
 */
export const HOLD_AFTER_OUTAGE_MS = NODE_TTL_MS + 5_000 + 2 * BEAT_MS;
/** How often the leases are looked at (each renews or retries on its own schedule, LEASE_TIMING). */
const LEASE_STEP_MS = 50;

/** A node's figures, read from its services at each heartbeat. */
export type Figures = Pick<NodeBeat, "sockets" | "matches" | "queued" | "pool" | "running">;

export type ClusterView = z.infer<typeof ClusterStatus>;

export interface ClusterNode extends LeaseGrant {
  readonly id: string;
  /** The cluster as this node sees it: what GET /api/status shows under `cluster`. */
  view(): ClusterView;
  /** A result this node committed to the database: published on the results stream for the other nodes. */
  publishResult(match: MatchRecord): void;
  /** Gives up every lease (the node drains): another node takes them at its next attempt. */
  releaseLeases(): Promise<void>;
  /** The node drains: its leases go, it takes no more matches, and it waits for its relayed ones to end. */
  drain(): Promise<void>;
  /** Leaves the cluster: stops beating, gives up its leases, removes its entry, closes the connection. */
  stop(): Promise<void>;
}

export interface JoinOptions {
  url: string;
  log: Logger;
  figures(): Figures;
  meters: Metrics | null;
  /** A result another node committed, in the results stream's order. */
  onPeerResult(r: SharedResult): void | Promise<void>;
  /** Cached tables whose writes every node is told of, by table name (server/cluster/shared-writes.ts). */
  writes: Record<string, WriteCounter>;
  /** More of the node on the same connection (the shared queue and cross-node play), stopped before it closes. */
  extend?(ctx: NodeContext): Promise<{ drain(): Promise<void>; stop(): Promise<void> }>;
}

/** What an extension of the node gets: the connection, the key-value buckets' manager and the directory. */
export interface NodeContext {
  nc: NatsConnection;
  kvm: Kvm;
  id: string;
  log: Logger;
  /** The nodes whose heartbeat is current (this one included). */
  nodes(): readonly NodeBeat[];
}

/** A node id: the host name (as a key-value key may hold it) and a random suffix, new at each start. */
function nodeId(): string {
  const host =
    hostname()
      .replace(/[^A-Za-z0-9_-]/g, "_")
      .slice(0, 40) || "node";
  return `${host}-${randomBytes(3).toString("hex")}`;
}

export async function joinCluster(o: JoinOptions): Promise<ClusterNode> {
  const id = nodeId();
  const log = o.log.child({ node: id });
  const nc: NatsConnection = await connect({
    servers: o.url,
    name: `arena-ladder ${id}`,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
  }).catch((err: Error) => {
    throw new Error(`cannot reach NATS at ${o.url} (--cluster): ${err.message}`);
  });
  /** This node has been away from NATS since its last good heartbeat; then, until when it holds its old view. */
  let away = false;
  let holdUntil = 0;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnect") log.warn({ nats: s.type }, "NATS connection");
      if (s.type === "disconnect") away = true;
    }
  })().catch(() => {});
  const kvm = new Kvm(nc);
  let nodesKv: KV;
  let leasesKv: KV;
  try {
    nodesKv = await kvm.create(NODES_BUCKET, { ttl: NODE_TTL_MS, history: 1 });
    leasesKv = await kvm.create(LEASES_BUCKET, { ttl: LEASE_TIMING.ttlMs, history: 1 });
  } catch (err) {
    await nc.close();
    throw new Error(
      `NATS at ${o.url} has no JetStream (start nats-server with -js): ${(err as Error).message}`,
    );
  }
  const results = await openResultsStream({ nc, node: id, log, onPeerResult: o.onPeerResult }).catch(
    async (err: Error) => {
      await nc.close();
      throw new Error(`cannot open the results stream on NATS at ${o.url}: ${err.message}`);
    },
  );
  const writes = shareWrites(nc, id, log, o.writes);
  const startedAt = new Date().toISOString();
  const leases = new Map<string, KvLease>();
  let nodes: NodeBeat[] = [];
  let stopped = false;

  const beat = (): NodeBeat => ({
    node: id,
    release: VERSIONS.release,
    started_at: startedAt,
    beat_at: new Date().toISOString(),
    ...o.figures(),
    leases: [...leases.values()].filter((l) => l.held()).map((l) => l.name),
  });

  /** Writes this node's entry, then reads every node's back. */
  const heartbeat = async (): Promise<void> => {
    try {
      await nodesKv.put(id, encodeBeat(beat()));
    } catch (err) {
      away = true;
      throw err;
    }
    const seen: NodeBeat[] = [];
    for await (const key of await nodesKv.keys()) {
      const e = await nodesKv.get(key);
      if (e?.operation !== "PUT") continue;
      const b = decodeBeat(e.value);
      if (b) seen.push(b);
      else log.warn({ key }, "unreadable heartbeat (another release?)");
    }
    if (away) {
      away = false;
      holdUntil = Date.now() + HOLD_AFTER_OUTAGE_MS;
    }
    if (Date.now() < holdUntil)
      for (const before of nodes) if (!seen.some((b) => b.node === before.node)) seen.push(before);
    nodes = seen.sort((a, b) => a.node.localeCompare(b.node));
  };
  await heartbeat();
  log.info({ nats: o.url, nodes: nodes.length }, "joined the cluster");

  let beating = false;
  const beatTimer = setInterval(() => {
    if (beating || stopped) return;
    beating = true;
    heartbeat()
      .catch((err) => log.warn({ err }, "heartbeat failed"))
      .finally(() => {
        beating = false;
      });
  }, BEAT_MS);
  const leaseTimer = setInterval(() => {
    for (const l of leases.values()) void l.step();
  }, LEASE_STEP_MS);
  beatTimer.unref();
  leaseTimer.unref();

  const bucket: LeaseBucket = {
    create: (k, v) => leasesKv.create(k, v),
    update: (k, v, rev) => leasesKv.update(k, v, rev),
    get: (k) => leasesKv.get(k),
    delete: (k, opts) => leasesKv.delete(k, opts),
  };

  const extension = o.extend
    ? await o.extend({ nc, kvm, id, log, nodes: () => nodes }).catch(async (err: Error) => {
        await nc.close();
        throw new Error(`cannot open the shared queue on NATS at ${o.url}: ${err.message}`);
      })
    : null;

  const node: ClusterNode = {
    id,
    lease(name: string): Lease {
      let l = leases.get(name);
      if (!l) {
        l = new KvLease(bucket, name, id, log);
        leases.set(name, l);
        void l.step();
      }
      return l;
    },
    view: () => ({
      node: id,
      // Not the running tallies: they name owners, and are the matchmaker's, not the operator's.
      nodes: nodes.map(({ running: _, ...n }) => n),
      leases: [...leases.values()].map((l) => ({
        name: l.name,
        holder: l.held() ? id : l.holder === id ? null : l.holder,
        held: l.held(),
      })),
    }),
    publishResult: (match) => results.publish(match),
    async releaseLeases() {
      await Promise.all([...leases.values()].map((l) => l.release()));
    },
    async drain() {
      await Promise.all([node.releaseLeases(), extension?.drain()]);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(beatTimer);
      clearInterval(leaseTimer);
      await node.releaseLeases();
      await extension?.stop();
      await results.stop();
      writes.stop();
      await nodesKv.delete(id).catch(() => {});
      await nc.drain().catch(() => nc.close());
    },
  };
  if (o.meters) meterCluster(o.meters, node);
  return node;
}

/** The cluster in /metrics: the nodes this one sees, each node's figures, and the leases this node holds. */
function meterCluster(meters: Metrics, node: ClusterNode): void {
  const registers = [meters.registry];
  new Gauge({
    name: "arena_cluster_nodes",
    help: "Nodes whose heartbeat is current, as this node sees them (itself included)",
    registers,
    collect() {
      this.set(node.view().nodes.length);
    },
  });
  const perNode = (name: string, help: string, read: (n: ClusterView["nodes"][number]) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["node"],
      registers,
      collect() {
        this.reset();
        for (const n of node.view().nodes) this.set({ node: n.node }, read(n));
      },
    });
  perNode(
    "arena_cluster_node_bot_sockets",
    "Bot sockets open on each node (its last heartbeat)",
    (n) => n.sockets.bot,
  );
  perNode(
    "arena_cluster_node_matches",
    "Matches running on each node (its last heartbeat)",
    (n) => n.matches,
  );
  perNode(
    "arena_cluster_node_queued",
    "Bots waiting in each node's queues (its last heartbeat)",
    (n) => n.queued,
  );
  perNode(
    "arena_cluster_node_pool_queued_tasks",
    "Matches waiting for a worker thread on each node (its last heartbeat)",
    (n) => n.pool.queued,
  );
  new Gauge({
    name: "arena_cluster_lease_held",
    help: "1 for each lease this node holds now (matchmaker.<ladder>: this node pairs that ladder), else 0",
    labelNames: ["lease"],
    registers,
    collect() {
      this.reset();
      for (const l of node.view().leases) this.set({ lease: l.name }, l.held ? 1 : 0);
    },
  });
}
