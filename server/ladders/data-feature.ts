// The public ladder data as a feature (SPEC 4.1: leaderboard, lobby, bots, users, matches and their stats): its
// operations, handed the ladder reads and the accounts (an owner sees their own bot's private fields).
import { defineFeature } from "../kernel/feature.ts";
import { DATA_OPERATIONS, type DataServices } from "./data-routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    data: DataServices;
  }
}

export const dataFeature = defineFeature({
  name: "data",
  needs: ["accounts", "insight", "reads"],
  build: (_kernel, deps) => deps,
  operations: DATA_OPERATIONS,
  // Bot health is kept up to date as results are committed (issue 38), not recomputed per read: this node's
  // results and, in a cluster, every other node's.
  listeners: (svc) => ({
    MatchFinished: (e) => svc.reads.noteResult(e.match),
    PeerResult: (e) => svc.reads.notePeerResult(e.match),
  }),
});
