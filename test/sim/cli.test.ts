// The arena-sim commands in-process: play with house bots (text and JSON summaries, progress), replays and
// verify (also tampered and truncated files), check (offline and against a local HTTP ladder), version, rules,
// help and usage errors.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RULES } from "../../engine/rules.ts";
import { planMatches } from "../../engine/sim/run.ts";
import type { Summary } from "../../engine/sim/summary.ts";
import { wilson } from "../../engine/sim/summary.ts";
import { VERSIONS } from "../../engine/versions.ts";
import { runCli } from "./helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "arena-sim-cli-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("play with house bots", () => {
  it("prints a text summary with results, reasons, stats and errors", async () => {
    const r = await runCli(["play", "--a", "kiter", "--b", "brawler", "--matches", "4", "--quiet"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("4 matches, all maps, seeds 1-4");
    expect(r.stdout).toMatch(/^A kiter\s+\d+\s+\d+\s+\d+\s+[\d.]+%\s+[\d.]+%-[\d.]+%/m);
    expect(r.stdout).toMatch(/^B brawler\s+\d+/m);
    expect(r.stdout).toContain("end reasons:");
    expect(r.stdout).toMatch(/ticks: mean [\d.]+, min \d+, max \d+/);
    expect(r.stdout).toContain("accuracy ranged");
    expect(r.stdout).toContain("server idles: timeout 0, disconnected 0");
    expect(r.stdout).toContain("errors: none");
  });

  it("--json prints a machine-readable summary; seeds count up, maps rotate, seats swap", async () => {
    const r = await runCli([
      "play",
      "--a",
      "champion",
      "--b",
      "ts-starter",
      "--matches",
      "6",
      "--seed",
      "40",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(""); // no progress with --json
    const s = JSON.parse(r.stdout) as Summary;
    expect(s.simulator).toEqual(VERSIONS);
    expect(s.matches).toBe(6);
    expect(s.config).toMatchObject({
      a: "champion",
      b: "ts-starter",
      matches: 6,
      map: "all",
      seed: 40,
      tick_ms: 1000,
    });
    expect(s.results.map((m) => m.seed)).toEqual([40, 41, 42, 43, 44, 45]);
    expect(s.results.map((m) => m.map)).toEqual([
      "arena-21",
      "columns-21",
      "pillars-21",
      "arena-21",
      "columns-21",
      "pillars-21",
    ]);
    expect(s.results.map((m) => m.fighter0)).toEqual(["a", "b", "a", "b", "a", "b"]);
    const [a, b] = s.bots;
    expect(a.name).toBe("champion");
    expect(b.name).toBe("ts-starter");
    expect(a.wins + a.losses + a.draws).toBe(6);
    expect(a.wins).toBe(b.losses);
    expect(a.draws).toBe(s.draws);
    expect(a.win_rate_ci95![0]).toBeLessThanOrEqual(a.win_rate!);
    expect(a.win_rate_ci95![1]).toBeGreaterThanOrEqual(a.win_rate!);
    expect(Object.values(s.end_reasons).reduce((x, y) => x + y, 0)).toBe(6);
    expect(Object.keys(a.weapons)).toEqual(Object.keys(RULES.attacks));
    expect(a.errors.lines).toEqual([]);
    expect(s.ticks.mean).toBeGreaterThan(0);
  });

  it("shows progress on stderr: a line per 10 % when not a terminal, one updating line on a terminal", async () => {
    const lines = await runCli([
      "play",
      "--a",
      "kiter",
      "--b",
      "kiter",
      "--matches",
      "20",
      "--map",
      "arena-21",
    ]);
    expect(lines.code).toBe(0);
    const progress = lines.stderr.trim().split("\n");
    expect(progress).toHaveLength(10);
    expect(progress[0]).toMatch(/^played match 2\/20 \(kiter \d+ - \d+ kiter\)$/);
    expect(progress[9]).toMatch(/^played match 20\/20/);
    const tty = await runCli(["play", "--a", "kiter", "--b", "kiter", "--matches", "3"], { tty: true });
    expect(tty.stderr).toContain("\r\x1b[Kmatch 1/3");
    expect(tty.stderr.endsWith("\r\x1b[K")).toBe(true);
    const quiet = await runCli(["play", "--a", "kiter", "--b", "kiter", "--matches", "3", "--quiet"]);
    expect(quiet.stderr).toBe("");
  });

  it("plans matches deterministically", () => {
    expect(planMatches({ matches: 3, seed: 5, map: "pillars-21" })).toEqual([
      { index: 0, matchId: "sim-pillars-21-5", seed: 5, map: "pillars-21", swapped: false },
      { index: 1, matchId: "sim-pillars-21-6", seed: 6, map: "pillars-21", swapped: true },
      { index: 2, matchId: "sim-pillars-21-7", seed: 7, map: "pillars-21", swapped: false },
    ]);
  });

  it("computes the Wilson 95 % interval", () => {
    const [lo, hi] = wilson(7, 10);
    expect(lo).toBeCloseTo(0.3968, 3);
    expect(hi).toBeCloseTo(0.8922, 3);
    expect(wilson(0, 5)[0]).toBe(0);
    expect(wilson(5, 5)[1]).toBe(1);
    expect(wilson(0, 0)).toEqual([0, 1]);
  });
});

describe("replays and verify", () => {
  const dir = join(tmp, "replays");
  let files: string[] = [];

  beforeAll(async () => {
    const r = await runCli([
      "play",
      "--a",
      "ts-starter",
      "--b",
      "brawler",
      "--matches",
      "3",
      "--replays",
      dir,
      "--quiet",
    ]);
    expect(r.code).toBe(0);
    files = readdirSync(dir)
      .sort()
      .map((f) => join(dir, f));
  });

  it("writes one gzipped replay per match, named by match id", () => {
    expect(files.map((f) => f.slice(dir.length + 1))).toEqual([
      "sim-arena-21-1.jsonl.gz",
      "sim-columns-21-2.jsonl.gz",
      "sim-pillars-21-3.jsonl.gz",
    ]);
  });

  it("verify passes on them", async () => {
    const r = await runCli(["verify", ...files]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(
      /^ok sim-arena-21-1: \d+ ticks, (winner (ts-starter|brawler) \(fighter [01]\)|draw), \w+$/,
    );
    expect(lines[3]).toBe("3 of 3 replays verified");
  });

  it("verify fails with exit 1 and names the difference when one hp is changed", async () => {
    const text = gunzipSync(readFileSync(files[0]!)).toString("utf8");
    const lines = text.split("\n");
    const i = lines.findIndex((l) => l.startsWith('{"type":"tick","tick":5,'));
    expect(i).toBeGreaterThan(0);
    const tick = JSON.parse(lines[i]!) as { state: { fighters: { hp: number }[] } };
    tick.state.fighters[0]!.hp -= 1;
    lines[i] = JSON.stringify(tick);
    const bad = join(tmp, "tampered.jsonl.gz");
    writeFileSync(bad, gzipSync(lines.join("\n")));
    const r = await runCli(["verify", files[1]!, bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ok sim-columns-21-2/m);
    expect(r.stdout).toContain(`FAIL ${bad}: line ${i + 1} (tick 5): state.fighters.0.hp differs`);
    expect(r.stdout).toContain("1 of 2 replays verified");
  });

  it("verify fails on a truncated file, a missing end and a missing file", async () => {
    const bytes = readFileSync(files[0]!);
    const cut = join(tmp, "cut.jsonl.gz");
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const text = gunzipSync(bytes).toString("utf8").trimEnd().split("\n");
    const noEnd = join(tmp, "noend.jsonl.gz");
    writeFileSync(noEnd, gzipSync(`${text.slice(0, -1).join("\n")}\n`));
    const r = await runCli(["verify", cut, noEnd, join(tmp, "missing.jsonl.gz")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`FAIL ${cut}: replay is not valid gzip`);
    expect(r.stdout).toMatch(/FAIL .*noend\.jsonl\.gz: .*(end line|lacks)/);
    expect(r.stdout).toContain("missing.jsonl.gz: cannot read: ENOENT");
  });
});

describe("check", () => {
  let server: Server;
  let base = "";
  let versions: Record<string, unknown> = {};

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url !== "/api") {
        res.writeHead(404).end("{}");
        return;
      }
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ versions }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("offline: current when release and rules hash match, outdated (exit 3) otherwise", async () => {
    const ok = await runCli(["check", "--release", VERSIONS.release, "--rules-hash", VERSIONS.rules_hash]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^current/);
    const old = await runCli(["check", "--release", "0.43.0", "--rules-hash", "abc123"]);
    expect(old.code).toBe(3);
    expect(old.stdout).toContain("outdated: expected release 0.43.0 (rules hash abc123)");
    expect(old.stdout).toContain(`this simulator is ${VERSIONS.release}`);
    const rules = await runCli(["check", "--release", VERSIONS.release, "--rules-hash", "different"]);
    expect(rules.code).toBe(3);
  });

  it("against a ladder: fetches /api and compares", async () => {
    versions = { ...VERSIONS, schema: 20 };
    const ok = await runCli(["check", "--ladder", `${base}/`]);
    expect(ok.stdout).toMatch(/^current/);
    expect(ok.code).toBe(0);
    versions = { ...VERSIONS, release: "0.45.0", rules_hash: "f00d" };
    const old = await runCli(["check", "--ladder", base]);
    expect(old.code).toBe(3);
    expect(old.stdout).toContain(
      `outdated: ladder runs release 0.45.0 (rules hash f00d), this simulator is ${VERSIONS.release}`,
    );
    expect(old.stdout).toContain(`download ${base}/download/arena-sim.mjs`);
  });

  it("a ladder that cannot be reached or answers nonsense is exit 2 with a clear message", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const down = await runCli(["check", "--ladder", `http://127.0.0.1:${port}`]);
    expect(down.code).toBe(2);
    expect(down.stderr).toContain(`cannot reach http://127.0.0.1:${port}/api: ECONNREFUSED`);
    versions = {};
    const odd = await runCli(["check", "--ladder", base]);
    expect(odd.code).toBe(2);
    expect(odd.stderr).toContain("did not return versions.release");
    const missing = await runCli(["check", "--ladder", `${base}/nothing`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("answered HTTP 404");
  });
});

describe("version, rules, help and usage errors", () => {
  it("version and rules print JSON", async () => {
    const v = await runCli(["version"]);
    expect(v.code).toBe(0);
    expect(JSON.parse(v.stdout)).toEqual(VERSIONS);
    const r = await runCli(["rules"]);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(RULES)));
  });

  it("--help and per-command help", async () => {
    const h = await runCli(["--help"]);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain("commands:");
    for (const c of ["play", "verify", "check", "version", "rules"]) {
      const r = await runCli([c, "--help"]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`usage: arena-sim ${c}`);
      expect((await runCli(["help", c])).stdout).toBe(r.stdout);
    }
  });

  it.each([
    [["bogus"], 'unknown command "bogus"'],
    [["play", "--a", "kiter", "--b", "kiter", "--fast"], "Unknown option '--fast'"],
    [["play", "--a", "kiter"], "needs both --a <bot> and --b <bot>"],
    [["play", "--a", "kiter", "--b", "kiter", "--matches", "0"], "--matches must be an integer"],
    [["play", "--a", "kiter", "--b", "kiter", "--matches", "2.5"], "--matches must be an integer"],
    [["play", "--a", "kiter", "--b", "kiter", "--map", "moon-21"], 'unknown map "moon-21"'],
    [["play", "--a", "kitten", "--b", "kiter"], 'unknown bot "kitten"'],
    [["play", "--a", "module:./nope.mjs", "--b", "kiter"], "module ./nope.mjs: no such file"],
    [["play", "--a", "cmd:", "--b", "kiter"], "cmd: needs a command line"],
    [["verify"], "needs at least one replay file"],
    [["check"], "check needs --ladder"],
    [["check", "--ladder", "ftp://x"], "must be an http(s) address"],
    [["version", "extra"], "Unexpected argument 'extra'"],
  ])("%j is a usage error (exit 2)", async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain("--help` for usage");
  });
});
