// The shipped forms of the simulator: the one-file bundles (ESM and CommonJS) run from a directory without
// node_modules and write the same replay bytes as the engine in-process; the wheel is deterministic, has a
// valid RECORD, installs into a venv with pip and runs there.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { strFromU8, unzipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { houseBot } from "../../engine/house/index.ts";
import { playMatch, strategySeat } from "../../engine/sim/play.ts";
import { simMatchId } from "../../engine/sim/run.ts";
import type { Summary } from "../../engine/sim/summary.ts";
import { RELEASE, VERSIONS } from "../../engine/versions.ts";
import { type BuiltSim, buildSim } from "../../scripts/build-sim.ts";
import { buildWheel, wheelName } from "../../scripts/build-wheel.ts";
import { fixture } from "./helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "arena-sim-bundle-"));
let built: BuiltSim;
/** A directory with nothing but the copied bundles (and later fixtures): no node_modules anywhere above it. */
const bare = join(tmp, "bare");

beforeAll(async () => {
  built = await buildSim(join(tmp, "dist"));
  mkdirSync(bare);
  copyFileSync(built.mjs, join(bare, "arena-sim.mjs"));
  copyFileSync(built.js, join(bare, "arena-sim.js"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function node(args: string[], cwd = bare) {
  const r = spawnSync(process.execPath, args, { cwd, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("bundle", () => {
  it("is one self-contained file: engine inlined, no reads of build/engine.wasm", () => {
    const text = readFileSync(built.mjs, "utf8");
    expect(text.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(text).toContain("ENGINE_WASM_BASE64");
    expect(text).not.toContain("run `npm run build:wasm` first");
    expect(readFileSync(built.js, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("plays from a bare directory and writes the replay the engine writes in-process, byte for byte", async () => {
    const r = node([
      "arena-sim.mjs",
      "play",
      "--a",
      "kiter",
      "--b",
      "brawler",
      "--matches",
      "1",
      "--map",
      "columns-21",
      "--seed",
      "7",
      "--replays",
      "out",
      "--quiet",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("A kiter");
    const file = join(bare, "out", `${simMatchId(7, "columns-21")}.jsonl.gz`);
    const bundled = readFileSync(file);
    const { match } = await playMatch([strategySeat(houseBot("kiter")), strategySeat(houseBot("brawler"))], {
      matchId: simMatchId(7, "columns-21"),
      seed: 7,
      map: "columns-21",
    });
    expect(gunzipSync(bundled).toString("utf8")).toBe(match.replay.jsonl());
    expect(Buffer.compare(bundled, match.replay.gzip())).toBe(0);
    // and the bundle verifies its own replay
    const v = node(["arena-sim.mjs", "verify", file]);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(/^ok sim-columns-21-7: /);
  });

  it("the CommonJS bundle runs too", () => {
    const v = node(["arena-sim.js", "version"]);
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout)).toEqual(VERSIONS);
    const p = node(["arena-sim.js", "play", "--a", "champion", "--b", "kiter", "--matches", "2", "--json"]);
    expect(p.code, p.stderr).toBe(0);
    expect((JSON.parse(p.stdout) as Summary).matches).toBe(2);
  });

  it("runs a league on worker threads from the one file (ESM and CommonJS)", () => {
    for (const file of ["arena-sim.mjs", "arena-sim.js"]) {
      const r = node([
        file,
        "league",
        "--bots",
        "kiter",
        "brawler",
        "--games",
        "3",
        "--workers",
        "2",
        "--results",
        `${file}.league.jsonl`,
        "--json",
      ]);
      expect(r.code, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout) as { games_played: number; table: { name: string; games: number }[] };
      expect(j.games_played).toBe(3);
      expect(j.table.map((row) => row.games)).toEqual([3, 3]);
    }
  });

  it("runs module bots in a worker and cmd bots from the bundle", () => {
    for (const f of ["chaser.mjs", "chaser-cmd.mjs", "looper.mjs"]) copyFileSync(fixture(f), join(bare, f));
    const r = node([
      "arena-sim.mjs",
      "play",
      "--a",
      "module:chaser.mjs",
      "--b",
      "cmd:node chaser-cmd.mjs",
      "--matches",
      "2",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as Summary;
    expect(s.bots.map((b) => b.name)).toEqual(["chaser", "chaser-cmd"]);
    expect(s.bots.flatMap((b) => b.errors.lines)).toEqual([]);
    const hang = node([
      "arena-sim.mjs",
      "play",
      "--a",
      "module:looper.mjs",
      "--b",
      "kiter",
      "--matches",
      "1",
      "--tick-ms",
      "30",
      "--json",
    ]);
    expect(hang.code, hang.stderr).toBe(0);
    expect((JSON.parse(hang.stdout) as Summary).results[0]!.reason).toBe("disqualified");
  });
});

describe("wheel", () => {
  it("is named by release, deterministic, and its RECORD matches its files", () => {
    expect(built.wheel.endsWith(wheelName(RELEASE))).toBe(true);
    const again = buildWheel({ bundle: built.mjs, outDir: join(tmp, "again") });
    expect(Buffer.compare(readFileSync(again), readFileSync(built.wheel))).toBe(0);
    const files = unzipSync(new Uint8Array(readFileSync(built.wheel)));
    const info = `arena_sim-${RELEASE}.dist-info`;
    expect(Object.keys(files)).toEqual([
      "arena_sim/__init__.py",
      "arena_sim/__main__.py",
      "arena_sim/_version.py",
      "arena_sim/arena-sim.mjs",
      `${info}/METADATA`,
      `${info}/WHEEL`,
      `${info}/entry_points.txt`,
      `${info}/RECORD`,
    ]);
    expect(strFromU8(files[`${info}/METADATA`]!)).toMatch(
      new RegExp(
        `^Metadata-Version: 2.1\nName: arena_sim\nVersion: ${RELEASE.replace(/\./g, "\\.")}\nSummary: .+\nRequires-Python: >=3.8\n`,
      ),
    );
    expect(strFromU8(files[`${info}/WHEEL`]!)).toContain("Root-Is-Purelib: true\nTag: py3-none-any\n");
    expect(strFromU8(files[`${info}/entry_points.txt`]!)).toBe(
      "[console_scripts]\narena-sim = arena_sim.__main__:main\n",
    );
    expect(Buffer.compare(Buffer.from(files["arena_sim/arena-sim.mjs"]!), readFileSync(built.mjs))).toBe(0);
    const record = strFromU8(files[`${info}/RECORD`]!).trimEnd().split("\n");
    expect(record.at(-1)).toBe(`${info}/RECORD,,`);
    for (const line of record.slice(0, -1)) {
      const [path, hash, size] = line.split(",");
      const data = files[path!]!;
      expect(hash).toBe(`sha256=${createHash("sha256").update(data).digest("base64url")}`);
      expect(Number(size)).toBe(data.length);
    }
    expect(record).toHaveLength(Object.keys(files).length);
  });

  it("installs with pip into a venv and runs arena-sim there", (ctx) => {
    const python = ["/usr/bin/python3", "python3"].find((p) => spawnSync(p, ["--version"]).status === 0);
    if (!python) return ctx.skip("no python3 found: the wheel install test needs python3 with venv");
    const venv = join(tmp, "venv");
    const made = spawnSync(python, ["-m", "venv", venv], { encoding: "utf8" });
    if (made.status !== 0 || !existsSync(join(venv, "bin", "pip"))) {
      return ctx.skip(`python3 -m venv does not work here (${made.stderr.trim()}): wheel install not tested`);
    }
    const pip = spawnSync(
      join(venv, "bin", "pip"),
      ["install", "--no-deps", "--no-index", "--disable-pip-version-check", built.wheel],
      {
        encoding: "utf8",
      },
    );
    expect(pip.status, pip.stderr).toBe(0);
    const play = spawnSync(
      join(venv, "bin", "arena-sim"),
      ["play", "--a", "kiter", "--b", "brawler", "--matches", "2", "--json"],
      {
        cwd: bare,
        encoding: "utf8",
      },
    );
    expect(play.status, play.stderr).toBe(0);
    const s = JSON.parse(play.stdout) as Summary;
    expect(s.matches).toBe(2);
    expect(s.bots[0].wins + s.bots[0].losses + s.bots[0].draws).toBe(2);
    const api = spawnSync(
      join(venv, "bin", "python"),
      [
        "-c",
        "import arena_sim, json; s = arena_sim.play('kiter', 'champion', matches=1, map='pillars-21', seed=3); print(arena_sim.__version__, s['results'][0]['match_id'])",
      ],
      { cwd: bare, encoding: "utf8" },
    );
    expect(api.status, api.stderr).toBe(0);
    expect(api.stdout.trim()).toBe(`${RELEASE} sim-pillars-21-3`);
    // fork through the wheel's Python API: every 10th tick of recorded matches, both seats replayed, gives the
    // recording back byte for byte; observe returns the seat's observation.
    const forks = spawnSync(
      join(venv, "bin", "python"),
      [
        "-c",
        [
          "import arena_sim, glob, gzip, os",
          "arena_sim.play('ts-starter', 'champion', matches=3, seed=21, replays='wheel-replays', quiet=True)",
          "n = 0",
          "for f in sorted(glob.glob('wheel-replays/*.jsonl.gz')):",
          "    ticks = sum(1 for l in gzip.open(f, 'rt') if l.startswith('{\"type\":\"tick\"'))",
          "    for t in range(0, ticks, 10):",
          "        r = arena_sim.fork(f, t, out='wheel-fork.jsonl.gz')",
          "        assert r['identical'], (f, t, r)",
          "        assert open('wheel-fork.jsonl.gz', 'rb').read() == open(f, 'rb').read(), (f, t)",
          "        n += 1",
          "    o = arena_sim.observe(f, ticks - 1, 'b')",
          "    assert o['type'] == 'observation' and o['tick'] == ticks - 1 and o['self']['id'] == 1, o",
          "print(n)",
        ].join("\n"),
      ],
      { cwd: bare, encoding: "utf8" },
    );
    expect(forks.status, forks.stderr).toBe(0);
    expect(Number(forks.stdout.trim())).toBeGreaterThan(10);
    const noNode = spawnSync(join(venv, "bin", "arena-sim"), ["version"], {
      encoding: "utf8",
      env: { PATH: "/nonexistent" },
    });
    expect(noNode.status).toBe(2);
    expect(noNode.stderr).toContain("arena-sim needs Node.js 22 or newer");
  }, 300_000);
});
