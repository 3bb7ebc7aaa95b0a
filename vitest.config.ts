import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Every skip is listed with its reason; under CI=true a skip fails the run (test/helpers/skips.ts).
    reporters: ["default", "./test/helpers/skip-reporter.ts"],
  },
});
