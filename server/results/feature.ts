// The durable side of a result as two features: the replay files in the data dir, and the results that reach the
// database (SPEC 3.3: written at once, or journaled and retried while the database is away). Built first among the
// domains: the journal of the last run is written to the database before any rating book loads, and replay files
// of matches that were never stored are removed.
import { defineFeature } from "../kernel/feature.ts";
import { ReplayFiles } from "../replays.ts";
import { DurableResults, type DurableResultsDeps } from "./durable-results.ts";
import { ResultJournal } from "./journal.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** The replay files of stored matches (`<data dir>/replays`). */
    replays: ReplayFiles;
    /** Results on their way to the database, and those journaled while it was away. */
    results: DurableResults;
  }
  interface Overrides {
    /** Timing of the result journal (tests shorten the backoff). */
    results?: Pick<DurableResultsDeps, "commitTimeoutMs" | "retryMinMs" | "retryMaxMs">;
  }
}

export const replayFilesFeature = defineFeature({
  name: "replays",
  needs: [],
  build: (kernel) => new ReplayFiles(kernel.config.dataDir),
});

export const resultsFeature = defineFeature({
  name: "results",
  needs: ["matchStore", "replays"],
  build: async (kernel, { matchStore, replays }) => {
    const { config, log, overrides } = kernel;
    const results = new DurableResults({
      store: matchStore,
      journal: new ResultJournal(config.dataDir),
      log,
      ...overrides.results,
    });
    await results.recover();
    const referenced = await matchStore.replayFiles();
    for (const r of results.pending()) if (r.replay_file) referenced.add(r.replay_file);
    const orphans = await replays.sweepOrphans(referenced);
    if (orphans > 0) log.warn({ orphans }, "removed replay files of matches that were never stored");
    return results;
  },
  stop: (results) => results.stop(),
});
