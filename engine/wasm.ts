// Where the engine's bytes come from: the asc build output next to the sources. The bundled simulator
// (scripts/build-sim.ts) swaps this module for one with the bytes inlined, so the bundle is one file.
import { readFileSync } from "node:fs";

export function loadEngineBytes(): Uint8Array<ArrayBuffer> {
  const url = new URL("../build/engine.wasm", import.meta.url);
  try {
    return new Uint8Array(readFileSync(url));
  } catch (err) {
    throw new Error(
      `cannot read ${url.pathname}: run \`npm run build:wasm\` first (${(err as Error).message})`,
    );
  }
}
