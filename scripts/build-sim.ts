// Bundles the offline simulator (sim/arena-sim.ts) into single self-contained files: dist/arena-sim.mjs (ESM)
// and dist/arena-sim.js (CommonJS), each with engine.wasm inlined and every npm dependency included, so
// `node dist/arena-sim.mjs play ...` works from any directory without node_modules. Then builds the wheel.
// engine/wasm.ts stays as it is for normal runs: the bundle swaps it for a module holding the bytes.
import { chmodSync, existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { RELEASE } from "../engine/versions.ts";
import { buildWheel } from "./build-wheel.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const WASM = join(ROOT, "build", "engine.wasm");
const WASM_MODULE = join(ROOT, "engine", "wasm.ts");

/** Replaces engine/wasm.ts with a module that decodes the engine bytes embedded as base64. */
function inlineEngineWasm(bytes: Uint8Array): Plugin {
  return {
    name: "inline-engine-wasm",
    setup(b) {
      b.onLoad({ filter: /[\\/]engine[\\/]wasm\.ts$/ }, (args) => {
        if (resolve(args.path) !== WASM_MODULE) return undefined;
        const b64 = Buffer.from(bytes).toString("base64");
        return {
          loader: "ts",
          contents: [
            "// engine.wasm, inlined by scripts/build-sim.ts",
            `const ENGINE_WASM_BASE64 = ${JSON.stringify(b64)};`,
            "export function loadEngineBytes(): Uint8Array<ArrayBuffer> {",
            `  return new Uint8Array(Buffer.from(ENGINE_WASM_BASE64, "base64"));`,
            "}",
          ].join("\n"),
        };
      });
    },
  };
}

export interface BuiltSim {
  mjs: string;
  js: string;
  wheel: string;
}

export async function buildSim(outDir = join(ROOT, "dist")): Promise<BuiltSim> {
  if (!existsSync(WASM)) throw new Error(`${WASM} is missing: run \`npm run build:wasm\` first`);
  const bytes = new Uint8Array(readFileSync(WASM));
  const common = {
    entryPoints: [join(ROOT, "sim", "arena-sim.ts")],
    bundle: true,
    platform: "node" as const,
    target: "node20",
    plugins: [inlineEngineWasm(bytes)],
    logLevel: "warning" as const,
    legalComments: "eof" as const,
    absWorkingDir: ROOT,
  };
  const mjs = join(outDir, "arena-sim.mjs");
  const js = join(outDir, "arena-sim.js");
  const header = `#!/usr/bin/env node\n// arena-sim ${RELEASE}: the arena ladder's match engine, offline. https://<ladder>/docs/simulator`;
  await build({
    ...common,
    format: "esm",
    outfile: mjs,
    // Bundled CommonJS dependencies may require() Node built-ins, which ESM output has no require for.
    banner: {
      js: `${header}\nimport { createRequire as __arenaSimRequire } from "node:module";\nconst require = __arenaSimRequire(import.meta.url);`,
    },
  });
  await build({ ...common, format: "cjs", outfile: js, banner: { js: header } });
  for (const f of [mjs, js]) chmodSync(f, 0o755); // runnable as ./arena-sim.mjs too
  const wheel = buildWheel({ bundle: mjs, outDir });
  return { mjs, js, wheel };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const out = await buildSim();
  for (const f of [out.mjs, out.js, out.wheel])
    console.log(`wrote ${f} (${Math.round(statSync(f).size / 1024)} KiB)`);
}
