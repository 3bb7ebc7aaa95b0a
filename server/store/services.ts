// The store registry as a service, until each domain's SQL has moved into its feature (issue 32).
import type { Store } from "./types.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** Every store of the server in one registry (server/store/sql-store.ts). */
    store: Store;
  }
}
