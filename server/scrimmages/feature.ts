// Scrimmages and batch tests as a feature (issue 34, parts 1 and 2): unrated games an owner asks for between
// one of their bots and chosen opponents, one at a time or N in a batch. Its services: the scrimmage service
// (requests, holds, limits, results) and `unrated`, the starter of unrated matches between two chosen
// connected bots, which a tournament feature can need in turn.
import { defineFeature } from "../kernel/feature.ts";
import { scrimmageBotPart } from "./bot-page.ts";
import { SCRIMMAGE_LIMITS } from "./limits.ts";
import { batchPages } from "./pages.ts";
import { SCRIMMAGE_OPERATIONS, type ScrimmageServices } from "./routes.ts";
import { ScrimmageService } from "./service.ts";
import { UnratedMatches } from "./unrated.ts";

export interface ScrimmageFeature extends ScrimmageServices {
  /** Starts unrated matches between two chosen ready bots (reusable by other features). */
  unrated: UnratedMatches;
}

declare module "../kernel/feature.ts" {
  interface Services {
    scrimmages: ScrimmageFeature;
  }
}

/** How often waiting games are looked at again (a bot freed by a match end, capacity, expiry). */
const SWEEP_MS = 1_000;

export const scrimmagesFeature = defineFeature({
  name: "scrimmages",
  needs: ["store", "botStore", "lobby", "live", "lifecycle", "pageParts"],
  build: async (kernel, deps) => {
    const unrated = new UnratedMatches({
      lobby: deps.lobby,
      live: deps.live,
      settings: kernel.settings,
      draining: () => deps.lifecycle.draining(),
    });
    const scrimmages = new ScrimmageService({
      store: deps.store,
      botStore: deps.botStore,
      lobby: deps.lobby,
      live: deps.live,
      settings: kernel.settings,
      log: kernel.log.child({ feature: "scrimmages" }),
      unrated,
      work: kernel.work,
      publicUrl: kernel.config.publicUrl,
    });
    await scrimmages.load();
    return { scrimmages, unrated };
  },
  operations: SCRIMMAGE_OPERATIONS,
  settings: SCRIMMAGE_LIMITS,
  listeners: (s) => ({ MatchFinished: (e) => s.scrimmages.games.finished(e) }),
  jobs: (s) => [
    {
      name: "scrimmages",
      nextAt: (now) => now + SWEEP_MS,
      run: (now) => s.scrimmages.sweep(now),
    },
  ],
  pages: (http, s) => batchPages(http, s),
  // The owner's controls on the site's bot page.
  start: (_s, _kernel, { pageParts }) => pageParts.addToBotPage(scrimmageBotPart()),
});
