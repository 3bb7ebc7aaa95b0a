// Operating the service as a feature (SPEC 4.6's health, analytics and replay trim, SPEC 8 replaysPerBot): its
// operations, handed the health monitor, the replay files and the store, and the ten-minute replay trim.
import { defineFeature } from "../kernel/feature.ts";
import type { ScheduledJob } from "../kernel/scheduler.ts";
import { OPS_OPERATIONS, type OpsServices, REPLAYS_KEPT } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    ops: OpsServices;
  }
}

const TRIM_EVERY_MS = 10 * 60_000;

/** Every ten minutes, each bot's replays beyond its newest REPLAYS_KEPT are deleted (rows, then files). */
function replayTrim({ store, replays, log }: OpsServices): ScheduledJob {
  return {
    name: "replay trim",
    nextAt: (now) => now + TRIM_EVERY_MS,
    // Not awaited: a long trim must not hold the scheduler's other jobs (ladder phases) behind it.
    run: () => {
      void (async () => {
        try {
          await replays.remove(await store.trimReplays(REPLAYS_KEPT));
        } catch (err) {
          log.error({ err }, "replay trimming failed");
        }
      })();
    },
  };
}

export const opsFeature = defineFeature({
  name: "ops",
  needs: ["health", "replays", "store"],
  build: (kernel, deps) => ({ ...deps, log: kernel.log }),
  operations: OPS_OPERATIONS,
  jobs: (svc) => [replayTrim(svc)],
});
