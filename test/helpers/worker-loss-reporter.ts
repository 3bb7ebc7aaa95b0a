// Names the test files a run got no result from because the process running them exited (vitest: "Worker exited
// unexpectedly"), and writes what scripts/test.mjs needs to run those files once more: every file of the run,
// the ones that ended, whether any test failed, and the run's unhandled errors. On this 2-core machine a fork
// has died in about one full run in three, in a different file each time (open-data, page-addresses), with no
// test failing and nothing on its stderr; docs/architecture.md, "The test suite's running time", says what is
// known. The file is written only when VITEST_RUN_SUMMARY names it.
import { writeFileSync } from "node:fs";
import { relative } from "node:path";
import type { Reporter, SerializedError, TestModule, TestSpecification } from "vitest/node";

export interface RunSummary {
  files: string[];
  ended: string[];
  failed: string[];
  unhandled: string[];
}

/** Whether an unhandled error of the run is a lost worker process (and nothing else). */
export const isWorkerLoss = (message: string): boolean => /Worker exited unexpectedly/.test(message);

const rel = (path: string) => relative(process.cwd(), path);

export default class WorkerLossReporter implements Reporter {
  private files = new Set<string>();
  private readonly ended = new Set<string>();
  private readonly failed = new Set<string>();

  onTestRunStart(specs: ReadonlyArray<TestSpecification>): void {
    this.files = new Set(specs.map((s) => rel(s.moduleId)));
  }

  onTestModuleEnd(m: TestModule): void {
    this.ended.add(rel(m.moduleId));
    if (m.state() === "failed") this.failed.add(rel(m.moduleId));
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<SerializedError>): void {
    const unhandled = errors.map((e) => {
      const cause = (e as { cause?: { message?: string } }).cause?.message;
      return cause ? `${e.message} (${cause})` : e.message;
    });
    const lost = [...this.files].filter((f) => !this.ended.has(f));
    if (unhandled.some(isWorkerLoss) && lost.length > 0)
      console.log(`\nNo result from ${lost.join(", ")}: the process running it exited during the file.`);
    const out = process.env.VITEST_RUN_SUMMARY;
    if (!out) return;
    const summary: RunSummary = {
      files: [...this.files],
      ended: [...this.ended],
      failed: [...this.failed],
      unhandled,
    };
    writeFileSync(out, JSON.stringify(summary));
  }
}
