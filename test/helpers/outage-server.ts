// The server as server/main.ts starts it, except that its database can be made unreachable from outside:
// each SIGUSR2 toggles the outage (see outage.ts). The kill -9 outage test runs it as a child process, since
// the embedded database cannot be stopped apart from the process that holds it.
import { buildApp } from "../../server/app.ts";
import { type Config, parseConfig } from "../../server/config.ts";
import { openOutageStore } from "./outage.ts";

const config = parseConfig(process.argv.slice(2)) as Config;
const { store, outage } = await openOutageStore({
  dataDir: config.dataDir,
  ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
});
const app = await buildApp(config, { store, results: { retryMinMs: 50, retryMaxMs: 200 } });
const port = await app.listen();
app.http.log.info({ port }, "ladder ready");
process.on("SIGUSR2", () => {
  outage.down = !outage.down;
  app.http.log.info({ down: outage.down }, "database outage toggled");
});
