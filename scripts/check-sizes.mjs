// `npm run check:sizes`: no source file of server/, pool/, engine/ or sim/ over 500 lines unless its header (the
// comment lines before the first import or statement) says why, in a line that starts with
// "// Longer than 500 lines:". Files still waiting to be split are listed in LONG_FILES below; the list only
// shrinks: a listed file that is short now, or that gives its reason, fails the check until it is taken off.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const LIMIT = 500;
const MARK = "// Longer than 500 lines:";
/** Known long files without a reason yet (issue 32 splits them). */
/** @type {Set<string>} */
const LONG_FILES = new Set();

function* sources(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (/\.(ts|mts|mjs|js)$/.test(e.name) && !e.name.endsWith(".d.ts")) yield p;
  }
}

const problems = [];
for (const root of ["server", "pool", "engine", "sim"])
  for (const file of sources(root)) {
    const lines = readFileSync(file, "utf8").split("\n");
    const long = lines.length > LIMIT;
    const header = [];
    for (const l of lines) {
      if (!l.startsWith("//")) break;
      header.push(l);
    }
    const reason = header.some((l) => l.startsWith(MARK));
    const listed = LONG_FILES.has(file);
    if (long && !reason && !listed)
      problems.push(`${file}: ${lines.length} lines; split it or say why (${MARK} ...)`);
    if (listed && (!long || reason))
      problems.push(`${file}: take it off LONG_FILES in scripts/check-sizes.mjs`);
  }
for (const p of problems) console.error(p);
if (problems.length) process.exit(1);
console.log(`✔ no source file over ${LIMIT} lines without its reason (${LONG_FILES.size} still to split)`);
