// The import rules of the server, the match pool and the engine (issue 32), checked by `npm run check`:
//   (a) no import circle of more than one file (`no-circular`);
//   (b) no import from a lower layer to a higher one (`layer-<name>`: what that layer may not import).
// The layers are written down once, in LAYERS below, bottom to top; the rules are derived from that list.
//
// Imports count as written: type-only imports (`import type`, `import { type X }`) are arrows like any other.
// They are erased at run time, but they are what a file's source depends on: a file that names
// a type in a signature has to change when that type does, and moves with it.
//
// The file rules (a, b) have no known violations: any circle or upward arrow fails `npm run check`. A new need
// goes down a layer or through the feature contract (server/kernel/feature.ts: services by name, bus events,
// module augmentation), never back up.
//   (c) no two folders of server/ that import each other, through any files (`no-folder-circle`). This one has
//       a baseline: .dependency-cruiser-known-violations.json lists the folder circles still in the code, and
//       scripts/check-imports.mjs (`npm run check:imports`) fails on one that is not in it, so the list only
//       shrinks. After removing
//       one, write the list again with `npx depcruise-baseline server pool engine sim`.

/** Leaf modules of server/: they import engine/, pool/ and each other only. */
const BASE_FOLDERS = ["db", "kernel"];
const BASE_FILES = [
  "errors", // the code catalog
  "config", // the frozen start-up configuration
  "root", // the repository's root directory
  "client-address",
  "public-address",
  "connection-cap",
  "http-limits",
  "malloc-tuning",
  "proxy-addr.d",
];
/** The files that put the server together: they may import anything; nothing below imports them. */
const COMPOSITION_FILES = [
  "app", // buildApp
  "serve", // the process around it
  "main", // reads the environment and listens
  "http-server", // the Fastify instance every feature mounts on, with the one error handler
  "operations", // the list of every operation, made from the feature list
  "features", // the feature list (server/kernel/feature.ts): one line per feature
];

const any = (names) => names.map((n) => n.replace(/[.]/g, "\\.")).join("|");
const base = `^server/(?:(?:${any(BASE_FOLDERS)})/|(?:${any(BASE_FILES)})\\.ts$)`;
const composition = `^server/(?:${any(COMPOSITION_FILES)})\\.ts$`;

/**
 * Bottom to top. A file may import files of its own layer and of the layers below it.
 * - engine: the rules, the match, the protocol, house bots and the simulator (engine/assembly is the
 *   AssemblyScript source of the wasm module and is not cruised; the one TypeScript import that reaches it is
 *   engine/assembly/geometry.ts, the line of sight and ray the house bots share with the engine).
 * - pool: the match worker pool; plays matches with the engine.
 * - server-base: the storage seam (db/), the kernel (operation definitions, bus, unit of work, settings,
 *   scheduler) and the leaf modules listed in BASE_FILES. A feature builds on them; they know no feature.
 * - server-domain: every other folder and file of server/: the domains and features (ladders, play, ratings,
 *   bots, accounts, mail, events, mcp, routes, the store registry, ...). They are one layer: an import
 *   between two of them is allowed, a circle between them is not (rule a).
 * - composition: the files in COMPOSITION_FILES.
 * - sim: the simulator's command line (sim/arena-sim.ts), which joins the engine's simulator and the ladder's own
 *   rating code (a league ranks as the ladder does); nothing in engine/, pool/ or server/ imports it.
 */
const LAYERS = [
  { name: "engine", path: "^engine/" },
  { name: "pool", path: "^pool/" },
  { name: "server-base", path: base },
  {
    name: "server-domain",
    path: `^server/(?!(?:${any(BASE_FOLDERS)})/|(?:${any([...BASE_FILES, ...COMPOSITION_FILES])})\\.ts$)`,
  },
  { name: "composition", path: composition },
  { name: "sim", path: "^sim/" },
];

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.name}`,
  comment: `${layer.name} imports nothing above it (${LAYERS.slice(i + 1)
    .map((l) => l.name)
    .join(", ")}): see LAYERS in .dependency-cruiser.cjs`,
  severity: "error",
  from: { path: layer.path },
  to: { path: LAYERS.slice(i + 1).map((l) => l.path) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "an import circle of more than one file: the files cannot be understood, moved or loaded apart",
      severity: "error",
      from: { path: "^(?:server|pool|engine)/" },
      to: { circular: true },
    },
    {
      name: "no-folder-circle",
      comment:
        "two folders of the server that import each other (through any files): neither can be read, moved or " +
        "owned apart. A feature's folder imports the folders it builds on, never the other way",
      severity: "error",
      scope: "folder",
      from: { path: "^server/" },
      to: { circular: true },
    },
    ...upward,
  ],
  options: {
    includeOnly: "^(?:server|pool|engine)/",
    exclude: { path: "^engine/assembly/" },
    doNotFollow: { path: "node_modules" },
    // "specify": type-only imports are in the graph, marked `type-only` (see the top of this file).
    tsPreCompilationDeps: "specify",
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js", ".mjs", ".cjs", ".json"] },
  },
};
