// The ladders as features: every ladder of the manifest with its rating book, leaderboard, matchmaker and quotas
// (`ladders`) and its membership (`membership`, SPEC 3.7). The ladders
// load their books from the database once the journal of the last run is in it (they need `results`), and they
// start ranked matches through the live matches.
import { defineFeature } from "../kernel/feature.ts";
import { DEFAULT_MANIFEST_FILE, loadManifest, type Manifest, phaseAt } from "./manifest.ts";
import { Membership } from "./membership.ts";
import { Ladders } from "./registry.ts";
import { LadderStore } from "./store.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** The ladders' own tables: memberships, invitations, stored windows, live settings and presets. */
    ladderTables: LadderStore;
  }
  interface Overrides {
    /** The ladders to run, instead of the manifest file (tests). */
    manifest?: Manifest;
    /** How long a player waits for another player before a house bot is offered (default 2 s). */
    houseWaitMs?: number;
  }
}

/** How often every ladder's matchmaker looks at its queue, besides each queue change. */
const PASS_EVERY_MS = 250;

/** The ladders' tables, on the store's database (their SQL is server/ladders/store.ts). */
export const ladderTablesFeature = defineFeature({
  name: "ladderTables",
  needs: ["store"],
  build: (_kernel, { store }) => new LadderStore(store.db),
});

export const laddersFeature = defineFeature({
  name: "ladders",
  needs: [
    "store",
    "auditStore",
    "matchStore",
    "ratingStore",
    "ladderTables",
    "lobby",
    "live",
    "results",
    "meters",
  ],
  build: async (
    kernel,
    { store, auditStore, matchStore, ratingStore, ladderTables, lobby, live, results, meters },
  ) => {
    const { config, settings, log, overrides } = kernel;
    const manifest = overrides.manifest ?? loadManifest(config.laddersFile ?? DEFAULT_MANIFEST_FILE);
    const ladders = new Ladders(manifest, {
      store,
      matchStore,
      lobby,
      settings,
      log,
      seatBalance: await matchStore.seatBalance(),
      running: (ladderId) => live.running(ladderId),
      runningForOwner: (owner) => live.runningForOwner(owner),
      start: (plan, ladderId) => live.start(plan, ladderId, "ranked"),
      audit: (kind, subject, detail) =>
        void auditStore.audit(kind, subject, detail).catch((err) => log.error({ err }, "audit write failed")),
      houseWaitMs: overrides.houseWaitMs ?? 2_000,
      ...(meters ? { passTimer: (id: string) => meters.passTimer(id) } : {}),
    });
    await settings.load(
      ladderTables,
      ladders.all().map((l) => l.id),
    );
    // Windows moved by staff outrank the manifest's (the phase is what they make it now, not an announced change).
    for (const [id, w] of await ladderTables.schedules()) {
      const l = ladders.get(id);
      if (!l) continue;
      ladders.setWindow(id, w.opens_at, w.closes_at);
      l.phase = phaseAt(l.def, Date.now());
    }
    for (const l of ladders.all()) await l.load(ratingStore, results.pending());
    live.useLadders(ladders);
    return ladders;
  },
  listeners: (ladders, { log }) => ({
    LadderPhaseChanged: (e) => {
      log.info(e, "ladder phase changed");
      if (e.to === "open") ladders.require(e.ladderId).matchmaker.pass();
    },
    // Leaderboards follow committed results.
    MatchFinished: (e) => ladders.get(e.match.ladder_id)?.leaderboard.recordMatch(e.match),
    // ... and so do the results other nodes of a cluster committed (their books as well: the runner of this node
    // recorded only its own games).
    PeerResult: (e) => ladders.get(e.match.ladder_id)?.follow(e.match),
  }),
  jobs: (ladders, { bus }) => [ladders.phaseJob(bus)],
  start: (ladders) => ladders.startPassing(PASS_EVERY_MS),
  drain: (ladders) => ladders.pause(),
  stop: (ladders) => ladders.pause(),
});

export const membershipFeature = defineFeature({
  name: "membership",
  needs: ["store", "ladderTables", "ladders"],
  build: async (kernel, { store, ladderTables, ladders }) => {
    const membership = new Membership(store, ladderTables, ladders, kernel.bus);
    await membership.load();
    ladders.admitWith((bot, ladderId) => membership.mayQueue(bot, ladderId));
    return membership;
  },
});
