// The store's kernel as a provided service (issue 32): each domain's SQL is a service of its own folder (accountStore,
// auditStore, ratingStore, botStore, matchStore, ...) built on this one's database, read memo and write counters.
import type { Store } from "./types.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** The database with its write counters, read memo and unit of work (server/store/sql-store.ts). */
    store: Store;
  }
}
