// Piscina loads plain JavaScript: this shim registers tsx's loader in the worker thread (Node 20 ignores
// `--import` in a worker's execArgv), then hands over to the TypeScript worker.
import { register } from "tsx/esm/api";

register();
const { default: runMatch } = await import("./worker.ts");
export default runMatch;
