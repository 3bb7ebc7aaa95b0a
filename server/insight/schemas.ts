// The response of GET /api/ladders/:id/matchups (issue 33, part 3), for its /openapi.json entry.
import { z } from "zod";

const int = z.number().int();
const chance = z.number().min(0).max(1);

export const WinChance = z.object({
  p: chance.describe("fitted probability that the row version beats the column one (a draw counts half)"),
  low: chance.describe("lower end of the interval"),
  high: chance.describe("upper end of the interval"),
});

export const MatchupVersion = z.object({
  rank: int.describe("leaderboard rank"),
  name: z.string(),
  display_name: z.string(),
  version: z.string(),
  house: z.boolean(),
  rating: int,
  rating_deviation: int,
  rank_low: int.describe("best rank in the interval (1 is the top)"),
  rank_high: int.describe("worst rank in the interval"),
});

export const Matchups = z.object({
  ladder: z.string(),
  ranked: int.describe("ranked versions on the leaderboard: the range the rank intervals span"),
  confidence: z.number().describe("coverage of every interval (0.95)"),
  method: z
    .enum(["covariance", "independent"])
    .describe("the fit's full covariance, or its deviations treated as independent (large ladders)"),
  draws: int.describe("simulated rating draws behind the rank intervals (fixed seed: same fit, same answer)"),
  versions: z.array(MatchupVersion).describe("the top N leaderboard rows, best first"),
  wins: z
    .array(z.array(WinChance.nullable()))
    .describe(
      "wins[i][j]: the chance that versions[i] beats versions[j], with its interval; null when i = j",
    ),
});

// The response of GET /api/account/bots/:name/matches/:id/diagnostics (issue 33, part 2).
const Counts = z.record(z.string(), int);
const TickRun = z.object({
  tick: int.describe("first tick of the run"),
  to_tick: int.describe("last tick of the run"),
  ticks: int.describe("ticks in the run"),
});

export const Diagnostics = z.object({
  match_id: z.string(),
  ladder_id: z.string(),
  bot: z.string(),
  version: z.string(),
  fighter: int.describe("the bot's fighter id in the match"),
  ended: z.string(),
  ticks: int,
  result: z.enum(["win", "loss", "draw", "void"]),
  reason: z.string().describe("how the match ended"),
  detailed: z
    .boolean()
    .describe("false for matches recorded before the per-tick lists were kept: only the counts are known"),
  turns: z
    .object({
      turns: int.describe("ticks the bot had to answer"),
      idle: int.describe("turns the server played for the bot (timeout, disconnected)"),
      idle_by_reason: Counts,
      refused: int.describe(
        "turns of which nothing was done: refused as a whole, or every move, dash and attack part refused",
      ),
      refused_ticks_by_reason: Counts.describe("ticks with a part refused for each reason"),
      refused_parts_by_reason: Counts.describe("refused parts (and whole turns) by reason"),
      lost: int.describe("idle and refused turns"),
    })
    .describe("the same counts as the bot page's health and the match page (one computation)"),
  refusals: z
    .array(
      TickRun.extend({
        part: z.enum(["move", "dash", "attack", "turn", "shout"]),
        reason: z.string().describe("the rejection reason code (never the bot's own text)"),
      }),
    )
    .describe(
      "every refused part: the same part refused for the same reason on consecutive ticks is one run",
    ),
  refusals_dropped: int.describe("refusals beyond the 300 runs kept"),
  deadline_misses: z
    .array(
      z.object({
        tick: int,
        waited_ms: int.describe("the deadline the server waited"),
        late_ms: int
          .nullable()
          .describe("how long after the deadline the bot's reply for the tick came; null: it never came"),
      }),
    )
    .describe("every tick idled as timeout"),
  deadline_misses_dropped: int.describe("misses beyond the 300 kept"),
  disconnect_runs: z.array(TickRun).describe("consecutive ticks idled as disconnected"),
  disconnects: int,
  disqualified: z.boolean(),
  timing: z
    .object({
      replies: int,
      mean_ms: z.number(),
      p50_ms: z.number(),
      p95_ms: z.number(),
      max_ms: z.number(),
      near_limit: int.describe("replies taking at least 80 % of the tick limit"),
      tick_ms: int,
      budget_ms: int,
      budget_ms_left: z.number(),
      histogram: z
        .array(int)
        .describe("reply counts in tenths of the tick limit; the last bucket is the limit and over"),
    })
    .describe("reply times and the match budget left at the end"),
});
