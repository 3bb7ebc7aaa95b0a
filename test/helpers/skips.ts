// No silent skips: a test that cannot run here says why, through ctx.skip(reason), and
// test/helpers/skip-reporter.ts lists every skip at the end of a run. Under CI=true a skip fails the run,
// unless its reason starts with NEEDS_DATABASE_URL: .ci/run's first pass (npm test) runs without
// DATABASE_URL and its second pass runs the PostgreSQL variants with it. A missing tool (Chromium, Python's
// websockets or venv) is never an excuse under CI, which installs them.
import { beforeEach, it } from "vitest";

/** The reason of a PostgreSQL variant's skip when DATABASE_URL is not set: allowed under CI. */
export const NEEDS_DATABASE_URL = "needs DATABASE_URL";
export const DATABASE_URL_MISSING = process.env.DATABASE_URL
  ? null
  : `${NEEDS_DATABASE_URL}: the PostgreSQL variant (.ci/run's second pass sets it)`;

/** Skips every test of the enclosing describe, with `reason`, when there is one (null: run them). */
export function skipAllIf(reason: string | null): void {
  beforeEach((ctx) => {
    if (reason !== null) ctx.skip(reason);
  });
}

/** `it`, or when `reason` is not null an `it` whose tests are skipped with that reason. */
export function itUnless(reason: string | null): (name: string, fn: () => unknown, timeout?: number) => void {
  if (reason === null) return (name, fn, timeout) => it(name, fn, timeout);
  return (name) => it(name, (ctx) => ctx.skip(reason));
}
