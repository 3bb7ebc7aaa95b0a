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
