// Why a ranked match was paired (issue 33, part 4): the matchmaker's reason, the weight the pairing rule gave
// the pair and the parts it was summed from, each fighter's wait, the rating window in force and why the map
// was chosen. The matchmaker writes one with each start plan; the match record stores it (the `pairing`
// column of matches) and `GET /api/matches/<id>` returns it. The schema is the API's and the OpenAPI
// document's; pairing.ts and matchmaker.ts fill it in.
import { z } from "zod";

export const PAIRING_REASONS = [
  "competitive",
  "discovery",
  "contradiction",
  "priority",
  "request",
  "settlement",
  "tournament",
] as const;
export type PairingReason = (typeof PAIRING_REASONS)[number];

export const PairingRecord = z
  .object({
    reason: z
      .enum(PAIRING_REASONS)
      .describe(
        "competitive: the best-weighted close pair; discovery: an under-tested pair (one start in seven, or " +
          "a fill-in for bots no close pair could place); contradiction: early results between the two " +
          "disagree with their ratings, so more games are asked; priority: a bot had waited 60 s or more; " +
          "request: the bot asked for this house opponent (an event's opponent request); settlement: an extra " +
          "rated game of a ladder's settlement phase between rank neighbours of its top K; tournament: a game of a " +
          "rated tournament, paired by its round",
      ),
    weight: z
      .number()
      .nullable()
      .describe("the pair's weight in the maximum-weight matching (the sum of `parts`); null for a request"),
    parts: z
      .record(z.string(), z.number())
      .describe(
        "the weight's parts: quality (100 x how even the forecast is), wait (seconds waited by both, at most " +
          "120), priority (1000 + seconds past 60 s), recent (fewer recent games), settling (a new version " +
          "against an established one), untested (fewer games between the two), contradiction, base",
      ),
    forecast: z
      .number()
      .min(0)
      .max(1)
      .describe("the smoothed forecast of fighter 0's score against fighter 1"),
    pair_games: z.number().int().describe("rated games the two versions had played together before"),
    rating_gap: z.number().int().describe("the two versions' rating difference when paired"),
    window: z
      .number()
      .int()
      .nullable()
      .describe(
        "the rating window in force for the pair (400, +20 per second of the shorter wait, at most 1200); null for a request",
      ),
    waits_ms: z
      .array(z.number().int().min(0))
      .length(2)
      .describe(
        "how long each fighter (0 then 1) had waited in the queue; 0 for a house bot, which is always there",
      ),
    requested_by: z
      .string()
      .nullable()
      .describe("the bot that asked for this opponent (reason request), else null"),
    map: z.object({
      reason: z.literal("least_played").describe("the map the pair had played least together"),
      games: z.number().int().describe("the pair's games on the chosen map before this one"),
      choices: z.number().int().describe("how many maps were tied at that count (the seed chose among them)"),
    }),
  })
  .describe("why the matchmaker paired these two (ranked matches only)");
export type PairingRecord = z.infer<typeof PairingRecord>;

/** What the pairing rule knows of a pair (pairing.ts), before the matchmaker adds the seats and the map. */
export interface PairingChoice {
  reason: PairingReason;
  weight: number | null;
  parts: Record<string, number>;
  window: number | null;
  pairGames: number;
}

/** The one sentence the match page says about a pairing. */
export function pairingSentence(p: PairingRecord, names: readonly [string, string]): string {
  const [a, b] = names;
  const wait = (ms: number) => `${Math.round(ms / 1000)} s`;
  const waited = p.waits_ms
    .map((ms, i) => (ms > 0 ? `${names[i]} had waited ${wait(ms)}` : null))
    .filter((x) => x !== null)
    .join(" and ");
  const even = `${Math.round(p.forecast * 100)} % forecast for ${a}`;
  const why: Record<PairingReason, string> = {
    competitive: `a competitive pairing: ratings ${p.rating_gap} points apart, within the ${p.window ?? 0}-point window, ${even}`,
    discovery: `a discovery pairing: the two had played only ${p.pair_games} rated games together, so the ladder learns how they compare`,
    contradiction: `a contradiction test: their ${p.pair_games} games together disagreed with their ratings, so more games were asked`,
    priority: `a priority pairing: a bot had waited over 60 s, which outweighs every other reason (${even})`,
    request: `an opponent request: ${p.requested_by ?? "a bot"} asked to meet this house bot`,
    settlement: `a settlement game: rank neighbours among the ladder's top bots whose rank intervals overlap, played to settle the final standings`,
    tournament: `a game of a rated tournament: the two were paired by its round, and the result counts in the ladder's ratings (${even})`,
  };
  const map = `${p.map.games === 0 ? "a map they had never played together" : `the map they had played least together (${p.map.games} games)`}${p.map.choices > 1 ? `, picked by the seed among ${p.map.choices}` : ""}`;
  return `${a} and ${b} were paired as ${why[p.reason]}${waited ? `; ${waited}` : ""}; on ${map}${p.weight === null ? "" : ` (weight ${Math.round(p.weight)})`}.`;
}
