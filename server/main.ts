// The server's entry point. First the Node line (server/node-version.mjs: an unsupported one stops here), then
// the memory settings that keep memory freed at start, and big answers' young garbage, from staying resident
// (server/memory-tuning.ts: this may re-execute the process once, with the same id); then the server
// itself (server/serve.ts), loaded only after that so a re-execution does not load the server's modules twice.
import { tuneMemory } from "./memory-tuning.ts";
import { nodeVersionProblem } from "./node-version.mjs";

// Before anything else: an unsupported Node stops here with one line naming the supported lines.
const nodeProblem = nodeVersionProblem(process.versions.node);
if (nodeProblem) {
  console.error(nodeProblem);
  process.exit(1);
}
tuneMemory();
// In the build, serve.ts is build/server/serve.js beside this file (scripts/build-server.ts).
await import(new URL(import.meta.url.endsWith(".ts") ? "./serve.ts" : "./serve.js", import.meta.url).href);
