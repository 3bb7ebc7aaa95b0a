// Operating the service as a feature (SPEC 4.6's health, analytics and replay trim, SPEC 8 replaysPerBot): its
// operations, handed the health monitor, the replay files and the store, and the ten-minute replay trim. Its
// start begins the health monitor's sampling of sockets, matches, the pool and a database round trip.
import { defineFeature } from "../kernel/feature.ts";
import type { ScheduledJob } from "../kernel/scheduler.ts";
import { trimReplays } from "./replay-trim.ts";
import { OPS_OPERATIONS, type OpsServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    ops: OpsServices;
  }
}

const TRIM_EVERY_MS = 10 * 60_000;

/** Every ten minutes, each bot's replays beyond its newest REPLAYS_KEPT are deleted (rows, then files). */
function replayTrim(svc: OpsServices): ScheduledJob {
  return {
    name: "replay trim",
    nextAt: (now) => now + TRIM_EVERY_MS,
    // Not awaited: a long trim must not hold the scheduler's other jobs (ladder phases) behind it.
    run: () => {
      void (async () => {
        try {
          await trimReplays(svc, null);
        } catch (err) {
          svc.log.error({ err }, "replay trimming failed");
        }
      })();
    },
  };
}

export const opsFeature = defineFeature({
  name: "ops",
  needs: ["health", "matchStore", "replays", "store", "hub", "humanPlay", "live", "meters"],
  build: (kernel, { health, matchStore, replays, store }) => ({
    health,
    matchStore,
    replays,
    store,
    log: kernel.log,
  }),
  operations: OPS_OPERATIONS,
  jobs: (svc) => [replayTrim(svc)],
  start: ({ health, store }, _kernel, { hub, humanPlay, live, meters }) =>
    health.start({
      profiling: meters !== null,
      sample: async () => {
        const t0 = performance.now();
        const ok = await store.db.query("SELECT 1").then(
          () => true,
          () => false,
        );
        return {
          botSockets: hub.connections,
          humanSockets: humanPlay.connections,
          runningMatches: live.byId.size,
          poolQueued: live.pool.queued,
          dbMs: ok ? Math.round((performance.now() - t0) * 100) / 100 : null,
        };
      },
    }),
});
