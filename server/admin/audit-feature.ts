// The audit log as a service (issue 32): `auditStore` needs nothing but the database, so it comes first in the
// feature list and every feature that writes a throttle or reads the log names it in its `needs`.
import { defineFeature } from "../kernel/feature.ts";
import { AuditStore } from "./audit-store.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** The audit log: single entries and the staff console's reads (server/admin/audit-store.ts). */
    auditStore: AuditStore;
  }
}

export const auditStoreFeature = defineFeature({
  name: "auditStore",
  needs: [],
  build: (kernel) => new AuditStore(kernel.db),
});
