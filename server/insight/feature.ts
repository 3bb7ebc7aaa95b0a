// Insight as a feature (issue 33): what a bot author asks of the ladder about their bot. Part 3, rank
// uncertainty: the matchups route, from each ladder's rating book and leaderboard. Part 2, the owner's
// diagnostics of a match, from its recorded stats (the page parts of parts 1 and 2 are in page-parts.ts). Part 5,
// version regression alerts: a MatchFinished listener that mails the owner once per regressed version, and the
// alerts the bot and account pages and GET /api/me show.
import { defineFeature } from "../kernel/feature.ts";
import { BoardInsight } from "./board.ts";
import { insightBotParts } from "./bot-page.ts";
import { DiagnosticsService } from "./diagnostics.ts";
import { MatchupService } from "./matchups.ts";
import { RegressionAlerts } from "./regression.ts";
import { INSIGHT_OPERATIONS, type InsightServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    insight: InsightServices;
  }
}

export const insightFeature = defineFeature({
  name: "insight",
  needs: [
    "ladders",
    "reads",
    "botDirectory",
    "store",
    "botStore",
    "accountStore",
    "mail",
    "accounts",
    "pageParts",
  ],
  build: (kernel, deps) => ({
    matchups: new MatchupService(deps),
    diagnostics: new DiagnosticsService(deps),
    board: new BoardInsight(deps),
    regressions: new RegressionAlerts({
      ladders: deps.ladders,
      botDirectory: deps.botDirectory,
      store: deps.store,
      botStore: deps.botStore,
      accountStore: deps.accountStore,
      mail: deps.mail,
      work: (fn) => kernel.work(fn),
      publicUrl: kernel.config.publicUrl,
      log: kernel.log,
    }),
  }),
  operations: INSIGHT_OPERATIONS,
  listeners: (s) => ({ MatchFinished: (e) => s.regressions.onMatchFinished(e) }),
  // Its sections on the site's bot page: the regression notice, the rank and rivals.
  start: (s, _kernel, { pageParts }) => {
    for (const part of insightBotParts(s)) pageParts.addToBotPage(part);
  },
});
