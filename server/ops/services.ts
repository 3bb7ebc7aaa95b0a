// The operator's services: rolling server health (GET /api/admin/health, server/ops/health-feature.ts) and
// whether the server drains (the composition root answers it).
import type { HealthMonitor } from "./health.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    health: HealthMonitor;
    /** Whether the server is draining (SPEC 3.10): read when asked, it changes once. */
    lifecycle: { draining(): boolean };
  }
}
