import { configDefaults, defineConfig } from "vitest/config";
import LongFirstSequencer from "./test/helpers/long-first-sequencer.ts";

/**
 * Files that run one at a time, after all the others (docs/architecture.md, "The test suite's running time"):
 * the ones that measure time against the wall clock with little slack (the one-per-second mail spacing the SMTP
 * sink sees, an SMTP server's greeting and DATA timeouts, the equal-time recover and resend), and the cluster
 * suites, which start three servers with their own nats-server each and kill them on purpose.
 */
const ALONE = [
  "test/server/email-outbox.test.ts",
  "test/server/email-identity.test.ts",
  "test/server/identity-attacks.test.ts",
  "test/server/cluster*.test.ts",
  "test/server/outage-cluster.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Creates the run's template PGlite clusters once per project; fresh data dirs start from a copy of one
    // (test/helpers/pglite-template.ts) instead of creating and migrating a database each.
    globalSetup: ["./test/helpers/pglite-template-setup.ts"],
    // Longest files first, also without vitest's duration cache (test/helpers/long-first-sequencer.ts).
    sequence: { sequencer: LongFirstSequencer },
    // Every skip is listed with its reason; under CI=true a skip fails the run (test/helpers/skips.ts).
    // A file whose test process was lost is named, for scripts/test.mjs (test/helpers/worker-loss-reporter.ts).
    reporters: ["default", "./test/helpers/skip-reporter.ts", "./test/helpers/worker-loss-reporter.ts"],
    // Each test process says when it exits or is signalled in the middle of a file (fork-exit-watch.ts).
    setupFiles: ["./test/helpers/fork-exit-watch.ts"],
    // Two files at a time, then the ALONE files one at a time (groupOrder: a group starts when the one before
    // it has ended). Most of a server or browser test's time is waiting, so two at a time on two cores runs
    // the suite in well under half the time of one at a time. `include` is set per project: a project that
    // extends the root config adds its own list to the root's instead of replacing it.
    projects: [
      {
        extends: true,
        test: {
          name: "pairs",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...ALONE],
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: { name: "alone", include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
