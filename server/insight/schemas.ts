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

/** A version regression alert (issue 33, part 5): GET /api/me and GET /api/account carry a list of them. */
export const Regression = z
  .object({
    ladder: z.string(),
    bot: z.string().describe("bot name"),
    version: z.string().describe("the version that rates below its predecessor"),
    predecessor: z.string().describe("the latest earlier version with rated games on the ladder"),
    games: int.describe("the version's rated games (30 or more)"),
    predecessor_games: int,
    rating: int,
    rating_deviation: int,
    predecessor_rating: int,
    predecessor_deviation: int,
    drop: int.describe("predecessor's rating minus the version's"),
    combined_error: int.describe(
      "sqrt(rating_deviation^2 + predecessor_deviation^2); drop is more than twice it",
    ),
  })
  .describe(
    "a version with at least 30 rated games whose rating is below its predecessor's by more than twice their combined standard error",
  );
export const Regressions = z
  .array(Regression)
  .describe("version regression alerts of the bot(s), from the last fit: empty when every version holds up");
