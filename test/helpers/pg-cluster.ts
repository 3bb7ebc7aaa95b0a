// A private PostgreSQL cluster for tests that stop and start the database: `initdb` in a temporary directory
// and `pg_ctl` on a port of its own, with the machine's PostgreSQL binaries, so stopping it disturbs nothing
// else (the suite's own database included). PostgreSQL refuses to run as root: as root, the commands run as
// the `postgres` user.
import { execFileSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./ports.ts";

function binDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(root, v, "bin", "initdb"))) return join(root, v, "bin");
  return null;
}

const BIN = binDir();
const asRoot = process.getuid?.() === 0;
const userId = (() => {
  if (!asRoot) return null;
  try {
    return {
      uid: Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })),
      gid: Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })),
    };
  } catch {
    return null;
  }
})();

/** Why a private cluster cannot be made here, or null when it can. */
export const CLUSTER_UNAVAILABLE: string | null = !BIN
  ? "no PostgreSQL binaries under /usr/lib/postgresql/*/bin"
  : asRoot && !userId
    ? "running as root and there is no postgres user to run PostgreSQL as"
    : null;

function run(cmd: string, args: string[]): void {
  const file = join(BIN!, cmd);
  if (asRoot) execFileSync("runuser", ["-u", "postgres", "--", file, ...args], { stdio: "pipe" });
  else execFileSync(file, args, { stdio: "pipe" });
}

export interface Cluster {
  url: string;
  start(): void;
  /** Stops it the way a crash or an operator would: `immediate` skips the shutdown checkpoint. */
  stop(mode?: "fast" | "immediate"): void;
  destroy(): void;
}

export async function startCluster(): Promise<Cluster> {
  if (CLUSTER_UNAVAILABLE) throw new Error(CLUSTER_UNAVAILABLE);
  const dir = mkdtempSync(join(tmpdir(), "ladder-pg-"));
  if (userId) chownSync(dir, userId.uid, userId.gid);
  const data = join(dir, "data");
  const port = await freePort();
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  let running = false;
  const cluster: Cluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start() {
      run("pg_ctl", ["-D", data, "-o", options, "-w", "-l", join(dir, "log"), "start"]);
      running = true;
    },
    stop(mode = "fast") {
      run("pg_ctl", ["-D", data, "-m", mode, "-w", "stop"]);
      running = false;
    },
    destroy() {
      if (running) {
        try {
          cluster.stop("immediate");
        } catch {}
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}
