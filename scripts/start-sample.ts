// One start of the server, timed and weighed: from spawn to its "ladder ready" log line, and the resident set of
// its whole process tree (tsx runs the server in a child process) one second after. Used by
// scripts/measure-start.ts and by the live benchmark's memory-at-start line (test/bench/live-bench.ts).
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("../", import.meta.url).pathname;
const TSX_CLI = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");

export const MODES = {
  tsx: [TSX_CLI, "server/main.ts"],
  built: ["build/server/main.js"],
} as const;
export type Mode = keyof typeof MODES;

export interface Sample {
  readyMs: number;
  rssMiB: number;
}

/** Resident set of a process and all its descendants, in MiB (Linux /proc). */
export function treeRssMiB(root: number): number {
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name may hold spaces or parentheses: the fields after its closing parenthesis are fixed.
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {} // gone meanwhile
  }
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parent)
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
  }
  let kib = 0;
  for (const pid of tree) {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m) kib += Number(m[1]);
    } catch {}
  }
  return kib / 1024;
}

export async function startOnce(
  mode: Mode,
  dataDir: string,
  databaseUrl: string | undefined,
): Promise<Sample> {
  const args = [...MODES[mode], "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir];
  if (databaseUrl) args.push("--database-url", databaseUrl);
  const env = { ...process.env };
  delete env.DATABASE_URL; // passed as a flag, with the run's schema
  const t0 = performance.now();
  const proc = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  let err = "";
  proc.stderr.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const readyMs = await new Promise<number>((resolve, reject) => {
    let buf = "";
    proc.stdout.on("data", (c: Buffer) => {
      buf += c.toString();
      if (buf.includes('"msg":"ladder ready"')) resolve(performance.now() - t0);
    });
    void exited.then(() => reject(new Error(`${mode} server exited before it was ready:\n${buf}${err}`)));
  });
  await new Promise((r) => setTimeout(r, 1_000));
  const rssMiB = treeRssMiB(proc.pid!);
  proc.kill("SIGTERM");
  await exited;
  return { readyMs, rssMiB };
}
