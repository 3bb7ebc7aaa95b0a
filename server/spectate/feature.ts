// Replay files as a feature (SPEC 4.1 `GET /replays/<file>`): the operation that serves a stored match's replay,
// handed the ladder reads and the replay files.
import { defineFeature } from "../kernel/feature.ts";
import { REPLAY_OPERATIONS, type ReplayServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    replayFiles: ReplayServices;
  }
}

export const replaysFeature = defineFeature({
  name: "replayFiles",
  needs: ["reads", "replays"],
  build: (_kernel, deps) => deps,
  operations: REPLAY_OPERATIONS,
});
