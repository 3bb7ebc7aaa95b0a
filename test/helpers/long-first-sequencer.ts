// The order test files start in: longest first, so that with several workers the run does not end on one
// long file started last (the browser suites take minutes; most unit files take well under a second).
// vitest's own order uses the durations it recorded in its cache (node_modules/.vite), which a fresh clone or
// `npm ci` does not have; there it falls back to file size, which puts the browser suites late. This order
// uses a recorded duration when there is one and an estimate by folder otherwise; failed files still go first.
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Rough duration of a file in each folder (ms), from the run times on a 2-core machine. */
const ESTIMATE: [string, number][] = [
  ["test/browser/", 90_000],
  ["test/storage/", 60_000],
  ["test/starters/", 40_000],
  ["test/server/", 30_000],
  ["test/sim/", 10_000],
];

export default class LongFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const weigh = (spec: TestSpecification) => {
      const path = relative(root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      const estimate = ESTIMATE.find(([dir]) => path.startsWith(dir))?.[1] ?? 1_000;
      return { failed: cached?.failed ?? false, ms: cached?.duration || estimate, path };
    };
    const weighed = files.map((spec) => ({ spec, ...weigh(spec) }));
    weighed.sort((a, b) => Number(b.failed) - Number(a.failed) || b.ms - a.ms || (a.path < b.path ? -1 : 1));
    return weighed.map((w) => w.spec);
  }
}
