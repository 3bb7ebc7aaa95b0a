// Writes web/geometry.js, the replay viewer's copy of line of sight and the ranged ray, from the engine's own
// source (engine/assembly/geometry.ts) with its types stripped, so the shot a spectator sees drawn is the ray
// the engine fired (issue 32: one source for the geometry). The file is committed because web/ is served as it
// is; `npm run build` rewrites it, and test/unit/geometry.test.ts fails when it is not what this script writes.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { transformSync } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCE = join(ROOT, "engine", "assembly", "geometry.ts");
export const WEB_GEOMETRY = join(ROOT, "web", "geometry.js");

const HEADER = `// Generated from engine/assembly/geometry.ts by scripts/build-web-geometry.ts (npm run build): do not edit.
// The engine's line of sight and ranged ray, for the replay viewer (web/viewer.js).
`;

/** The text web/geometry.js should hold. */
export function webGeometrySource(): string {
  const { code } = transformSync(readFileSync(SOURCE, "utf8"), {
    loader: "ts",
    format: "esm",
    target: "es2020",
    legalComments: "none",
  });
  return HEADER + code;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(WEB_GEOMETRY, webGeometrySource());
  console.log(`wrote ${WEB_GEOMETRY}`);
}
