// Insight as a feature (issue 33): what a bot author asks of the ladder about their bot. Part 3, rank
// uncertainty: the matchups route, from each ladder's rating book and leaderboard.
import { defineFeature } from "../kernel/feature.ts";
import { MatchupService } from "./matchups.ts";
import { INSIGHT_OPERATIONS, type InsightServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    insight: InsightServices;
  }
}

export const insightFeature = defineFeature({
  name: "insight",
  needs: ["ladders", "reads", "botDirectory"],
  build: (_kernel, deps) => ({ matchups: new MatchupService(deps) }),
  operations: INSIGHT_OPERATIONS,
});
