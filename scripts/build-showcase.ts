// Records the home page's bundled replay (issue 19): on a fresh server with no match played yet, the home
// page's featured match is this one, two house bots played by the offline simulator (dist/arena-sim.mjs, built
// just before by build:sim) with a fixed seed, so every build records the same match. The output,
// build/showcase.jsonl.gz, is a build product (ignored by git) that the server serves at /featured/showcase.jsonl.gz.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SIM = join(ROOT, "dist", "arena-sim.mjs");
export const SHOWCASE = join(ROOT, "build", "showcase.jsonl.gz");
/** Kiter against Brawler on this seed is a 145-tick fight with shots, frost and a closing zone. */
const MATCH = ["--a", "kiter", "--b", "brawler", "--matches", "1", "--seed", "5"];

export function buildShowcase(): string {
  if (!existsSync(SIM)) throw new Error(`${SIM} is missing: run \`npm run build:sim\` first`);
  const dir = mkdtempSync(join(tmpdir(), "showcase-"));
  try {
    execFileSync(process.execPath, [SIM, "play", ...MATCH, "--replays", dir, "--quiet"], { stdio: "ignore" });
    const [file] = readdirSync(dir).filter((f) => f.endsWith(".jsonl.gz"));
    if (!file) throw new Error("the simulator wrote no replay");
    mkdirSync(dirname(SHOWCASE), { recursive: true });
    copyFileSync(join(dir, file), SHOWCASE);
    return SHOWCASE;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`recorded ${buildShowcase()}`);
}
