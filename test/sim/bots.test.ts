// The seat kinds under failure: stdin/stdout programs that crash, hang, never get ready or send garbage, and
// module bots that work, throw, loop forever or are TypeScript. Every match must still end, the summary must
// name the errors, and the stats must carry the refusals with the SPEC's reason codes.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { commandName } from "../../engine/sim/process-seat.ts";
import type { Summary } from "../../engine/sim/summary.ts";
import { fixture, runCli } from "./helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "arena-sim-bots-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const cmd = (name: string) => `cmd:node ${fixture(name)}`;

async function playJson(args: string[]) {
  const r = await runCli(["play", ...args, "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return { summary: JSON.parse(r.stdout) as Summary, stderr: r.stderr };
}

describe("cmd: programs over stdin/stdout", () => {
  it("a program that crashes mid-match idles as disconnected and is named in the summary", async () => {
    const r = await runCli([
      "play",
      "--a",
      cmd("crash-bot.mjs"),
      "--b",
      "kiter",
      "--matches",
      "1",
      "--map",
      "arena-21",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("[A crash-bot] crash-bot: giving up"); // its stderr, prefixed
    expect(r.stdout).toContain(
      "sim-arena-21-1: bot crash-bot exited with code 3 at tick 3; last stderr: crash-bot: giving up",
    );
    expect(r.stdout).toContain("10 ticks idled as disconnected");
    expect(r.stdout).toContain("disqualified in 1 of 1 matches");
    expect(r.stdout).toContain("end reasons: disqualified 1");
  });

  it("a program that hangs costs each tick its deadline, then timeouts disqualify it", async () => {
    const t0 = performance.now();
    const { summary } = await playJson([
      "--a",
      cmd("hang-bot.mjs"),
      "--b",
      "brawler",
      "--matches",
      "1",
      "--tick-ms",
      "30",
    ]);
    const a = summary.bots[0];
    expect(a.server_idles.timeout).toBe(10);
    expect(a.disqualified).toBe(1);
    expect(summary.results[0]!.reason).toBe("disqualified");
    expect(summary.results[0]!.winner).toBe("b");
    expect(summary.config.tick_ms).toBe(30);
    expect(a.errors.lines).toContain("10 ticks idled as timeout (no reply before the deadline)");
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it("a program that never sends ready forfeits after the startup window", async () => {
    const r = await runCli([
      "play",
      "--a",
      "kiter",
      "--b",
      cmd("noready-bot.mjs"),
      "--matches",
      "1",
      "--startup-ms",
      "1000",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("end reasons: forfeit 1");
    expect(r.stdout).toContain("did not send ready within the startup window (1000 ms): forfeit");
    expect(r.stdout).toContain("ignored a message before ready: starting up, please wait");
    expect(r.stdout).toContain("forfeited 1 of 1 matches");
    expect(r.stdout).toMatch(/^A kiter\s+1\s+0\s+0/m);
  });

  it("garbage lines never crash anything: each is refused with the SPEC reason and shown in the summary", async () => {
    const replays = join(tmp, "garbage");
    const { summary } = await playJson([
      "--a",
      cmd("garbage-bot.mjs"),
      "--b",
      "kiter",
      "--matches",
      "1",
      "--replays",
      replays,
    ]);
    const a = summary.bots[0];
    expect(summary.matches).toBe(1);
    expect(a.refused_turns.schema).toBeGreaterThan(0); // not JSON, unknown type, not an object
    expect(a.refused_parts.conflicting_moves).toBeGreaterThan(0); // move and dash
    expect(a.refused_parts.unknown_attack).toBeGreaterThan(0); // "laser"
    expect(a.refused_parts.schema).toBeGreaterThan(0); // target out of range, unknown direction
    expect(a.refused_parts.bad_text).toBeGreaterThan(0); // oversize shout
    expect(a.errors.protocol_refusals).toBeGreaterThan(0);
    const text = a.errors.lines.join("\n");
    expect(text).toContain("turn refused, schema: message is not valid JSON");
    expect(text).toContain('turn refused, schema: expected a turn, got type "dance"');
    expect(text).toContain("conflicting_moves: send move or dash, not both");
    expect(text).toContain('unknown_attack: no attack named "laser"');
    expect(text).toContain("1 line(s) over max_message_bytes (4096) dropped");
    // The replay records the raw text of the non-JSON line, and verifies.
    const jsonl = gunzipSync(readFileSync(summary.results[0]!.replay!)).toString("utf8");
    expect(jsonl).toContain('{"raw":"this is not json"}');
    const v = await runCli(["verify", summary.results[0]!.replay!]);
    expect(v.code).toBe(0);
  });

  it("a well-behaved program plays exactly like the same strategy as a module", async () => {
    const viaCmd = join(tmp, "via-cmd");
    const viaModule = join(tmp, "via-module");
    const common = ["--b", "brawler", "--matches", "2", "--map", "columns-21", "--quiet"];
    const c = await playJson(["--a", cmd("chaser-cmd.mjs"), ...common, "--replays", viaCmd]);
    const m = await playJson(["--a", `module:${fixture("chaser.mjs")}`, ...common, "--replays", viaModule]);
    expect(c.summary.bots[0].errors.lines).toEqual([]);
    expect(m.summary.bots[0].name).toBe("chaser"); // from the module's `name` export
    expect(m.summary.bots[0].version).toBe("1.0");
    for (const id of ["sim-columns-21-1", "sim-columns-21-2"]) {
      const ticks = (dir: string) =>
        gunzipSync(readFileSync(join(dir, `${id}.jsonl.gz`)))
          .toString("utf8")
          .split("\n")
          .filter((l) => l.startsWith('{"type":"tick"'));
      expect(ticks(viaCmd).length).toBeGreaterThan(0);
      expect(ticks(viaCmd)).toEqual(ticks(viaModule));
    }
  });

  it("names a command after its script", () => {
    expect(commandName("python3 starters/python/bot.py --fast")).toBe("bot");
    expect(commandName("./my-bot")).toBe("my-bot");
    expect(commandName("java -jar target/fighter.jar")).toBe("fighter");
  });
});

describe("module: bots in a worker thread", () => {
  it("a module whose decide throws: each throw is a failed tick (timeout idle), reported once per match", async () => {
    const { summary } = await playJson([
      "--a",
      `module:${fixture("thrower.mjs")}`,
      "--b",
      "kiter",
      "--matches",
      "2",
    ]);
    const a = summary.bots[0];
    expect(a.errors.throws).toBeGreaterThan(0);
    expect(a.server_idles.timeout).toBe(a.errors.throws);
    expect(a.disqualified).toBe(0);
    expect(a.refused_turns).toEqual({}); // parts-only answers were completed into turns
    const throwLines = a.errors.lines.filter((l) => /^sim-[\w-]+: decide threw/.test(l));
    expect(throwLines).toHaveLength(2);
    expect(throwLines[0]).toMatch(
      /^sim-arena-21-1: decide threw \d+ times, first at tick 0: no plan for tick 0/,
    );
  });

  it("a module that loops forever costs timeouts, is disqualified, and gets a fresh worker next match", async () => {
    const { summary, stderr } = await playJson([
      "--a",
      `module:${fixture("looper.mjs")}`,
      "--b",
      "kiter",
      "--matches",
      "2",
      "--tick-ms",
      "30",
    ]);
    const a = summary.bots[0];
    expect(summary.results.map((r) => r.reason)).toEqual(["disqualified", "disqualified"]);
    expect(a.server_idles.timeout).toBe(20);
    // console.log inside the worker goes to stderr, prefixed, once per (fresh) worker
    expect(stderr.match(/\[A looper\] looper: first tick/g)).toHaveLength(2);
  });

  it("a TypeScript module loads through tsx", async () => {
    const { summary } = await playJson([
      "--a",
      `module:${fixture("typed-bot.ts")}`,
      "--b",
      "kiter",
      "--matches",
      "1",
    ]);
    expect(summary.bots[0].name).toBe("typed");
    expect(summary.bots[0].errors.lines).toEqual([]);
    expect(summary.bots[0].weapons.ranged!.uses).toBeGreaterThan(0);
  });

  it("a module that exports no decide is a usage error before any match", async () => {
    const r = await runCli(["play", "--a", `module:${fixture("hang-bot.mjs")}`, "--b", "kiter"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("exports none of createDecide(hello), decide(obs)");
  });
});
