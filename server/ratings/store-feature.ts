// The ratings' SQL as a service (issue 32): `ratingStore` is built on the store's database and read memo with no
// other work, so it comes early in the feature list; the ladders (the book at start, the leaderboard), the public
// reads (rating history, sparklines) and the bots' API (records per version) name it in their `needs`.
import { defineFeature } from "../kernel/feature.ts";
import { RatingStore } from "./rating-store.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** Rated results, rating snapshots, records and rating history (server/ratings/rating-store.ts). */
    ratingStore: RatingStore;
  }
}

export const ratingStoreFeature = defineFeature({
  name: "ratingStore",
  needs: ["store"],
  build: (_kernel, { store }) => new RatingStore(store),
});
