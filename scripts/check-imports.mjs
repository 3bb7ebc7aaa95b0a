// `npm run check:imports`: the import rules of .dependency-cruiser.cjs, with its baseline of known violations.
// dependency-cruiser's own --ignore-known skips module violations only, not the folder circles of the
// `no-folder-circle` rule, so this script compares its JSON report with the baseline itself: a violation not in
// .dependency-cruiser-known-violations.json fails, and so does a baseline entry that is gone (write the list
// again with `npx depcruise-baseline server pool engine sim`, so it only shrinks and never hides a fixed one).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const BASELINE = ".dependency-cruiser-known-violations.json";
const bin = process.platform === "win32" ? "depcruise.cmd" : "depcruise";

const report = JSON.parse(
  execFileSync(`node_modules/.bin/${bin}`, ["server", "pool", "engine", "sim", "--output-type", "json"], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  }),
);
const key = (v) => [v.rule.name, v.from, v.to, ...(v.cycle ?? []).map((c) => c.name)].join(" → ");
const known = new Set(JSON.parse(readFileSync(BASELINE, "utf8")).map(key));
const found = report.summary.violations;
const fresh = found.filter((v) => !known.has(key(v)));
const seen = new Set(found.map(key));
const gone = [...known].filter((k) => !seen.has(k));

for (const v of fresh) console.error(`new violation: ${key(v)}`);
for (const k of gone) console.error(`fixed, still in the baseline: ${k}`);
if (gone.length)
  console.error(
    `${gone.length} known violation(s) are gone: run \`npx depcruise-baseline server pool engine sim\``,
  );
if (fresh.length || gone.length) process.exit(1);
console.log(
  `✔ no new import violations (${report.summary.totalCruised} modules; ${found.length} known folder circles left, ${BASELINE})`,
);
