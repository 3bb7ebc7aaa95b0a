// The real server as a child process on a data dir (kill -9 tests): `node server/main.ts`, or another entry
// that takes the same flags (test/helpers/outage-server.ts, or the built build/server/main.js, which runs
// without tsx), resolved once it logs "ladder ready".
import { type ChildProcess, spawn } from "node:child_process";
import { seedPglite } from "./pglite-template.ts";
import { freePort } from "./ports.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

export interface Child {
  proc: ChildProcess;
  url: string;
  wsUrl: string;
  log: string[];
  exited: Promise<number | null>;
}

export interface ChildOptions {
  /** The entry file, relative to the repository (default server/main.ts); a `.js` entry runs without tsx. */
  entry?: string;
  /** Flags after the defaults below (a later flag wins). */
  args?: string[];
  /**
   * Run with this log level, above `info` (benchmarks: request logging costs the server time). The server is
   * then found ready by polling `GET /api` on a port chosen here, since its "ladder ready" line is not logged.
   */
  quietLevel?: "warn" | "error";
  /**
   * Let the server create its embedded database cluster on an empty data dir, as a first start in production
   * does, instead of starting from a copy of the run's template cluster (test/helpers/pglite-template.ts).
   */
  freshCluster?: boolean;
}

/** Starts the server and resolves once it logs "ladder ready" with its port. */
export async function startChild(
  dataDir: string,
  databaseUrl: string | undefined,
  opts: ChildOptions = {},
): Promise<Child> {
  if (!databaseUrl && !opts.freshCluster) seedPglite(dataDir);
  const fixedPort = opts.quietLevel ? await freePort() : 0;
  const entry = opts.entry ?? "server/main.ts";
  const args = [
    ...(entry.endsWith(".ts") ? ["--import", "tsx"] : []),
    entry,
    "--anonymous-dev",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--data-dir",
    dataDir,
    "--workers",
    "2",
    "--tick-ms",
    "100",
    "--startup-ms",
    "2000",
    "--reconnect-grace-ms",
    "500",
    "--match-interval",
    "0",
    "--log-level",
    "info",
    ...(databaseUrl ? ["--database-url", databaseUrl] : []),
    ...(opts.args ?? []),
    ...(opts.quietLevel ? ["--port", String(fixedPort), "--log-level", opts.quietLevel] : []),
  ];
  const env = { ...process.env };
  delete env.DATABASE_URL; // the URL is passed explicitly (a fresh schema), never inherited
  const proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const log: string[] = [];
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log.join("\n")}`)), 90_000);
    let buf = "";
    proc.stdout!.on("data", (chunk: Buffer) => {
      buf += chunk.toString();
      let nl = buf.indexOf("\n");
      while (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        nl = buf.indexOf("\n");
        log.push(line);
        try {
          const j = JSON.parse(line) as { msg?: string; port?: number };
          if (j.msg === "ladder ready" && typeof j.port === "number") {
            clearTimeout(timer);
            resolve(j.port);
          }
        } catch {}
      }
    });
    proc.stderr!.on("data", (chunk: Buffer) => log.push(chunk.toString()));
    if (opts.quietLevel)
      void (async () => {
        while (proc.exitCode === null) {
          const ok = await fetch(`http://127.0.0.1:${fixedPort}/api`).then(
            (r) => r.ok,
            () => false,
          );
          if (ok) {
            clearTimeout(timer);
            return resolve(fixedPort);
          }
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
    void exited.then((code) => reject(new Error(`server exited with ${code}:\n${log.join("\n")}`)));
  });
  return { proc, url: `http://127.0.0.1:${port}`, wsUrl: `ws://127.0.0.1:${port}/bot`, log, exited };
}
