// arena-sim fork and observe in-process: forking recorded matches at every 10th tick with both seats `replay`
// gives the recording back byte for byte (house bots, a program sending garbage, a program that crashes and is
// disqualified by the reconnect grace, a module that throws); a fork with a new seat keeps the recorded prefix
// and verifies; observe prints what a seat was sent; bad input is a clear error.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { houseBot } from "../../engine/house/index.ts";
import { playMatch, type Seat, strategySeat } from "../../engine/sim/play.ts";
import { fixture, runCli } from "./helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "arena-sim-fork-"));
const rec = join(tmp, "recorded");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Recorded matches with as many kinds of input as the simulator makes: every file in `rec`. */
beforeAll(async () => {
  mkdirSync(rec);
  const runs: string[][] = [
    ["--a", "kiter", "--b", "champion", "--matches", "3"],
    ["--a", "ts-starter", "--b", "brawler", "--matches", "2", "--seed", "9"],
    ["--a", `cmd:node ${fixture("garbage-bot.mjs")}`, "--b", "kiter", "--matches", "1", "--tick-ms", "300"],
    // Exits at its fourth observation: disconnected idles until the reconnect grace disqualifies it, a
    // server input in the replay.
    ["--a", "brawler", "--b", `cmd:node ${fixture("crash-bot.mjs")}`, "--matches", "1"],
    ["--a", `module:${fixture("thrower.mjs")}`, "--b", "champion", "--matches", "1", "--seed", "5"],
  ];
  for (const [i, args] of runs.entries()) {
    const r = await runCli(["play", ...args, "--replays", join(rec, String(i)), "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
  }
}, 120_000);

const recordings = () =>
  readdirSync(rec).flatMap((d) => readdirSync(join(rec, d)).map((f) => join(rec, d, f)));

const tickLines = (file: string) =>
  gunzipSync(readFileSync(file))
    .toString("utf8")
    .split("\n")
    .filter((l) => l.startsWith('{"type":"tick"'));

describe("fork with both seats replay", () => {
  it("rebuilds every recording byte for byte from every 10th tick", async () => {
    const files = recordings();
    expect(files.length).toBe(8);
    const text = files.map((f) => gunzipSync(readFileSync(f)).toString("utf8")).join("\n");
    expect(text).toContain('"type":"disqualify"'); // the crash-bot's reconnect grace ran out
    expect(text).toContain('"raw":"this is not json"');
    expect(text).toContain('"idle":"timeout"'); // the thrower's throws
    let forks = 0;
    for (const file of files) {
      const last = tickLines(file).length - 1;
      expect(last).toBeGreaterThan(10);
      for (let tick = 0; tick <= last; tick += 10) {
        const out = join(tmp, `fork-${forks}.jsonl.gz`);
        const r = await runCli([
          "fork",
          file,
          "--tick",
          String(tick),
          "--a",
          "replay",
          "--b",
          "replay",
          "--out",
          out,
        ]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stdout).toContain("the same as the recording, byte for byte");
        expect(Buffer.compare(readFileSync(out), readFileSync(file)), `${file} at tick ${tick}`).toBe(0);
        forks++;
      }
    }
    expect(forks).toBeGreaterThan(40);
  }, 300_000);
});

describe("fork with a new seat", () => {
  it("keeps the recorded ticks before the fork, plays on with the new bot, and the fork verifies", async () => {
    const file = recordings().find((f) => f.includes("sim-arena-21-1"))!;
    const out = join(tmp, "champion-fork.jsonl.gz");
    const r = await runCli([
      "fork",
      file,
      "--tick",
      "20",
      "--a",
      "champion",
      "--b",
      "replay",
      "--out",
      out,
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as {
      match_id: string;
      forked_from: string;
      identical: boolean;
      diverges_at: { line: number; tick: number } | null;
      seats: { seat: string; name: string }[];
    };
    expect(j.match_id).toBe("sim-arena-21-1-fork-20");
    expect(j.forked_from).toBe("sim-arena-21-1");
    expect(j.seats.map((s) => [s.seat, s.name])).toEqual([
      ["champion", "champion"],
      ["replay", "champion"],
    ]);
    expect(j.identical).toBe(false);
    expect(j.diverges_at!.tick).toBeGreaterThanOrEqual(20);
    const header = JSON.parse(gunzipSync(readFileSync(out)).toString("utf8").split("\n")[0]!);
    expect(header.match_id).toBe("sim-arena-21-1-fork-20");
    expect(header.fighters[0].name).toBe("champion");
    expect(tickLines(out).slice(0, 20)).toEqual(tickLines(file).slice(0, 20));
    const v = await runCli(["verify", out]);
    expect(v.code, v.stdout).toBe(0);
  });

  it("a replay seat stands still once the match outlasts its recording", async () => {
    const file = recordings().find((f) => f.includes("sim-arena-21-1"))!;
    const last = tickLines(file).length - 1;
    // kiter (fighter 0) lost this one; a passive stand-in for champion lets the match go past the recording.
    const out = join(tmp, "long.jsonl.gz");
    const r = await runCli([
      "fork",
      file,
      "--tick",
      String(last - 5),
      "--a",
      "kiter",
      "--b",
      "replay",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = tickLines(out);
    const after = lines.slice(last + 1).map((l) => JSON.parse(l).turns[1]);
    for (const t of after) expect(t).toEqual({ raw: { type: "turn", tick: expect.any(Number) } });
  });
});

describe("observe", () => {
  it("prints the observation the seat was sent at that tick", async () => {
    // The same match in-process, with a seat that keeps what it was sent.
    const seen: unknown[][] = [[], []];
    const recording = (f: number, s: Seat): Seat => ({
      ...s,
      turn(obs, deadline) {
        seen[f]!.push(JSON.parse(JSON.stringify(obs)));
        return s.turn(obs, deadline);
      },
    });
    const { match } = await playMatch(
      [recording(0, strategySeat(houseBot("ts-starter"))), recording(1, strategySeat(houseBot("champion")))],
      { matchId: "obs-1", seed: 11, map: "pillars-21" },
    );
    const file = join(tmp, "obs-1.jsonl.gz");
    writeFileSync(file, match.replay.gzip());
    const ticks = seen[0]!.length;
    for (const tick of [0, 1, 7, Math.floor(ticks / 2), ticks - 1]) {
      for (const [seat, f] of [
        ["0", 0],
        ["b", 1],
        ["ts-starter", 0],
      ] as const) {
        const r = await runCli(["observe", file, "--tick", String(tick), "--seat", seat]);
        expect(r.code, r.stderr).toBe(0);
        const got = JSON.parse(r.stdout) as Record<string, unknown>;
        const want = { ...(seen[f]![tick] as Record<string, unknown>) };
        // No reply times in a replay: observe gives the budget as if each reply took 0 ms.
        expect(got.budget_ms_left).toBe(300_000);
        expect(got.tick_ms).toBe(1000);
        for (const k of ["budget_ms_left", "tick_ms"]) {
          delete got[k];
          delete want[k];
        }
        expect(got).toEqual(want);
      }
    }
  });
});

describe("bad input", () => {
  it("is a clear error, never a crash", async () => {
    const file = recordings()[0]!;
    const last = tickLines(file).length - 1;
    const beyond = await runCli(["observe", file, "--tick", String(last + 1), "--seat", "0"]);
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toContain(
      `tick ${last + 1} is not in this replay: the fighters were asked about ticks 0 to ${last}`,
    );
    const noTick = await runCli(["fork", file, "--a", "replay", "--b", "replay"]);
    expect(noTick.code).toBe(2);
    expect(noTick.stderr).toContain("fork needs --tick <n>, --a <seat> and --b <seat>");
    const seat = await runCli(["observe", file, "--tick", "3", "--seat", "nobody"]);
    expect(seat.code).toBe(2);
    expect(seat.stderr).toContain("--seat must be 0, 1, a, b or a fighter's name");
    const garbage = join(tmp, "garbage.jsonl.gz");
    writeFileSync(garbage, "not a replay");
    const g = await runCli(["fork", garbage, "--tick", "3", "--a", "replay", "--b", "replay"]);
    expect(g.code).toBe(1);
    expect(g.stderr).toContain("arena-sim fork:");
    const missing = await runCli(["observe", join(tmp, "nope.jsonl.gz"), "--tick", "3", "--seat", "0"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("cannot read");
    // A tampered state before the fork tick is found on the way there.
    const lines = gunzipSync(readFileSync(file)).toString("utf8").split("\n");
    lines[5] = lines[5]!.replace(/"hp":(\d+)/, (_, hp) => `"hp":${Number(hp) + 1000}`);
    const tampered = join(tmp, "tampered.jsonl.gz");
    writeFileSync(tampered, gzipSync(lines.join("\n")));
    const t = await runCli(["fork", tampered, "--tick", "10", "--a", "replay", "--b", "replay"]);
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(/does not re-simulate: line 6 \(tick 4\): state\.fighters\.\d\.hp differs/);
  });
});
