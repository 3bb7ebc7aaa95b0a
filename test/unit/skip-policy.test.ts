// The no-silent-skip rule, tested on the test setup itself: a vitest run over a fixture with one skipped
// test lists the skip with its reason; under CI=true a skip fails the run, except a PostgreSQL variant's
// without DATABASE_URL (.ci/run's second pass runs those).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const vitest = `${root}node_modules/vitest/vitest.mjs`;

function runFixture(kind: string, ci: boolean): { status: number | null; out: string } {
  const env: NodeJS.ProcessEnv = { ...process.env, SKIP_KIND: kind, CI: ci ? "true" : "" };
  delete env.DATABASE_URL;
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  delete env.VITEST_POOL_ID;
  delete env.NODE_ENV;
  const r = spawnSync(process.execPath, [vitest, "run", "--config", "test/fixtures/skips/vitest.config.ts"], {
    cwd: root,
    env,
    encoding: "utf8",
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe("no silent skips", () => {
  it("a plain run passes and ends by listing the skip and its reason", () => {
    const r = runFixture("tool", false);
    expect(r.status).toBe(0);
    expect(r.out).toContain("Skipped 1 test(s), by reason:");
    expect(r.out).toContain("/usr/bin/frobnicator is missing");
    expect(r.out).toContain("needs a tool");
    expect(r.out).not.toContain("FAILS CI");
  });

  it("under CI=true a test skipped for a missing tool fails the run", () => {
    const r = runFixture("tool", true);
    expect(r.status).toBe(1);
    expect(r.out).toContain("FAILS CI: /usr/bin/frobnicator is missing");
  });

  it("under CI=true a skip without a reason fails the run too", () => {
    const r = runFixture("bare", true);
    expect(r.status).toBe(1);
    expect(r.out).toContain("no reason given");
  });

  it("under CI=true a PostgreSQL variant without DATABASE_URL is listed, and the run passes", () => {
    const r = runFixture("database", true);
    expect(r.status).toBe(0);
    expect(r.out).toContain("needs DATABASE_URL");
    expect(r.out).not.toContain("FAILS CI");
  });

  it("a run without skips lists nothing", () => {
    const r = runFixture("none", true);
    expect(r.status).toBe(0);
    expect(r.out).not.toContain("Skipped");
  });
});
