// The responses of GET /api/ladders/<id>/settlement and GET /api/ladders/<id>/settlement/final (issue 34,
// part 4), for their /openapi.json entries.
import { z } from "zod";

const int = z.number().int();

export const Settlement = z
  .object({
    id: z.string(),
    ladder_id: z.string(),
    event_id: z.string().nullable().describe("the event whose window it ends; null: the ladder's own"),
    state: z
      .enum(["scheduled", "settling", "final"])
      .describe(
        "scheduled: not begun; settling: versions frozen, extra games among the top K; final: published",
      ),
    top_k: int,
    game_budget: int.describe("extra rated games at most"),
    starts_at: z.string(),
    ends_at: z.string().describe("the latest end; it ends earlier once its budget is played"),
    began_at: z.string().nullable(),
    ended_at: z.string().nullable(),
    frozen: z
      .array(z.object({ rank: int, name: z.string(), version: z.string(), rating: z.number() }))
      .nullable()
      .describe("the top K and their frozen versions as the settlement began; null while scheduled"),
    games_started: int,
    games_played: int,
    games: z.array(
      z.object({
        match_id: z.string(),
        bots: z.array(z.string()).length(2).describe("the two rank neighbours, higher ranked first"),
        overlap: int.describe("ranks their 95 % rank intervals shared when paired"),
        started: z.string(),
        ended: z.string().nullable(),
        voided: z.boolean().nullable(),
        match_url: z.string(),
      }),
    ),
    final_url: z.string().nullable().describe("the final standings page, once published"),
    final_json_url: z.string().nullable(),
  })
  .describe("a ladder's settlement phase");

export const FinalStandings = z
  .object({
    settlement_id: z.string(),
    ladder_id: z.string(),
    taken_at: z.string(),
    top_k: int,
    games_played: int.describe("settlement games played"),
    event_id: z.string().nullable().describe("the event whose window it ended; null: the ladder's own"),
    starts_at: z.string(),
    ends_at: z.string(),
    game_budget: int,
    standings: z.array(
      z.object({
        rank: int,
        name: z.string(),
        display_name: z.string(),
        version: z.string(),
        rating: z.number(),
        rating_deviation: z.number(),
        rank_low: int.nullable().describe("95 % rank interval, best end"),
        rank_high: int.nullable().describe("95 % rank interval, worst end"),
        games: int,
        wins: int,
        losses: int,
        draws: int,
        settled: z.boolean().describe("one of the settlement's top K"),
      }),
    ),
  })
  .describe("the immutable final standings a settlement published");
