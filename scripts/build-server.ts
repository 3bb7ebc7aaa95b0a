// Builds the server into plain JavaScript, so `npm start` runs without a TypeScript loader: build/server/main.js
// (server/main.ts) and build/server/pool-worker.js (pool/worker.ts), ES modules with npm packages left as
// imports from node_modules. pool/pool.ts expects the built worker beside the bundle that contains it. Files the
// server reads at run time stay where they are in the repository (server/root.ts finds them from build/ too).
import { statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type BuildOptions, build } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const SERVER_BUILD_DIR = join(ROOT, "build", "server");

const ENTRIES = {
  main: join(ROOT, "server", "main.ts"),
  // Loaded by main.js after its allocator setting (server/memory-tuning.ts), not bundled into it.
  serve: join(ROOT, "server", "serve.ts"),
  "pool-worker": join(ROOT, "pool", "worker.ts"),
};

const common: BuildOptions = {
  bundle: true,
  platform: "node",
  target: "node22",
  packages: "external",
  sourcemap: "linked",
  logLevel: "warning",
  absWorkingDir: ROOT,
};

export async function buildServer(outDir = SERVER_BUILD_DIR): Promise<string[]> {
  // Piscina require()s its worker first; an ES module without top-level await loads that way at once on the
  // supported Node lines, with no race between two matches starting together on a new thread (see
  // pool/worker.cjs). The CommonJS output format refuses top-level await, so a trial build in it checks that.
  // (Its warnings, about import.meta in that format, do not apply to the real build.)
  await build({
    ...common,
    entryPoints: [ENTRIES["pool-worker"]],
    format: "cjs",
    write: false,
    sourcemap: false,
    logLevel: "error",
  });
  await build({ ...common, entryPoints: ENTRIES, format: "esm", outdir: outDir });
  return Object.keys(ENTRIES).map((name) => join(outDir, `${name}.js`));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  for (const f of await buildServer()) console.log(`wrote ${f} (${Math.round(statSync(f).size / 1024)} KiB)`);
}
