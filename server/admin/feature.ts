// Staff administration as a feature (SPEC 4.6: overview, accounts, bots, bans, the audit log, usage): its console
// page (page.ts) and its operations, handed the accounts, the live lobby, hub and matches, the store, the
// announcements and the moderation service that owns every staff change (moderation.ts).
import { defineFeature } from "../kernel/feature.ts";
import { Moderation } from "./moderation.ts";
import { adminPage } from "./page.ts";
import { ADMIN_OPERATIONS, type AdminServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    admin: AdminServices;
  }
}

export const adminFeature = defineFeature({
  name: "admin",
  needs: [
    "accounts",
    "accountStore",
    "auditStore",
    "botStore",
    "identity",
    "hub",
    "lobby",
    "matches",
    "matchStore",
    "store",
    "lifecycle",
    "announcements",
  ],
  build: (kernel, deps) => ({
    ...deps,
    config: kernel.config,
    settings: kernel.settings,
    moderation: new Moderation({
      accounts: deps.accounts,
      accountStore: deps.accountStore,
      botStore: deps.botStore,
      store: deps.store,
      bus: kernel.bus,
    }),
  }),
  operations: ADMIN_OPERATIONS,
  // The console's page, /admin: an empty shell that web/admin.js fills from the operations above.
  pages: (http, admin) => adminPage(http, admin),
});
