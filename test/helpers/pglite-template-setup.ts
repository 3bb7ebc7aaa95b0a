// vitest globalSetup: creates the run's template PGlite clusters (test/helpers/pglite-template.ts) and removes
// them after the run. The creation runs in a child process under tsx (test/helpers/pglite-template-make.ts):
// vitest's module runner for globalSetup has no import.meta.resolve, which the embedded driver uses.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

const MAKE = new URL("./pglite-template-make.ts", import.meta.url).pathname;

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), "ladder-pglite-templates-"));
  execFileSync(process.execPath, ["--import", "tsx", MAKE, dir], { stdio: "inherit" });
  project.provide("pgliteTemplates", dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
