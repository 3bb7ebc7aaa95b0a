// `npm run mutation [-- <module>...]`: StrykerJS (vitest runner) over each module of modules.ts, one at a
// time, then the score per module. The score counts killed mutants only; timeouts are shown separately (a
// mutant that loops forever is caught, but by the clock rather than by an assertion). Survivors are listed
// so that each can be killed by a test or explained as equivalent in docs/testing.md.
import { mkdirSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { Stryker } from "@stryker-mutator/core";
import { MODULES } from "./modules.ts";

const asked = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const unknown = asked.filter((m) => !(m in MODULES));
if (unknown.length > 0) {
  console.error(`unknown module(s): ${unknown.join(", ")}; known: ${Object.keys(MODULES).join(", ")}`);
  process.exit(2);
}
const names = asked.length > 0 ? asked : Object.keys(MODULES);
type Options = NonNullable<ConstructorParameters<typeof Stryker>[0]>;
const concurrency = Number(process.env.MUTATION_CONCURRENCY ?? 2);

interface Score {
  module: string;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  errors: number;
  survivors: string[];
  timeouts: string[];
}

const scores: Score[] = [];
for (const name of names) {
  const m = MODULES[name]!;
  process.env.MUTATION_TESTS = m.tests.join(",");
  const stryker = new Stryker({
    mutate: m.mutate,
    testRunner: "vitest",
    vitest: { configFile: "test/mutation/vitest.config.ts", related: false },
    coverageAnalysis: "perTest",
    concurrency,
    reporters: ["progress"],
    tempDirName: ".stryker-tmp",
    cleanTempDir: "always",
    timeoutMS: 5_000,
    // LogLevel is an enum of @stryker-mutator/api, which is not a direct dependency.
    logLevel: "warn" as Options["logLevel"],
    fileLogLevel: "off" as Options["fileLogLevel"],
    // Type checking is `npm run check`'s job; here it would only slow every mutant down.
    disableTypeChecks: true,
  });
  const results = await stryker.runMutationTest();
  const count = (s: string) => results.filter((r) => r.status === s).length;
  const describe = (r: (typeof results)[number]) =>
    `${relative(process.cwd(), r.fileName)}:${r.location.start.line}:${r.location.start.column + 1} ${r.mutatorName}` +
    ` ${JSON.stringify(r.replacement ?? "")}${r.status === "NoCoverage" ? " (no coverage)" : ""}`;
  const survivors = results.filter((r) => r.status === "Survived" || r.status === "NoCoverage").map(describe);
  const timeouts = results.filter((r) => r.status === "Timeout").map(describe);
  const score: Score = {
    module: name,
    killed: count("Killed"),
    timeout: count("Timeout"),
    survived: count("Survived"),
    noCoverage: count("NoCoverage"),
    errors: count("CompileError") + count("RuntimeError"),
    survivors,
    timeouts,
  };
  scores.push(score);
  // Each module's result as soon as it is known: a long run stopped half-way keeps what it measured.
  mkdirSync("reports/mutation", { recursive: true });
  writeFileSync(`reports/mutation/${name}.json`, `${JSON.stringify(score, null, 2)}\n`);
}

const pct = (n: number, d: number) => (d === 0 ? "n/a" : `${((100 * n) / d).toFixed(1)} %`);
console.log("\nmodule        killed  timeout  survived  no-cov  score (killed)  score (+timeouts)");
for (const s of scores) {
  const valid = s.killed + s.timeout + s.survived + s.noCoverage;
  console.log(
    `${s.module.padEnd(13)} ${String(s.killed).padStart(6)} ${String(s.timeout).padStart(8)} ` +
      `${String(s.survived).padStart(9)} ${String(s.noCoverage).padStart(7)}  ` +
      `${pct(s.killed, valid).padStart(14)}  ${pct(s.killed + s.timeout, valid).padStart(17)}`,
  );
}
for (const s of scores) {
  if (s.survivors.length === 0) continue;
  console.log(`\nsurvivors in ${s.module}:`);
  for (const line of s.survivors) console.log(`  ${line}`);
}
mkdirSync("reports/mutation", { recursive: true });
writeFileSync("reports/mutation/scores.json", `${JSON.stringify(scores, null, 2)}\n`);
