import { defineConfig } from "vitest/config";
import LongFirstSequencer from "./test/helpers/long-first-sequencer.ts";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Creates the run's template PGlite clusters once; fresh data dirs start from a copy of one
    // (test/helpers/pglite-template.ts) instead of creating and migrating a database each.
    globalSetup: ["./test/helpers/pglite-template-setup.ts"],
    // One file at a time stays vitest's default on 2 cores (cores - 1): `--maxWorkers=3` runs the suite in
    // about two thirds of the time, but on a loaded machine timing-sensitive tests then fail now and then
    // (docs/architecture.md, "The test suite's running time").
    // Longest files first, also without vitest's duration cache (test/helpers/long-first-sequencer.ts).
    sequence: { sequencer: LongFirstSequencer },
    // Every skip is listed with its reason; under CI=true a skip fails the run (test/helpers/skips.ts).
    reporters: ["default", "./test/helpers/skip-reporter.ts"],
  },
});
