// Insight as a feature (issue 33): what a bot author asks of the ladder about their bot. Part 3, rank
// uncertainty: the matchups route, from each ladder's rating book and leaderboard. Part 2, the owner's
// diagnostics of a match, from its recorded stats (the page parts of parts 1 and 2 are in page-parts.ts).
import { defineFeature } from "../kernel/feature.ts";
import { DiagnosticsService } from "./diagnostics.ts";
import { MatchupService } from "./matchups.ts";
import { INSIGHT_OPERATIONS, type InsightServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    insight: InsightServices;
  }
}

export const insightFeature = defineFeature({
  name: "insight",
  needs: ["ladders", "reads", "botDirectory", "store", "accounts"],
  build: (_kernel, deps) => ({
    matchups: new MatchupService(deps),
    diagnostics: new DiagnosticsService(deps),
  }),
  operations: INSIGHT_OPERATIONS,
});
