// The public reads of ladder data as a feature (SPEC 4.1: leaderboard, lobby, status, bots, users, matches),
// for routes and pages: built on the ladders, the lobby, the bot directory and the live matches, so it sits above
// all of them (none of them imports it).
import { defineFeature } from "../kernel/feature.ts";
import { LadderReads } from "./reads.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** Public ladder data (leaderboard, lobby, status, bots, users, matches) for routes and pages. */
    reads: LadderReads;
  }
}

export const readsFeature = defineFeature({
  name: "reads",
  needs: [
    "store",
    "botStore",
    "matchStore",
    "ratingStore",
    "ladders",
    "lobby",
    "botDirectory",
    "live",
    "lifecycle",
    "results",
  ],
  build: (
    kernel,
    { store, botStore, matchStore, ratingStore, ladders, lobby, botDirectory, live, lifecycle, results },
  ) =>
    new LadderReads({
      store,
      botStore,
      matchStore,
      ratingStore,
      ladders,
      lobby,
      bots: botDirectory,
      live,
      settings: kernel.settings,
      publicUrl: kernel.config.publicUrl,
      draining: () => lifecycle.draining(),
      journaled: () => results.pending(),
    }),
});
