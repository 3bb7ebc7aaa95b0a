// The ladders' API as a feature (SPEC 3.7 membership and invitations, 4.1 `GET /api/ladders`, 4.6's ladder
// windows): its operations, handed the ladder registry, membership, the store, the config and the scheduler
// (a moved window re-arms the phase job).
import { defineFeature } from "../kernel/feature.ts";
import { LADDER_OPERATIONS, type LadderServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    ladderApi: LadderServices;
  }
}

export const laddersFeature = defineFeature({
  name: "ladderApi",
  needs: ["ladders", "ladderTables", "membership", "store", "accountStore"],
  build: (kernel, deps) => ({ ...deps, bus: kernel.bus, config: kernel.config, scheduler: kernel.scheduler }),
  operations: LADDER_OPERATIONS,
});
