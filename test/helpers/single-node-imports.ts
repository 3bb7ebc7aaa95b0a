// Run as a child (`node --import tsx test/helpers/single-node-imports.ts <data dir>`): builds a single server on
// the embedded database, answers one request, stops, and prints as JSON every bare package this process resolved
// that starts with @nats-io/ or is msgpackr (issue 36: a single server never loads the cluster's libraries).
// With a second argument `control` it only loads server/cluster/node.ts, to show the hook does see them.
import { registerHooks } from "node:module";

const seen = new Set<string>();
registerHooks({
  resolve(specifier, context, next) {
    if (specifier.startsWith("@nats-io/") || specifier === "msgpackr") seen.add(specifier);
    return next(specifier, context);
  },
});

if (process.argv[3] === "control") {
  await import("../../server/cluster/node.ts");
  console.log(JSON.stringify({ loaded: [...seen], statusKeys: [] }));
  process.exit(0);
}
const { buildApp } = await import("../../server/app.ts");
const { testConfig } = await import("../../server/config.ts");
const { seedPglite } = await import("./pglite-template.ts");
const dataDir = process.argv[2]!;
seedPglite(dataDir);
const app = await buildApp(testConfig({ dataDir, workers: 1 }), {});
const port = await app.listen();
const status = (await (await fetch(`http://127.0.0.1:${port}/api/status`)).json()) as Record<string, unknown>;
await app.close();
console.log(JSON.stringify({ loaded: [...seen], statusKeys: Object.keys(status) }));
