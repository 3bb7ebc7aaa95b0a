// The server: parses the flags, builds the app, listens and wires signals (loaded by server/main.ts, the entry,
// which is with this file the only code that reads the environment). The first SIGTERM/SIGINT drains (SPEC
// 3.10); a second one closes every socket with 1012 and stops at once.
import { fileURLToPath } from "node:url";
import { WORKER_ENTRY } from "../pool/pool.ts";
import { buildApp } from "./app.ts";
import { ConfigError, helpText, parseConfig } from "./config.ts";

let config: ReturnType<typeof parseConfig>;
try {
  config = parseConfig(process.argv.slice(2));
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(`cannot start: ${err.message}`);
    process.exit(2);
  }
  throw err;
}
if (config === "help") {
  console.log(helpText());
  process.exit(0);
}

let app: Awaited<ReturnType<typeof buildApp>>;
try {
  app = await buildApp(config);
} catch (err) {
  console.error(`cannot start: ${(err as Error).message}`);
  process.exit(1);
}
const port = await app.listen();
app.http.log.info(
  {
    port,
    publicUrl: config.publicUrl,
    database: app.ctx.store.driver,
    schema: app.ctx.store.schema,
    // Built (build/server/pool-worker.js) or TypeScript through tsx (pool/worker.cjs): says which start this is.
    poolWorker: fileURLToPath(WORKER_ENTRY),
  },
  "ladder ready",
);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) {
    app.http.log.warn({ signal }, "second signal: stopping now");
    // Sockets still get their 1012 close (SPEC 3.10, 7.2): a process exit alone would cut them (1006), and a
    // client could not tell a planned restart from a crash.
    void app.stopNow().finally(() => process.exit(1));
    return;
  }
  stopping = true;
  app.http.log.info({ signal }, "shutdown begins");
  void app.drain().then(() => process.exit(0));
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
