// npm's preinstall, predev and prestart (package.json): stops with one line when this Node is not a supported
// line (server/node-version.mjs). `node scripts/check-node.mjs <version>` checks that version instead, and says
// so: what a test or an operator planning an upgrade asks.
import { nodeVersionProblem } from "../server/node-version.mjs";

const asked = process.argv[2];
const problem = nodeVersionProblem(asked ?? process.versions.node);
if (problem) {
  console.error(problem);
  process.exit(1);
}
if (asked) console.log(`Node ${asked.replace(/^v/, "")} is supported.`);
