// Admin operations of SPEC 4.6 for running the service: rolling health, analytics over a range of UTC days, and
// the replay trim on demand (the same trim the server runs every ten minutes), audited with its change.
import { z } from "zod";
import type { Kernel, Services } from "../kernel/feature.ts";
import { operationFor } from "../kernel/operation.ts";
import { analytics, analyticsRange } from "./analytics.ts";
import { REPLAYS_KEPT, trimReplays } from "./replay-trim.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export type OpsServices = Pick<Services, "health" | "matchStore" | "replays" | "store"> & Pick<Kernel, "log">;
const defineOperation = operationFor<OpsServices>();

const AnalyticsQuery = z.object({ from: z.string().max(20).optional(), to: z.string().max(20).optional() });

export const OPS_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/admin/health",
    operationId: "adminHealth",
    summary: "Rolling five-minute health: requests by route, sockets, ticks, pool, event loop, database",
    auth: "admin",
    handle: async (_input, ctx) => ctx.health.report(),
  }),
  defineOperation({
    method: "GET",
    path: "/api/admin/analytics",
    operationId: "adminAnalytics",
    summary: "Sign-ups, activity, matches by mode, top player bots and maps per UTC day (from, to inclusive)",
    auth: "admin",
    query: AnalyticsQuery,
    handle: async ({ query }, ctx) => analytics(ctx.store.db, analyticsRange(query)),
  }),
  defineOperation({
    method: "POST",
    path: "/api/admin/replays/trim",
    operationId: "adminTrimReplays",
    summary: "Delete old replay files, keeping each bot's newest 200",
    auth: "admin",
    handle: async ({ caller }, ctx) => ({
      trimmed: await trimReplays(ctx, caller.account.id),
      kept_per_bot: REPLAYS_KEPT,
    }),
  }),
];
