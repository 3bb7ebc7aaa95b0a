// The responses of GET /api/tournaments and GET /api/tournaments/:id (issue 34, part 3), for /openapi.json.
import { z } from "zod";

const int = z.number().int();
const points = z.number().min(0).nullable();
const format = z.enum(["round_robin", "swiss"]);
const state = z.enum(["scheduled", "running", "done", "cancelled"]);

export const Standing = z.object({
  rank: int,
  bot: z.string(),
  score: z.number().describe("game points: win 1, draw 1/2, loss or forfeit 0; a Swiss bye a won pairing"),
  games: int,
  wins: int,
  draws: int,
  losses: int,
  forfeits: int.describe("games lost by absence"),
  byes: int,
  buchholz: z.number().describe("sum of the scores of the opponents met, once per pairing"),
  sonneborn_berger: z.number().describe("sum over games of the points scored times that opponent's score"),
});

export const TournamentGame = z.object({
  game: int,
  state: z.enum(["waiting", "playing", "done"]),
  map: z.string().nullable(),
  match_id: z.string().nullable(),
  points_a: points,
  points_b: points,
  winner: z.string().nullable(),
  forfeit: z.enum(["a", "b", "both"]).nullable().describe("the absent side(s)"),
  reason: z.string().nullable(),
  started: z.string().nullable(),
  ended: z.string().nullable(),
  match_url: z.string().nullable(),
  replay_url: z.string().nullable(),
});

export const Tournament = z.object({
  id: z.string(),
  name: z.string(),
  ladder_id: z.string(),
  format,
  state,
  rated: z
    .boolean()
    .describe(
      "false (the default): unrated games of mode tournament, out of the ladder's ratings; true: rated games of the ladder (mode ranked, pairing reason tournament)",
    ),
  round: int.describe("the round being played (0 before the start)"),
  round_count: int.nullable().describe("Swiss: as scheduled; round-robin: fixed at the start"),
  games_per_pairing: int,
  starts_at: z.string(),
  checkin_opens_at: z.string(),
  forfeit_after_s: int,
  note: z.string().nullable(),
  created: z.string(),
  started: z.string().nullable(),
  ended: z.string().nullable(),
  entrants: z.array(z.object({ bot: z.string(), seed: int.nullable(), checked_in: z.string() })),
  scoring: z.string(),
  tie_breaks: z.array(z.string()),
  final: z.boolean().describe("the standings are the final ones, kept"),
  standings: z.array(Standing),
  rounds: z.array(
    z.object({
      round: int,
      pairings: z.array(
        z.object({
          a: z.string(),
          b: z.string().nullable(),
          bye: z.boolean(),
          points_a: points,
          points_b: points,
          state: z.enum(["waiting", "playing", "done"]),
          games: z.array(TournamentGame),
        }),
      ),
    }),
  ),
  url: z.string(),
});

export const TournamentList = z.array(
  z.object({
    id: z.string(),
    name: z.string(),
    ladder_id: z.string(),
    format,
    state,
    rated: z.boolean(),
    starts_at: z.string(),
    round: int,
    round_count: int.nullable(),
    entrants: int,
    url: z.string(),
  }),
);
