// Rank-uncertainty costs (issue 33, part 3) on the ladder-bench ladder: 2,000 ranked versions and 100,000
// games. The baseline is the refit after one more game measured in the same run (what the server does after
// every rated game); the interval work is reported beside it and as a ratio to it. The interval work never
// runs inside the refit (the matchups answer is computed when asked, then kept until the next game), so the
// refit's own time is unchanged; the ratio says what one uncached matchups request costs next to a refit.
//
//   npm run bench -- --insight [--quick]
import type { BotDirectory } from "../../server/bots/directory.ts";
import { BoardInsight, COST_FACTOR } from "../../server/insight/board.ts";
import { MatchupService } from "../../server/insight/matchups.ts";
import { regressionOf } from "../../server/insight/regression.ts";
import { rankIntervals } from "../../server/insight/uncertainty.ts";
import type { LadderRuntime } from "../../server/ladders/runtime.ts";
import { RatingBook } from "../../server/ratings/book.ts";
import type { LeaderboardRow } from "../../server/ratings/leaderboard.ts";
import type { BenchLine } from "./engine-bench.ts";
import { benchLadder, median } from "./ladder-bench.ts";

function timeMs(body: () => unknown): number {
  const t = performance.now();
  body();
  return performance.now() - t;
}

export async function insightBench(quick = false): Promise<BenchLine[]> {
  const VERSIONS = 2_000;
  const ladder = benchLadder(VERSIONS, 100_000);
  const book = new RatingBook();
  book.load(ladder.games);
  for (let r = 0; r < 3; r++) book.record(ladder.nextGame());
  const runs = quick ? 3 : 7;

  // The ranked versions (30 rated games or more) by leaderboard score, as the leaderboard lists them.
  const versions = [...ladder.versions, ...ladder.houses].filter((v) => book.get(v.key).ranked);
  const rows = (): LeaderboardRow[] =>
    versions
      .map((v) => ({ v, r: book.get(v.key) }))
      .sort((a, b) => b.r.leaderboardScore - a.r.leaderboardScore)
      .map(({ v, r }, i) => ({
        rank: i + 1,
        name: v.bot.name,
        display_name: v.bot.display_name,
        version: v.label,
        owner: v.bot.owner,
        owner_url: null,
        house: v.bot.house,
        online: false,
        rating: Math.round(r.rating),
        rating_deviation: Math.round(r.deviation),
        leaderboard_score: r.leaderboardScore,
        wins: 0,
        losses: 0,
        draws: 0,
      }));
  const ladderRuntime = { id: "public", ratings: book } as unknown as LadderRuntime;
  const snapshot = { bots: versions.map((v) => v.bot) } as unknown as Awaited<
    ReturnType<BotDirectory["snapshot"]>
  >;
  const service = new MatchupService({
    ladders: { require: () => ladderRuntime },
    reads: { leaderboard: async () => rows() },
    botDirectory: { snapshot: async () => snapshot },
  });

  // The pages' view (server/insight/board.ts): the whole leaderboard's intervals, a bot page's rivals, the
  // dashboard's top-ten heat map.
  const board = new BoardInsight({
    ladders: { require: () => ladderRuntime },
    reads: { leaderboard: async () => rows() },
    botDirectory: { snapshot: async () => snapshot },
  });
  const bots = new Map<string, { id: string; name: string; labels: { label: string }[] }>();
  for (const v of versions) {
    const b = bots.get(v.bot.id) ?? { id: v.bot.id, name: v.bot.name, labels: [] };
    b.labels.push({ label: v.label });
    bots.set(v.bot.id, b);
  }
  const twoVersions = [...bots.values()].filter((b) => b.labels.length > 1);

  const refit: number[] = [];
  const boardFirst: number[] = [];
  const rivals: number[] = [];
  const heat: number[] = [];
  const regression: number[] = [];
  const intervals: number[] = [];
  const matchups: number[] = [];
  const cached: number[] = [];
  const stalls: number[] = [];
  for (let r = 0; r < runs; r++) {
    const g = ladder.nextGame();
    refit.push(timeMs(() => book.record(g) && book.get(g.a).deviation));
    const input = {
      rating: versions.map((v) => book.ratingOf(v.key)),
      deviation: versions.map((v) => book.get(v.key).deviation),
      covariance: null,
    };
    intervals.push(timeMs(() => rankIntervals(input)));
    // The route's own path: the simulation in slices of 25 draws, the event loop served between them.
    // The longest the event loop waits meanwhile: what a socket would wait for its turn.
    let last = performance.now();
    let gap = 0;
    const probe = setInterval(() => {
      const now = performance.now();
      gap = Math.max(gap, now - last);
      last = now;
    }, 1);
    const t0 = performance.now();
    await service.matchups("public", 50);
    matchups.push(performance.now() - t0);
    clearInterval(probe);
    stalls.push(Math.max(gap, performance.now() - last));
    const t1 = performance.now();
    await service.matchups("public", 50);
    cached.push(performance.now() - t1);
    // A fresh BoardInsight each run: its first ask computes (and awaits) the intervals of every row.
    const fresh = new BoardInsight({
      ladders: { require: () => ladderRuntime },
      reads: { leaderboard: async () => rows() },
      botDirectory: { snapshot: async () => snapshot },
    });
    const t2 = performance.now();
    await fresh.intervals("public");
    boardFirst.push(performance.now() - t2);
    const someone = rows()[Math.floor(rows().length / 2)]!.name;
    const t3 = performance.now();
    await board.rivals("public", someone);
    rivals.push(performance.now() - t3);
    const t4 = performance.now();
    await board.heatmap("public");
    heat.push(performance.now() - t4);
    // The alert's check after a rated game: one version against its predecessor, for every two-version bot
    // (the per-game cost is one such check per player seat).
    const t5 = performance.now();
    for (const b of twoVersions) regressionOf(book, "public", b, b.labels, b.labels.at(-1)!.label);
    regression.push((performance.now() - t5) / Math.max(1, twoVersions.length));
  }
  const base = median(refit);
  const n = `${versions.length.toLocaleString("en-US")} ranked`;
  return [
    {
      name: `BT refit after one more game (${VERSIONS.toLocaleString("en-US")} versions; the baseline)`,
      value: base,
      unit: "ms",
    },
    { name: `rank intervals of all ${n} versions (2,000 draws)`, value: median(intervals), unit: "ms" },
    { name: "  the same, as a ratio to the refit", value: median(intervals) / base, unit: "x" },
    { name: `matchups top 50 of ${n}, first ask after a game`, value: median(matchups), unit: "ms" },
    { name: "  the same, as a ratio to the refit", value: median(matchups) / base, unit: "x" },
    { name: "  longest event-loop wait during it (sliced)", value: median(stalls), unit: "ms" },
    { name: "matchups top 50, asked again (cached)", value: median(cached), unit: "ms" },
    {
      name: `leaderboard rank intervals, all ${n} rows, first ask (awaited; sliced)`,
      value: median(boardFirst),
      unit: "ms",
    },
    {
      name: "  so recomputed at most once per (20 x that)",
      value: (COST_FACTOR * median(boardFirst)) / 1000,
      unit: "s",
    },
    { name: "bot page: chance to beat the 10 nearest rivals", value: median(rivals), unit: "ms" },
    { name: "dashboard heat map, top 10 (intervals kept)", value: median(heat), unit: "ms" },
    { name: "regression check of one version after a game", value: 1000 * median(regression), unit: "µs" },
    { name: "  the same, as a ratio to the refit", value: median(regression) / base, unit: "x" },
  ];
}
