// A private NATS server with JetStream for cluster tests (issue 36): Debian's `nats-server` on a free loopback port,
// its JetStream store in a temporary directory, stopped (and the directory removed) by the test that started it.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.ts";

export const NATS_SERVER = "/usr/sbin/nats-server";

export interface Nats {
  url: string;
  /** The running server process (a new one after `restart`). */
  readonly proc: ChildProcess;
  stop(): Promise<void>;
  /** kill -9 of the server; its JetStream store stays for `restart`. */
  kill(): Promise<void>;
  /** Starts the server again on the same port and store (after `kill`). */
  restart(): Promise<void>;
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
  });

export async function startNats(): Promise<Nats> {
  if (!existsSync(NATS_SERVER)) throw new Error(`${NATS_SERVER} is missing (apt-get install nats-server)`);
  const dir = mkdtempSync(join(tmpdir(), "ladder-nats-"));
  const port = await freePort();
  const launch = async () => {
    const proc = spawn(NATS_SERVER, ["-js", "-sd", dir, "-a", "127.0.0.1", "-p", String(port)], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    const log: string[] = [];
    proc.stderr!.on("data", (c: Buffer) => log.push(c.toString()));
    const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
    const t0 = Date.now();
    while (!(await listening(port))) {
      if (proc.exitCode !== null || Date.now() - t0 > 10_000)
        throw new Error(`nats-server did not start:\n${log.join("")}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return { proc, exited };
  };
  let running = await launch();
  const kill = async () => {
    if (running.proc.exitCode === null) running.proc.kill("SIGKILL");
    await running.exited;
  };
  return {
    url: `nats://127.0.0.1:${port}`,
    get proc() {
      return running.proc;
    },
    kill,
    async restart() {
      await kill();
      running = await launch();
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
