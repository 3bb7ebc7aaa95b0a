// The matches' SQL as a service (issue 32): `matchStore` is built on the store's database, read memo and write
// counters with no other work, so it comes early in the feature list; the durable results write through it, and
// every feature that reads a match, its stats, the quota counts, the seat balance or the replay files names it.
import { defineFeature } from "../kernel/feature.ts";
import { MatchStore } from "./match-store.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** Stored matches, their seats and stats, and the counts read from them (server/results/match-store.ts). */
    matchStore: MatchStore;
  }
}

export const matchStoreFeature = defineFeature({
  name: "matchStore",
  needs: ["store"],
  build: (_kernel, { store }) => new MatchStore(store),
});
