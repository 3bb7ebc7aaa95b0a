// scripts/fit-ratings.mjs, the standalone refit of the open data dumps (issue 35): results are written as the
// documented dump lines (gzip JSON Lines, split over days that overlap), the script is run as a user runs it
// (node, no project imports), and its ratings, deviations and leaderboard scores are checked against the
// ladder's own rating book on the same games: every score within one point. A small ladder (full-matrix
// deviations) and one of 250 versions (the diagonal above 200, conjugate gradients in the ladder's fit).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { MAP_NAMES } from "../../engine/rules.ts";
import { RatingBook } from "../../server/ratings/book.ts";
import { prng } from "../helpers/prng.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const SCRIPT = join(ROOT, "scripts", "fit-ratings.mjs");
const tmp = mkdtempSync(join(tmpdir(), "fit-ratings-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Seat {
  fighter: number;
  bot: string;
  version: string;
  house: boolean;
}
interface DumpLine {
  match_id: string;
  time: string;
  ladder_id: string;
  versions: { release: string; engine: string; rules_hash: string };
  map: string;
  seats: [Seat, Seat];
  result: "1-0" | "0-1" | "1/2-1/2";
  reason: string;
}

/** Rated results of a ladder with house bots and players with one or more versions, as dump lines in order. */
function results(o: { bots: number; versionsPerBot: number; games: number; seed: number }): DumpLine[] {
  const rnd = prng(o.seed);
  const versions: { bot: string; version: string; house: boolean; strength: number }[] = [];
  for (const h of ["kiter", "brawler", "ts-starter", "champion"])
    versions.push({ bot: h, version: "house-1", house: true, strength: rnd() * 600 - 300 });
  for (let b = 0; b < o.bots; b++)
    for (let v = 1; v <= o.versionsPerBot; v++)
      versions.push({ bot: `bot-${b}`, version: `v${v}`, house: false, strength: rnd() * 800 - 400 });
  const start = Date.parse("2026-11-20T00:00:00Z");
  const lines: DumpLine[] = [];
  for (let g = 0; g < o.games; g++) {
    const a = versions[Math.floor(rnd() * versions.length)]!;
    let b = versions[Math.floor(rnd() * versions.length)]!;
    while (b.bot === a.bot) b = versions[Math.floor(rnd() * versions.length)]!;
    const p = 1 / (1 + 10 ** ((b.strength - a.strength) / 400));
    const u = rnd();
    const result = u < 0.05 ? "1/2-1/2" : u < 0.05 + 0.95 * p ? "1-0" : "0-1";
    const seat = (f: number, v: typeof a): Seat => ({
      fighter: f,
      bot: v.bot,
      version: v.version,
      house: v.house,
    });
    lines.push({
      match_id: `m-${o.seed}-${g}`,
      time: new Date(start + g * 47_000).toISOString(),
      ladder_id: "public",
      versions: { release: "0.45.0", engine: "0.24.0", rules_hash: "x" },
      map: MAP_NAMES[g % MAP_NAMES.length]!,
      seats: [seat(0, a), seat(1, b)],
      result,
      reason: result === "1/2-1/2" ? "timeout_draw" : "last_standing",
    });
  }
  return lines;
}

/** Writes the lines as daily dumps; each day repeats the previous day's last line (overlapping dumps). */
function writeDumps(dir: string, lines: DumpLine[]): void {
  mkdirSync(dir, { recursive: true });
  const days = new Map<string, DumpLine[]>();
  for (const l of lines) {
    const day = l.time.slice(0, 10);
    days.set(day, [...(days.get(day) ?? []), l]);
  }
  let previous: DumpLine | null = null;
  for (const [day, list] of days) {
    const withOverlap = previous ? [previous, ...list] : list;
    writeFileSync(
      join(dir, `public-${day}.jsonl.gz`),
      gzipSync(withOverlap.map((l) => `${JSON.stringify(l)}\n`).join("")),
    );
    previous = list.at(-1)!;
  }
}

/** The ladder's rating book on the same games (keys as the script keys them, bot@version). */
function ladderBook(lines: DumpLine[]): RatingBook {
  const book = new RatingBook();
  book.load(
    lines.map((l) => ({
      a: `${l.seats[0].bot}@${l.seats[0].version}`,
      b: `${l.seats[1].bot}@${l.seats[1].version}`,
      score: l.result === "1-0" ? 1 : l.result === "0-1" ? 0 : 0.5,
      map: l.map,
      aHouse: l.seats[0].house,
      bHouse: l.seats[1].house,
    })),
  );
  return book;
}

interface Out {
  ladders: Record<
    string,
    {
      games: number;
      leaderboard: {
        rank: number;
        bot: string;
        version: string;
        rating: number;
        rating_deviation: number;
        leaderboard_score: number;
      }[];
      versions: {
        bot: string;
        version: string;
        rating: number;
        rating_deviation: number;
        leaderboard_score: number;
        games: number;
        ranked: boolean;
      }[];
    }
  >;
}

function refit(args: string[]) {
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: tmp, encoding: "utf8", timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("fit-ratings.mjs against the ladder's rating book", () => {
  for (const c of [
    { name: "a small ladder", bots: 12, versionsPerBot: 2, games: 4000, seed: 3 },
    { name: "250 versions", bots: 123, versionsPerBot: 2, games: 12_000, seed: 8 },
  ]) {
    it(`${c.name}: the same ratings, deviations and leaderboard scores (within one point)`, () => {
      const lines = results(c);
      const dir = join(tmp, c.name.replace(/\W+/g, "-"));
      writeDumps(dir, lines);
      const r = refit(["--json", dir]);
      expect(r.code, r.stderr).toBe(0);
      const out = (JSON.parse(r.stdout) as Out).ladders.public!;
      expect(out.games).toBe(lines.length); // the overlapping lines counted once
      const book = ladderBook(lines);
      expect(out.versions).toHaveLength(4 + c.bots * c.versionsPerBot);
      let exact = 0;
      for (const v of out.versions) {
        const want = book.get(`${v.bot}@${v.version}`);
        expect(Math.abs(v.leaderboard_score - want.leaderboardScore)).toBeLessThanOrEqual(1);
        if (v.leaderboard_score === want.leaderboardScore) exact++;
        expect(v.rating).toBeCloseTo(want.rating, 1);
        expect(v.rating_deviation).toBeCloseTo(want.deviation, 1);
        expect(v.games).toBe(want.games);
        expect(v.ranked).toBe(want.ranked);
      }
      expect(exact).toBeGreaterThanOrEqual(out.versions.length - 2);
      // The board: each bot once, at its ranked version that played last, by leaderboard score.
      const lastPlayed = new Map<string, string>();
      for (const l of lines)
        for (const s of l.seats)
          if (book.get(`${s.bot}@${s.version}`).ranked) lastPlayed.set(s.bot, s.version);
      expect(new Map(out.leaderboard.map((row) => [row.bot, row.version]))).toEqual(lastPlayed);
      const scores = out.leaderboard.map((row) => row.leaderboard_score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    }, 120_000);
  }

  it("prints a table, and refuses what is not a dump", () => {
    const dir = join(tmp, "a-small-ladder");
    const t = refit([dir]);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^ladder public: 4000 rated games, 28 versions$/m);
    expect(t.stdout).toMatch(/^rank\s+bot\s+version\s+rating\s+deviation\s+score\s+W-L-D\s+games$/m);
    const bad = join(tmp, "bad.jsonl.gz");
    writeFileSync(
      bad,
      gzipSync(
        '{"match_id":"x","time":"t","ladder_id":"public","map":"m","seats":[],"result":"1-0","reason":"r"}\n',
      ),
    );
    const b = refit([bad]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain("line 1: seats must hold two seats");
    writeFileSync(bad, "plain text");
    expect(refit([bad]).stderr).toContain("not gzip");
    expect(refit([]).code).toBe(2);
    expect(refit(["--ladder", "nope", dir]).stderr).toContain("no games of ladder nope");
    expect(readFileSync(SCRIPT, "utf8")).not.toMatch(/from "\.\.?\//); // stands alone
  });
});
