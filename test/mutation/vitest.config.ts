// The vitest configuration Stryker runs under: only the module's test files (MUTATION_TESTS, set by
// test/mutation/run.ts), no skip reporter, the project's timeouts.
import { defineConfig } from "vitest/config";

const tests = (process.env.MUTATION_TESTS ?? "").split(",").filter(Boolean);

export default defineConfig({
  test: {
    include: tests.length > 0 ? tests : ["test/unit/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
