// The server's entry point. First the allocator's setting that keeps memory freed at start from staying
// resident (server/malloc-tuning.ts: this may re-execute the process once, with the same id); then the server
// itself (server/serve.ts), loaded only after that so a re-execution does not load the server's modules twice.
import { tuneMalloc } from "./malloc-tuning.ts";

tuneMalloc();
// In the build, serve.ts is build/server/serve.js beside this file (scripts/build-server.ts).
await import(new URL(import.meta.url.endsWith(".ts") ? "./serve.ts" : "./serve.js", import.meta.url).href);
