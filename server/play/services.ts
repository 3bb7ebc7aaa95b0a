// The running matches as services: the live matches and their table by id.
import type { RunningMatch } from "../runner/match-runner.ts";
import type { LiveMatches } from "./live-matches.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** The running matches. */
    live: LiveMatches;
    /** Running matches by id. */
    matches: ReadonlyMap<string, RunningMatch>;
  }
}
