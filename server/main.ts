// The server's entry point. First the Node line (server/node-version.mjs: an unsupported one stops here), then
// the allocator's setting that keeps memory freed at start from staying
// resident (server/malloc-tuning.ts: this may re-execute the process once, with the same id); then the server
// itself (server/serve.ts), loaded only after that so a re-execution does not load the server's modules twice.
import { tuneMalloc } from "./malloc-tuning.ts";
import { nodeVersionProblem } from "./node-version.mjs";

// Before anything else: an unsupported Node stops here with one line naming the supported lines.
const nodeProblem = nodeVersionProblem(process.versions.node);
if (nodeProblem) {
  console.error(nodeProblem);
  process.exit(1);
}
tuneMalloc();
// In the build, serve.ts is build/server/serve.js beside this file (scripts/build-server.ts).
await import(new URL(import.meta.url.endsWith(".ts") ? "./serve.ts" : "./serve.js", import.meta.url).href);
