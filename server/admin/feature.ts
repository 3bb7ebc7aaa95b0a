// Staff administration as a feature (SPEC 4.6: overview, accounts, bots, bans, the audit log, usage): its
// operations, handed the accounts, the live lobby, hub and matches, the store and the announcements.
import { defineFeature } from "../kernel/feature.ts";
import { ADMIN_OPERATIONS, type AdminServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    admin: AdminServices;
  }
}

export const adminFeature = defineFeature({
  name: "admin",
  needs: ["accounts", "hub", "lobby", "matches", "store", "lifecycle", "announcements"],
  build: (kernel, deps) => ({ ...deps, bus: kernel.bus, config: kernel.config, settings: kernel.settings }),
  operations: ADMIN_OPERATIONS,
});
