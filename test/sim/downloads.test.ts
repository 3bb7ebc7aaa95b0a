// The simulator as a bot author gets it: downloaded from a running ladder into a fresh directory, the one-file
// arena-sim.mjs plays a match offline, and the wheel named in GET /api installs into a fresh virtual
// environment without the network (pip --no-deps --no-index) and plays a match from Python.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RELEASE } from "../../engine/versions.ts";
import { DIST_DIR, WHEEL_NAME } from "../../server/docs/downloads.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
const tmp = mkdtempSync(join(tmpdir(), "arena-downloads-"));
let simulator: { javascript: string; script: string; python: string };

beforeAll(async () => {
  // `npm test` builds dist/ first; a targeted run on a fresh checkout builds it here.
  if (![join(DIST_DIR, "arena-sim.mjs"), join(DIST_DIR, WHEEL_NAME)].every(existsSync)) {
    const { buildSim } = await import("../../scripts/build-sim.ts");
    await buildSim(DIST_DIR);
  }
  srv = await startServer({ houseBots: false });
  simulator = ((await (await fetch(`${srv.url}/api`)).json()) as { simulator: typeof simulator }).simulator;
});
afterAll(async () => {
  await srv?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** Downloads `url` into a fresh directory; returns the file's path. */
async function download(url: string, dir: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status, url).toBe(200);
  const file = join(dir, decodeURIComponent(new URL(url).pathname.split("/").at(-1)!));
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

describe("downloaded simulator", () => {
  it("serves the built files byte for byte, with the release in the wheel's name", async () => {
    expect(simulator.python.endsWith(`/download/arena_sim-${RELEASE}-py3-none-any.whl`)).toBe(true);
    for (const [url, name] of [
      [simulator.javascript, "arena-sim.mjs"],
      [simulator.script, "arena-sim.js"],
      [simulator.python, WHEEL_NAME],
    ] as const) {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(Buffer.compare(Buffer.from(await res.arrayBuffer()), readFileSync(join(DIST_DIR, name)))).toBe(
        0,
      );
    }
  });

  it("arena-sim.mjs runs a match offline in a fresh directory", async () => {
    const dir = mkdtempSync(join(tmp, "mjs-"));
    const file = await download(simulator.javascript, dir);
    const r = spawnSync(
      process.execPath,
      [file, "play", "--a", "kiter", "--b", "brawler", "--matches", "1", "--seed", "3", "--json"],
      { cwd: dir, encoding: "utf8", timeout: 60_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as { matches: number; results: { reason: string }[] };
    expect(summary.matches).toBe(1);
    expect(summary.results[0]!.reason).toEqual(expect.any(String));
  });

  it("/create-bot's offline command plays the downloaded Python starter, which readies and does not forfeit", async (ctx) => {
    const python = ["/usr/bin/python3", "python3"].find((p) => spawnSync(p, ["--version"]).status === 0);
    if (!python) return ctx.skip("no python3 found");
    const page = await (await fetch(`${srv.url}/create-bot`)).text();
    const command = /<pre[^>]*><code>(node arena-sim\.mjs play [^<]*)<\/code><\/pre>/
      .exec(page)?.[1]
      ?.replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'");
    expect(command).toBeDefined();
    // The files the page names, downloaded side by side as an author would.
    const dir = mkdtempSync(join(tmp, "create-bot-"));
    for (const href of ["/download/arena-sim.mjs", "/download/bots/python/starter_bot.py"]) {
      expect(page).toContain(`href="${href}"`);
      await download(`${srv.url}${href}`, dir);
    }
    const one = command!.replace(/--matches \d+/, "--matches 1 --seed 3 --json --quiet");
    const r = spawnSync("sh", ["-c", one.replace(/^node /, `"${process.execPath}" `)], {
      cwd: dir,
      encoding: "utf8",
      timeout: 90_000,
      env: { ...process.env, PATH: `${dirname(python)}:${process.env.PATH}` },
    });
    expect(r.status, r.stderr).toBe(0);
    const summary = JSON.parse(r.stdout) as {
      bots: { spec: string; forfeits: number; errors: { startup_failures: number } }[];
    };
    const starter = summary.bots.find((b) => b.spec.includes("starter_bot.py"))!;
    expect(starter).toMatchObject({ forfeits: 0, errors: { startup_failures: 0 } });
  });

  it("the wheel installs into a fresh venv without the network and plays a match from Python", async (ctx) => {
    const python = ["/usr/bin/python3", "python3"].find((p) => spawnSync(p, ["--version"]).status === 0);
    if (!python) return ctx.skip("no python3 found");
    const dir = mkdtempSync(join(tmp, "whl-"));
    const wheel = await download(simulator.python, dir);
    const venv = join(dir, "venv");
    const made = spawnSync(python, ["-m", "venv", venv], { encoding: "utf8" });
    if (made.status !== 0 || !existsSync(join(venv, "bin", "pip")))
      return ctx.skip(`python3 -m venv does not work here: ${made.stderr.trim()}`);
    const pip = spawnSync(
      join(venv, "bin", "pip"),
      ["install", "--no-deps", "--no-index", "--disable-pip-version-check", "--no-cache-dir", wheel],
      { encoding: "utf8", timeout: 120_000 },
    );
    expect(pip.status, pip.stderr).toBe(0);
    const run = spawnSync(
      join(venv, "bin", "python"),
      [
        "-c",
        "import arena_sim; s = arena_sim.play('kiter', 'brawler', matches=1, map='arena-21', seed=5); print(arena_sim.__version__, s['matches'], s['results'][0]['match_id'])",
      ],
      { cwd: dir, encoding: "utf8", timeout: 60_000 },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(`${RELEASE} 1 sim-arena-21-5`);
  });
});
