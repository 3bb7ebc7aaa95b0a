// Rolling five-minute server health (GET /api/admin/health) as a feature: built early, so the match runner and
// the HTTP hooks count into it from the start; its sampling starts with the server (server/ops/feature.ts reads
// the sockets, matches and database for it).
import { defineFeature } from "../kernel/feature.ts";
import { HealthMonitor } from "./health.ts";

export const healthFeature = defineFeature({
  name: "health",
  needs: [],
  build: (kernel) => {
    const health = new HealthMonitor();
    health.watch(kernel.http);
    return health;
  },
  stop: (health) => health.stop(),
});
