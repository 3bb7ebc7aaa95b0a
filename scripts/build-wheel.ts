// Builds the simulator's Python wheel, dist/<package>-<release>-py3-none-any.whl: the Python launcher from
// python/arena_sim/ plus the one-file bundle dist/arena-sim.mjs as package data. The zip has fixed timestamps and
// a fixed entry order, so the same inputs always give the same wheel bytes. Run after scripts/build-sim.ts (which
// calls it), or alone: `tsx scripts/build-wheel.ts`.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type Zippable, zipSync } from "fflate";
import { RELEASE, SIMULATOR_PACKAGE } from "../engine/versions.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

export interface WheelOptions {
  /** The bundled simulator to ship (default dist/arena-sim.mjs). */
  bundle?: string;
  /** Where the .whl goes (default dist/). */
  outDir?: string;
  release?: string;
}

/** File name of the wheel for a release, as the ladder serves it under /download/. */
export function wheelName(release: string = RELEASE): string {
  return `${SIMULATOR_PACKAGE}-${release}-py3-none-any.whl`;
}

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("base64url");
const text = (s: string) => new TextEncoder().encode(s);

/** Builds the wheel and returns its path. */
export function buildWheel(o: WheelOptions = {}): string {
  const release = o.release ?? RELEASE;
  const bundle = o.bundle ?? join(ROOT, "dist", "arena-sim.mjs");
  const outDir = o.outDir ?? join(ROOT, "dist");
  const pkg = SIMULATOR_PACKAGE;
  const distInfo = `${pkg}-${release}.dist-info`;
  const src = join(ROOT, "python", pkg);

  const files: [string, Uint8Array][] = [
    [`${pkg}/__init__.py`, readFileSync(join(src, "__init__.py"))],
    [`${pkg}/__main__.py`, readFileSync(join(src, "__main__.py"))],
    [`${pkg}/_version.py`, text(`__version__ = ${JSON.stringify(release)}\n`)],
    [`${pkg}/arena-sim.mjs`, readFileSync(bundle)],
    [
      `${distInfo}/METADATA`,
      text(
        [
          "Metadata-Version: 2.1",
          `Name: ${pkg}`,
          `Version: ${release}`,
          "Summary: Offline simulator of the arena ladder: its match engine, house bots and replay verifier (runs on Node.js 22+)",
          "Requires-Python: >=3.8",
          "Classifier: Programming Language :: Python :: 3",
          "Description-Content-Type: text/markdown",
          "",
          "# arena-sim",
          "",
          "The ladder's match engine, offline. Plays bots against the house bots or each other, writes replays",
          "and verifies them. Needs Node.js 22 or newer on PATH (or `ARENA_SIM_NODE`).",
          "",
          "    arena-sim play --a kiter --b 'cmd:python3 my_bot.py' --matches 20",
          "",
          "Python: `arena_sim.play(a, b, matches=..., map=..., seed=...)` returns the summary as a dict;",
          "`arena_sim.run(args)` runs any command and returns its exit code. Guide: /docs/simulator on the ladder.",
          "",
        ].join("\n"),
      ),
    ],
    [
      `${distInfo}/WHEEL`,
      text(
        [
          "Wheel-Version: 1.0",
          `Generator: arena-sim scripts/build-wheel.ts (${release})`,
          "Root-Is-Purelib: true",
          "Tag: py3-none-any",
          "",
        ].join("\n"),
      ),
    ],
    [`${distInfo}/entry_points.txt`, text(`[console_scripts]\narena-sim = ${pkg}.__main__:main\n`)],
  ];
  const recordPath = `${distInfo}/RECORD`;
  const record = [
    ...files.map(([p, data]) => `${p},sha256=${sha256(data)},${data.length}`),
    `${recordPath},,`,
    "",
  ].join("\n");
  files.push([recordPath, text(record)]);

  // DOS timestamps are local time: a date built from local fields gives the same bytes in any time zone.
  const mtime = new Date(1980, 0, 1, 0, 0, 0);
  const zippable: Zippable = {};
  for (const [p, data] of files) zippable[p] = [data, { level: 9, mtime, os: 3, attrs: 0o100644 << 16 }];
  const wheel = zipSync(zippable);
  mkdirSync(outDir, { recursive: true });
  const out = join(outDir, wheelName(release));
  writeFileSync(out, wheel);
  return out;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const out = buildWheel();
  console.log(`wrote ${out}`);
}
