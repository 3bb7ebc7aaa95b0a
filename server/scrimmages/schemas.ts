// The response of GET /api/batches/:id (issue 34, part 2), for its /openapi.json entry.
import { z } from "zod";

const int = z.number().int();
const share = z.number().min(0).max(1).nullable();

export const Tally = z.object({
  games: int,
  wins: int,
  losses: int,
  draws: int,
  voided: int,
  score: share.describe("(wins + draws / 2) / games that counted; null before any"),
  low: share.describe("lower end of the 95 % Wilson interval of the score"),
  high: share.describe("upper end of the 95 % Wilson interval of the score"),
});

export const Game = z.object({
  id: z.string(),
  state: z.enum(["pending", "playing", "done", "cancelled", "expired"]),
  bot: z.string(),
  opponent: z.string(),
  opponent_house: z.boolean(),
  map: z.string().nullable(),
  match_id: z.string().nullable(),
  result: z.enum(["win", "loss", "draw", "void"]).nullable().describe("from the batch bot's side"),
  version: z.string().nullable(),
  reason: z.string().nullable(),
  created: z.string(),
  started: z.string().nullable(),
  ended: z.string().nullable(),
  match_url: z.string().nullable(),
  replay_url: z.string().nullable(),
});

export const Batch = z.object({
  id: z.string(),
  state: z.enum(["running", "done", "cancelled"]),
  bot: z.string(),
  version: z.string().nullable(),
  games: int,
  opponents: z.array(z.string()),
  map: z.string().nullable(),
  created: z.string(),
  ended: z.string().nullable(),
  progress: z.object({ finished: int, playing: int, waiting: int }),
  waiting_for: z.string().nullable().describe("why the next game has not started, while running"),
  summary: z.object({
    all: Tally,
    by_opponent: z.record(z.string(), Tally),
    by_map: z.record(z.string(), Tally),
  }),
  interval: z.string(),
  results: z.array(Game),
  url: z.string(),
});
