// Starts a worker thread that runs a TypeScript file. Node 20 ignores `--import tsx` in a Worker's
// execArgv, so the worker registers tsx's loader itself before importing the file.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

// The ESM entry of tsx's API, found from its package.json (resolving "tsx/esm/api" here would give the CJS one).
const tsxRoot = dirname(createRequire(import.meta.url).resolve("tsx/package.json"));
const tsxApi = pathToFileURL(join(tsxRoot, "dist/esm/api/index.mjs")).href;

export function tsWorker(file: URL, workerData: unknown): Worker {
  const code = `const { register } = await import(${JSON.stringify(tsxApi)}); register(); await import(${JSON.stringify(file.href)});`;
  return new Worker(code, { eval: true, workerData });
}
