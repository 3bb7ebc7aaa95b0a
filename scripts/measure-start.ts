// Start-up time and memory of the server, from its TypeScript sources through tsx (`tsx server/main.ts`, what
// `npm start` ran before issue 14 and `npm run dev` runs now) and from the build (`node build/server/main.js`,
// what `npm start` runs). Each start is timed from spawn to the "ladder ready" log line; memory is the resident
// set of the whole process tree (tsx runs the server in a child process) one second after that line. Both a
// first start on a new data dir (migrations) and a restart on the same data dir are measured. With DATABASE_URL
// set, the server uses that PostgreSQL server instead of the embedded PGlite, in a new schema per run.
//
//   npx tsx scripts/measure-start.ts [--runs N]      (figures in docs/performance.md)
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshDatabaseUrl } from "../test/helpers/server.ts";
import { buildServer } from "./build-server.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const TSX_CLI = join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");

const MODES = {
  tsx: [TSX_CLI, "server/main.ts"],
  built: ["build/server/main.js"],
} as const;
type Mode = keyof typeof MODES;

interface Sample {
  readyMs: number;
  rssMiB: number;
}

/** Resident set of a process and all its descendants, in MiB (Linux /proc). */
function treeRssMiB(root: number): number {
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

const DATABASE_URL = process.env.DATABASE_URL;

async function startOnce(mode: Mode, dataDir: string, databaseUrl: string | undefined): Promise<Sample> {
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

function range(xs: number[], digits = 0): string {
  const sorted = [...xs].sort((a, b) => a - b);
  const f = (x: number) => x.toFixed(digits);
  return `${f(sorted[0]!)}-${f(sorted.at(-1)!)} (median ${f(sorted[Math.floor(sorted.length / 2)]!)})`;
}

const runsAt = process.argv.indexOf("--runs");
const runs = runsAt > 0 ? Number(process.argv[runsAt + 1]) : 5;
if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs takes a positive whole number");

await buildServer();
const results = new Map<string, Sample[]>();
const add = (name: string, s: Sample) => results.set(name, [...(results.get(name) ?? []), s]);
for (let i = 0; i < runs; i++) {
  // Alternate the modes, so a busy moment of the machine does not fall on one of them only.
  for (const mode of Object.keys(MODES) as Mode[]) {
    const dir = mkdtempSync(join(tmpdir(), "ladder-start-"));
    const db = await freshDatabaseUrl();
    try {
      add(`${mode}, new ${db.url ? "schema" : "data dir"}`, await startOnce(mode, dir, db.url));
      add(`${mode}, restart`, await startOnce(mode, dir, db.url));
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await db.drop();
    }
  }
}
console.log(`Node ${process.version}, ${DATABASE_URL ? "PostgreSQL" : "PGlite"}, ${runs} runs each\n`);
console.log('| start | to "ladder ready" (ms) | RSS 1 s later (MiB) |');
console.log("|---|---|---|");
for (const [name, samples] of results)
  console.log(
    `| ${name} | ${range(samples.map((s) => s.readyMs))} | ${range(samples.map((s) => s.rssMiB))} |`,
  );
