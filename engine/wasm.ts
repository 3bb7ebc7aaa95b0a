// Where the engine's bytes come from: the asc build output, build/engine.wasm, in the nearest directory at or
// above this module that has it (the repository root both from the sources, engine/wasm.ts, and from the
// server build, build/server/*.js). The bundled simulator (scripts/build-sim.ts) swaps this module for one
// with the bytes inlined, so the bundle is one file.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function engineWasmPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; ) {
    const candidate = join(dir, "build", "engine.wasm");
    if (existsSync(candidate)) return candidate;
    const up = dirname(dir);
    if (up === dir) return join(here, "..", "build", "engine.wasm"); // missing: the error names the usual place
    dir = up;
  }
}

export function loadEngineBytes(): Uint8Array<ArrayBuffer> {
  const path = engineWasmPath();
  try {
    return new Uint8Array(readFileSync(path));
  } catch (err) {
    throw new Error(`cannot read ${path}: run \`npm run build:wasm\` first (${(err as Error).message})`);
  }
}
