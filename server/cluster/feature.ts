// Cluster mode as a feature (issue 36, --cluster nats://host:port with PostgreSQL): this node joins the others
// through NATS with JetStream, beats with its figures, shows the cluster in GET /api/status and /metrics, and
// takes each ladder's matchmaker lease so one node at a time pairs a ladder; it publishes each result this node
// commits on the results stream and hands the other nodes' results to the bus (PeerResult), and tells the other
// nodes of its writes to bots (their bot directories reload); it journals each match's inputs and takes over the
// matches of a node that died (failover.ts). Without --cluster the service is
// null and nothing here runs: the NATS client is loaded by a dynamic import in cluster mode only, so a single
// server (embedded PGlite, no NATS) starts and behaves exactly as before.
import { defineFeature } from "../kernel/feature.ts";
import type { ClusterNode } from "./node.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** This node of the cluster (--cluster), or null on a single server. */
    cluster: ClusterNode | null;
  }
}

export const clusterFeature = defineFeature({
  name: "cluster",
  needs: [
    "store",
    "matchStore",
    "results",
    "ladders",
    "reads",
    "live",
    "hub",
    "humanPlay",
    "lobby",
    "meters",
    "membership",
    "ladderTables",
    "doors",
    "accountsSetUp",
    "events",
  ],
  build: async (
    kernel,
    {
      store,
      matchStore,
      results,
      ladders,
      reads,
      live,
      hub,
      humanPlay,
      lobby,
      meters,
      membership,
      ladderTables,
      doors,
      accountsSetUp,
      events,
    },
  ) => {
    const url = kernel.config.cluster;
    if (!url) return null;
    const { joinCluster } = await import("./node.ts");
    const { reloadOnPeerWrite } = await import("./shared-writes.ts");
    const log = kernel.log.child({ feature: "cluster" });
    const node = await joinCluster({
      url,
      log,
      meters,
      figures: () => ({
        sockets: { bot: hub.connections, human: humanPlay.connections },
        matches: live.running(),
        queued: ladders.all().reduce((n, l) => n + lobby.waiting(l.id).filter((p) => !p.house).length, 0),
        pool: { threads: live.pool.threads, queued: live.pool.queued },
        running: live.tally(),
      }),
      // Every node's copies of the ladder state follow the other nodes' results (the bus's PeerResult).
      onPeerResult: (r) => kernel.bus.emit("PeerResult", r),
      // A bot registered, renamed or banned through any node: every node's bot directory reloads.
      // A membership enrolled, approved or revoked through any node: every node's copy reloads. Each node keeps
      // the memberships in memory (server/ladders/membership.ts) and reads them on a queue and when the events
      // earn achievements from a result, which happens on the node that committed the result only (the others
      // take it in as PeerResult): that is rarely the node the enrollment went through, and without this the
      // achievement (and its email) happened zero times instead of once (test/server/cluster-once.test.ts).
      writes: {
        bots: store.botWrites,
        memberships: reloadOnPeerWrite(
          (told) => void kernel.bus.on("MembershipChanged", () => told()),
          () => membership.load(),
          log,
        ),
        // Account rows behind the ban checks (a bot's admission, account routes, hidden user pages).
        accounts: store.accountWrites,
        // The live settings (SPEC 4.6) and the ladders' windows moved by staff hold on every node: each node
        // keeps them in memory and reloads them when another node committed a change.
        settings: reloadOnPeerWrite(
          (told) => void kernel.bus.on("SettingsChanged", () => told()),
          () =>
            kernel.settings.load(
              ladderTables,
              ladders.all().map((l) => l.id),
            ),
          log,
        ),
        schedules: reloadOnPeerWrite(
          (told) => void kernel.bus.on("LadderWindowMoved", () => told()),
          async () => {
            for (const [id, w] of await ladderTables.schedules())
              if (ladders.get(id)) ladders.setWindow(id, w.opens_at, w.closes_at);
            kernel.scheduler.reschedule();
          },
          log,
        ),
        // Staff's edits to an event (its submission link, image, own window).
        events: reloadOnPeerWrite(
          (told) => events.onEdited(told),
          () => events.refresh(),
          log,
        ),
      },
      // The cluster's queue and cross-node play: the lease holder pairs every node's queued bots and places each
      // match on a node; a bot of this node whose match runs elsewhere plays through its relay.
      extend: async ({ nc, kvm, id, log, nodes }) => {
        // An address's budgets (sockets, sign-in routes), an account's throttles and a bot's disconnects hold in
        // the whole cluster, not per node.
        const { shareBudgets } = await import("./shared-budgets.ts");
        const { shareDisconnects } = await import("./shared-disconnects.ts");
        const { shareGuesses, shareHits } = await import("./shared-hits.ts");
        const shared = [
          shareBudgets(nc, id, log, doors.addressLimits),
          shareDisconnects(nc, id, log, hub),
          shareHits(nc, id, log, accountsSetUp.hits),
          ...(accountsSetUp.guesses ? [shareGuesses(nc, id, log, accountsSetUp.guesses)] : []),
        ];
        const { openSharedPlay } = await import("./shared-play.ts");
        const play = await openSharedPlay({
          nc,
          kvm,
          node: id,
          log,
          nodes,
          lobby,
          live,
          ladders,
          settings: kernel.settings,
          journaling: kernel.config.failoverJournal,
          stored: async (id) => (await matchStore.match(id)) !== null,
        });
        for (const l of ladders.all()) l.matchmaker.cluster = play.placement;
        // A ladder's and an owner's limits on matches at once count the whole cluster's matches.
        ladders.countRunningWith(play.running);
        // The lobby lists every node's connected bots.
        reads.showOnlineElsewhere(() => play.presence.elsewhere());
        // Each match's inputs are journaled per tick (unless the operator turned it off), so that another node
        // can take it over if this one dies (failover.ts).
        live.journalWith((m) => play.failover.journalFor(m));
        hub.playElsewhereWith(
          (botId) => play.placement.relayOf(botId) ?? play.failover.relayOf(botId),
          (botId) => play.failover.rejoin(botId),
        );
        return {
          drain: () => play.drain(),
          stop: async () => {
            for (const s of shared) s.stop();
            await play.stop();
          },
        };
      },
    });
    // Each result this node commits is published once it is in the database (at once, or from the journal),
    // and so are those it wrote from its journal while it started, before it joined.
    results.onCommitted((match) => node.publishResult(match));
    for (const match of results.takeRecovered()) node.publishResult(match);
    ladders.leaseWith(node);
    reads.showCluster(() => node.view());
    return node;
  },
  listeners: (node, _kernel, { ladders }) =>
    node
      ? {
          // A match this node's matchmaker placed on another node: its quota counts now see it in storage.
          PeerResult: (e) => ladders.get(e.match.ladder_id)?.quotas.stored(e.match.id),
        }
      : {},
  drain: (node) => node?.drain(),
  stop: (node) => node?.stop(),
});
