// The repository's root directory, for the files the server reads at run time (web/, docs/, migrations/, the
// ladder manifest, dist/, the starter bots). Found upwards from this module, so it is the same directory whether
// the server runs from its sources (server/root.ts under tsx or vitest) or from the build (build/server/main.js).
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const PACKAGE_NAME = "arena-ladder";

function isRoot(dir: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown };
    return pkg.name === PACKAGE_NAME;
  } catch {
    return false;
  }
}

/** The nearest directory at or above `from` whose package.json is this project's. */
export function findRepoRoot(from: string): string {
  for (let dir = from; ; ) {
    if (isRoot(dir)) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no ${PACKAGE_NAME} package.json at or above ${from}`);
    dir = up;
  }
}

export const REPO_ROOT = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the repository. */
export function repoPath(...parts: string[]): string {
  return join(REPO_ROOT, ...parts);
}
