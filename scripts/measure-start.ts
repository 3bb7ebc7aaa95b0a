// Start-up time and memory of the server, from its TypeScript sources through tsx (`tsx server/main.ts`, what
// `npm start` ran before issue 14 and `npm run dev` runs now) and from the build (`node build/server/main.js`,
// what `npm start` runs). Each start is timed from spawn to the "ladder ready" log line; memory is the resident
// set of the whole process tree (tsx runs the server in a child process) one second after that line. Both a
// first start on a new data dir (migrations) and a restart on the same data dir are measured. With DATABASE_URL
// set, the server uses that PostgreSQL server instead of the embedded PGlite, in a new schema per run.
//
//   npx tsx scripts/measure-start.ts [--runs N]      (figures in docs/performance.md)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshDatabaseUrl } from "../test/helpers/server.ts";
import { buildServer } from "./build-server.ts";
import { MODES, type Mode, type Sample, startOnce } from "./start-sample.ts";

const DATABASE_URL = process.env.DATABASE_URL;

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
