// arena-sim league (issue 35): three house bots on worker threads, rated as the ladder rates them. The table
// equals what the ladder's own rating book (server/ratings/book.ts) and its Bradley-Terry fit give on the same
// results file; games follow the ladder's start rules (least-played map per pair, seats balanced); a league cut
// short resumes from its results file to the same results; a results file of another league is refused.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MAP_NAMES } from "../../engine/rules.ts";
import { type LeagueResult, type LeagueRow, planLeague } from "../../engine/sim/league.ts";
import { RatingBook } from "../../server/ratings/book.ts";
import { BASE_RATING, fitBradleyTerry, leaderboardScore } from "../../server/ratings/bradley-terry.ts";
import { ROOT } from "./helpers.ts";

const tmp = mkdtempSync(join(tmpdir(), "arena-sim-league-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const BOTS = ["kiter", "brawler", "champion"];

/** The simulator as a user runs it (`npm run sim`): a process, so its worker threads run the entry file. */
function sim(args: string[]) {
  const r = spawnSync(
    join(ROOT, "node_modules", ".bin", "tsx"),
    [join(ROOT, "sim", "arena-sim.ts"), ...args],
    {
      cwd: tmp,
      encoding: "utf8",
      timeout: 240_000,
    },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const resultsOf = (file: string) =>
  readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .slice(1)
    .map((l) => JSON.parse(l) as LeagueResult);

interface LeagueJson {
  games_total: number;
  games_played: number;
  table: LeagueRow[];
}

describe("league on three house bots", () => {
  const file = join(tmp, "full.jsonl");
  let full: LeagueJson;

  it("plays every pair on worker threads and prints the ladder's table for the results", () => {
    const r = sim([
      "league",
      "--bots",
      ...BOTS,
      "--games",
      "6",
      "--workers",
      "2",
      "--results",
      file,
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    full = JSON.parse(r.stdout) as LeagueJson;
    expect(full.games_total).toBe(18);
    expect(full.games_played).toBe(18);
    const results = resultsOf(file);
    expect(results.map((g) => g.game).sort((a, b) => a - b)).toEqual([...Array(18).keys()]);

    // The ladder's book, fed here from the results file: fighter 0's bot against fighter 1's.
    const book = new RatingBook();
    book.load(
      results.map((g) => ({
        a: BOTS[g.seats[0]]!,
        b: BOTS[g.seats[1]]!,
        score: g.winner === null ? 0.5 : g.winner === 0 ? 1 : 0,
        map: g.map,
        aHouse: true,
        bHouse: true,
      })),
    );
    expect(full.table).toHaveLength(3);
    for (const row of full.table) {
      const want = book.get(row.name);
      expect(row.rating).toBe(Math.round(want.rating));
      expect(row.rating_deviation).toBe(Math.round(want.deviation));
      expect(row.leaderboard_score).toBe(want.leaderboardScore);
      expect(row.interval).toEqual([
        Math.round(want.rating - 2 * want.deviation),
        Math.round(want.rating + 2 * want.deviation),
      ]);
      expect(row.games).toBe(12);
      expect(row.ranked).toBe(false);
      const mine = results.filter((g) => g.seats.includes(BOTS.indexOf(row.name)));
      const won = mine.filter((g) => g.winner !== null && g.seats[g.winner] === BOTS.indexOf(row.name));
      expect(row.wins).toBe(won.length);
      expect(row.wins + row.losses + row.draws).toBe(12);
    }
    // Sorted by leaderboard score as the ladder sorts, ranks 1..3.
    expect(full.table.map((r) => r.rank)).toEqual([1, 2, 3]);
    const scores = full.table.map((r) => r.leaderboard_score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);

    // And the plain Bradley-Terry fit over the pair counts, house bots anchored at 1500, agrees.
    const pairs = new Map<string, { a: string; b: string; games: number; aScore: number }>();
    for (const g of results) {
      const [a, b] = [BOTS[g.seats[0]]!, BOTS[g.seats[1]]!];
      const k = [a, b].sort().join();
      const cell = pairs.get(k) ?? { a: [a, b].sort()[0]!, b: [a, b].sort()[1]!, games: 0, aScore: 0 };
      const s0 = g.winner === null ? 0.5 : g.winner === 0 ? 1 : 0;
      cell.games++;
      cell.aScore += cell.a === a ? s0 : 1 - s0;
      pairs.set(k, cell);
    }
    const fit = fitBradleyTerry({ players: BOTS, pairs: [...pairs.values()], anchors: BOTS });
    const mean = BOTS.reduce((s, b) => s + fit.rating.get(b)!, 0) / 3;
    expect(mean).toBeCloseTo(BASE_RATING, 6);
    for (const row of full.table) {
      expect(Math.abs(fit.rating.get(row.name)! - row.rating)).toBeLessThanOrEqual(0.5 + 1e-6);
      expect(leaderboardScore(fit.rating.get(row.name)!, fit.deviation.get(row.name)!)).toBe(
        row.leaderboard_score,
      );
    }
  }, 240_000);

  it("follows the ladder's start rules: each pair's maps even, each bot's seats balanced", () => {
    const results = resultsOf(file);
    for (let a = 0; a < 3; a++) {
      for (let b = a + 1; b < 3; b++) {
        const games = results.filter((g) => g.seats.includes(a) && g.seats.includes(b));
        expect(games).toHaveLength(6);
        for (const m of MAP_NAMES) expect(games.filter((g) => g.map === m)).toHaveLength(2);
      }
      const first = results.filter((g) => g.seats[0] === a).length;
      expect(Math.abs(first - (12 - first))).toBeLessThanOrEqual(1);
    }
    // The plan is fixed before play, the same for every run.
    expect(planLeague(3, 6, 1)).toEqual(planLeague(3, 6, 1));
    expect(results.map((g) => g.match_id).sort()).toEqual(
      planLeague(3, 6, 1)
        .map((g) => g.match_id)
        .sort(),
    );
  });

  it("resumes a league cut short (a line half written) to the same results and table", () => {
    const cut = join(tmp, "cut.jsonl");
    copyFileSync(file, cut);
    const lines = readFileSync(cut, "utf8").split("\n");
    writeFileSync(cut, `${lines.slice(0, 8).join("\n")}\n${lines[8]!.slice(0, 30)}`);
    const r = sim([
      "league",
      "--bots",
      ...BOTS,
      "--games",
      "6",
      "--workers",
      "2",
      "--results",
      cut,
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const resumed = JSON.parse(r.stdout) as LeagueJson;
    expect(resumed.table).toEqual(full.table);
    const byGame = (rs: LeagueResult[]) => [...rs].sort((a, b) => a.game - b.game);
    expect(byGame(resultsOf(cut))).toEqual(byGame(resultsOf(file)));
    const text = sim(["league", "--bots", ...BOTS, "--games", "6", "--results", cut]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain("18 of 18 games already played");
    expect(text.stdout).toMatch(/^rank\s+bot\s+rating\s+deviation\s+score\s+95% interval\s+W-L-D\s+games$/m);
  }, 240_000);

  it("refuses a results file of another league, and bad arguments", () => {
    const other = sim(["league", "--bots", "kiter", "champion", "--games", "6", "--results", file]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("holds another league");
    const one = sim(["league", "--bots", "kiter", "--games", "2"]);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain("at least two bots");
    const twice = sim(["league", "--bots", "kiter", "kiter", "--games", "2"]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("a bot cannot play itself");
    const noGames = sim(["league", "--bots", "kiter", "brawler"]);
    expect(noGames.code).toBe(2);
    expect(noGames.stderr).toContain("--games");
  }, 60_000);
});
