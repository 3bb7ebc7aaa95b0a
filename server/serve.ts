// The server: parses the flags, builds the app, listens and wires signals (loaded by server/main.ts, the entry,
// which is with this file the only code that reads the environment). The first SIGTERM/SIGINT drains (SPEC
// 3.10); a second one closes every socket with 1012 and stops at once.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { VERSIONS } from "../engine/versions.ts";
import { WORKER_ENTRY } from "../pool/pool.ts";
import { buildApp } from "./app.ts";
import { type Config, ConfigError, helpText, parseConfig } from "./config.ts";
import { readableLogStream, startBanner, wantsReadableLog } from "./console-log.ts";

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

// A person at a terminal reads lines and a banner; a file, a pipe or a process manager keeps the JSON lines.
const readable = wantsReadableLog(config.logFormat, process.stdout.isTTY);
let app: Awaited<ReturnType<typeof buildApp>>;
try {
  app = await buildApp(
    config,
    readable ? { logStream: readableLogStream(process.stdout, config.logLevel) } : {},
  );
} catch (err) {
  console.error(`cannot start: ${(err as Error).message}`);
  process.exit(1);
}
let port: number;
try {
  port = await app.listen();
} catch (err) {
  // An address in use or not allowed is the operator's to fix: say which flag, not a stack trace.
  console.error(`cannot start: ${listenFailure(err as NodeJS.ErrnoException, config)}`);
  await app.close().catch(() => {});
  process.exit(1);
}
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
if (readable && config.logLevel !== "silent") {
  const mailer = app.ctx.identity?.mailer;
  process.stdout.write(
    startBanner({
      release: VERSIONS.release,
      publicUrl: config.publicUrl,
      port,
      accounts: config.accounts,
      anonymousDev: config.anonymousDev,
      adminEmails: config.adminEmails,
      mail: !mailer
        ? { mode: "none" }
        : mailer.mode === "smtp"
          ? { mode: "smtp" }
          : {
              mode: "outbox",
              dir: join(config.dataDir, "outbox"),
              development: /^https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/.test(config.publicUrl),
            },
      database: app.ctx.store.driver,
      dataDir: config.dataDir,
      logLevel: config.logLevel,
    }),
  );
}

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

/** What a failed listen means, naming the flag whose address it was. */
function listenFailure(err: NodeJS.ErrnoException & { address?: string; port?: number }, c: Config): string {
  const m = c.metricsListen;
  const flag = m && err.port === m.port && err.port !== c.port ? "--metrics-listen" : "--host/--port";
  const where = err.address !== undefined ? `${err.address}:${err.port}` : "the address";
  if (err.code === "EADDRINUSE") return `${where} (${flag}) is already in use by another program`;
  if (err.code === "EACCES") return `${where} (${flag}) needs privileges this process does not have`;
  if (err.code === "EADDRNOTAVAIL") return `${where} (${flag}) is not an address of this machine`;
  return `listening on ${where} (${flag}) failed: ${err.message}`;
}
