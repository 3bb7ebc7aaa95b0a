import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Creates the run's template PGlite clusters once; fresh data dirs start from a copy of one
    // (test/helpers/pglite-template.ts) instead of creating and migrating a database each.
    globalSetup: ["./test/helpers/pglite-template-setup.ts"],
    // Every skip is listed with its reason; under CI=true a skip fails the run (test/helpers/skips.ts).
    reporters: ["default", "./test/helpers/skip-reporter.ts"],
  },
});
