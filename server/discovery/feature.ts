// Discovery as a feature (SPEC 4.1 `GET /api`, `/api/changelog`, `/openapi.json`, the downloads, and the
// documents' pages and crawler files): its operations and pages, handed the ladders, the tool endpoint, the
// reads, the store, the identity provider's address, the config, the live limits and the operation list.

import { DOWNLOAD_OPERATIONS } from "../docs/downloads.ts";
import { defineFeature } from "../kernel/feature.ts";
import { DISCOVERY_OPERATIONS, type DiscoveryServices, discoveryRoutes } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    discovery: DiscoveryServices;
  }
}

export const discoveryFeature = defineFeature({
  name: "discovery",
  needs: ["identity", "ladders", "mcp", "reads", "store"],
  build: (kernel, deps) => ({
    ...deps,
    config: kernel.config,
    settings: kernel.settings,
    operations: kernel.operations,
  }),
  operations: [...DISCOVERY_OPERATIONS, ...DOWNLOAD_OPERATIONS],
  pages: discoveryRoutes,
});
