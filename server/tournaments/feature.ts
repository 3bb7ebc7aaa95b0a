// Tournaments as a feature (issue 34, part 3): staff schedule a round-robin or Swiss tournament on a ladder,
// bots check in, rounds are paired and played as unrated matches of mode `tournament` through the scrimmages'
// `unrated` starter (or, for a tournament created `rated`, as rated games of the ladder), and the standings and
// bracket show live on /tournaments/<id> and its JSON.
import { defineFeature } from "../kernel/feature.ts";
import { tournamentPages } from "./pages.ts";
import { TOURNAMENT_OPERATIONS, type TournamentServices } from "./routes.ts";
import { TournamentService } from "./service.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    tournaments: TournamentServices;
  }
}

/** How often check-in, starts, forfeits and round changes are looked at. */
const SWEEP_MS = 1_000;

export const tournamentsFeature = defineFeature({
  name: "tournaments",
  needs: ["store", "lobby", "live", "ladders", "scrimmages"],
  build: async (kernel, deps) => {
    const tournaments = new TournamentService({
      store: deps.store,
      lobby: deps.lobby,
      live: deps.live,
      ladders: deps.ladders,
      settings: kernel.settings,
      log: kernel.log.child({ feature: "tournaments" }),
      unrated: deps.scrimmages.unrated,
      work: kernel.work,
      publicUrl: kernel.config.publicUrl,
    });
    await tournaments.load();
    return { tournaments };
  },
  operations: TOURNAMENT_OPERATIONS,
  listeners: (s) => ({ MatchFinished: (e) => s.tournaments.finished(e) }),
  jobs: (s) => [
    {
      name: "tournaments",
      nextAt: (now) => now + SWEEP_MS,
      run: (now) => s.tournaments.sweep(now),
    },
  ],
  pages: (http, s) => tournamentPages(http, s),
});
