// Open data as a feature (issue 35): the daily dumps of each ladder's rated results, the job that writes them
// and the addresses that serve them (routes.ts). The job is due a little after each UTC midnight and once
// shortly after start (a restart writes the days it missed); its run only starts the work, which goes on in
// the background a page of rows at a time, so other scheduled jobs never wait on it.
import { defineFeature } from "../kernel/feature.ts";
import type { ScheduledJob } from "../kernel/scheduler.ts";
import { GRACE_MS, OpenDataDumps, recordVersions } from "./dumps.ts";
import { OPEN_DATA_OPERATIONS, type OpenDataServices, openDataPages } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    openData: OpenDataServices;
  }
}

const DAY_MS = 86_400_000;
/** After start, the first catch-up waits this long (start-up has its own work to do first). */
const START_DELAY_MS = 30_000;
/** A failed run (the database away) is tried again this much later. */
const RETRY_MS = 5 * 60_000;

/**
 * The daily dump job. `state.pending`: the catch-up after start is still due; `state.failed`: the last run failed
 * (the database away), so the next try is RETRY_MS after it rather than the next midnight. A run's failure comes
 * after the scheduler has asked for the next time, so it tells the scheduler to ask again (`reschedule`).
 */
export function dumpJob(
  svc: Pick<OpenDataServices, "catchUp" | "log">,
  state: { pending: boolean; failed: boolean },
  reschedule: () => void,
): ScheduledJob {
  return {
    name: "open data dumps",
    nextAt(last) {
      if (state.pending) return last + START_DELAY_MS;
      if (state.failed) return last + RETRY_MS;
      // The next UTC midnight plus the grace, after `last`.
      const next = Math.floor(last / DAY_MS) * DAY_MS + GRACE_MS;
      return next > last ? next : next + DAY_MS;
    },
    run(now) {
      state.pending = false;
      state.failed = false;
      void svc.catchUp(now).catch((err: unknown) => {
        svc.log.error({ err }, "open data dump failed; retrying later");
        state.failed = true;
        reschedule();
      });
    },
  };
}

export const openDataFeature = defineFeature({
  name: "openData",
  needs: ["ladders"],
  build: async (kernel, deps) => {
    const dumps = new OpenDataDumps(kernel.db, kernel.config.dataDir);
    await recordVersions(kernel.db);
    let running: Promise<void> | null = null;
    return {
      ...deps,
      config: kernel.config,
      log: kernel.log,
      dumps,
      catchUp(now = Date.now()) {
        // One run at a time: a second call waits for the one under way and then finds its days done.
        const go = async () => {
          for (const l of deps.ladders.all()) {
            const r = await dumps.run(l.id, now);
            if (r.written.length > 0)
              kernel.log.info(
                { ladder: l.id, days: r.written.length, lines: r.lines },
                "open data dumps written",
              );
          }
        };
        const next = (running ?? Promise.resolve()).catch(() => undefined).then(go);
        running = next;
        next
          .finally(() => {
            if (running === next) running = null;
          })
          .catch(() => undefined); // the caller is handed `next` and handles its failure
        return next;
      },
    };
  },
  operations: OPEN_DATA_OPERATIONS,
  pages: openDataPages,
  jobs: (svc, kernel) => [
    dumpJob(svc, { pending: true, failed: false }, () => kernel.scheduler.reschedule()),
  ],
});
