// The cluster's directory of nodes across an outage of nats-server itself (server/cluster/node.ts): every node's
// beats stop at once and each comes back on its own schedule, so an entry may expire before its node's first
// beat after the outage lands. A node back first keeps the nodes it saw listed for HOLD_AFTER_OUTAGE_MS rather
// than counting them gone (which would end their remote seats and take their matches over, the flake of
// cluster-once's restart case); a node that never beats again still drops out once that hold is over.
// One real node (joinCluster) and two stand-ins that write their beats straight into the bucket: "slow" beats
// again only 7 s after the restart (past the 4 s TTL), "dead" never does.
import { Kvm } from "@nats-io/kv";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeBeat, type NodeBeat } from "../../server/cluster/codec.ts";
import {
  type ClusterNode,
  HOLD_AFTER_OUTAGE_MS,
  joinCluster,
  NODE_TTL_MS,
  NODES_BUCKET,
} from "../../server/cluster/node.ts";
import { type Nats, startNats } from "../helpers/nats.ts";

const beatOf = (node: string): NodeBeat => ({
  node,
  release: "test",
  started_at: new Date().toISOString(),
  beat_at: new Date().toISOString(),
  sockets: { bot: 0, human: 0 },
  matches: 0,
  queued: 0,
  pool: { threads: 0, queued: 0 },
  leases: [],
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the directory of nodes across a restart of nats-server", () => {
  let nats: Nats;
  let node: ClusterNode;
  let stand: NatsConnection;
  /** Which stand-ins beat now. */
  const beating = new Set(["slow", "dead"]);
  let beats: ReturnType<typeof setInterval>;

  beforeAll(async () => {
    nats = await startNats();
    node = await joinCluster({
      url: nats.url,
      log: pino({ level: "silent" }),
      figures: () => ({
        sockets: { bot: 0, human: 0 },
        matches: 0,
        queued: 0,
        pool: { threads: 0, queued: 0 },
        running: { ladders: {}, owners: {} },
      }),
      meters: null,
      onPeerResult: () => {},
      writes: {},
    });
    stand = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    const kv = await new Kvm(stand).open(NODES_BUCKET);
    const beat = () => {
      for (const n of beating) kv.put(n, encodeBeat(beatOf(n))).catch(() => {});
    };
    beat();
    beats = setInterval(beat, 500);
  }, 30_000);

  afterAll(async () => {
    clearInterval(beats);
    await node?.stop().catch(() => {});
    await stand?.close().catch(() => {});
    await nats?.stop();
  });

  const listed = () => node.view().nodes.map((n) => n.node);

  it("keeps a slow node listed while it comes back, and drops a dead one after the hold", async () => {
    const t0 = Date.now();
    while (!(listed().includes("slow") && listed().includes("dead"))) {
      if (Date.now() - t0 > 10_000) throw new Error(`the stand-ins never showed: ${listed()}`);
      await sleep(50);
    }
    beating.clear();
    await nats.kill();
    await sleep(NODE_TTL_MS + 1_000); // both entries are past their TTL when the server comes back
    await nats.restart();
    const back = Date.now();
    const slowMissing: number[] = [];
    let deadGoneAt = 0;
    while (Date.now() - back < HOLD_AFTER_OUTAGE_MS + 8_000) {
      if (Date.now() - back > 7_000) beating.add("slow");
      const now = listed();
      if (!now.includes("slow")) slowMissing.push(Date.now() - back);
      if (!now.includes("dead") && !deadGoneAt) deadGoneAt = Date.now() - back;
      await sleep(50);
    }
    expect(slowMissing).toEqual([]);
    expect(listed()).toContain(node.id);
    // Not before the hold could have started (the node's first good beat after the restart), and not never.
    expect(deadGoneAt).toBeGreaterThan(HOLD_AFTER_OUTAGE_MS - 1_000);
  }, 60_000);
});
