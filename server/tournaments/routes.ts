// Tournament operations (issue 34, part 3): staff schedule and cancel; anyone reads the list and a tournament
// with its rounds and standings. Thin: parse, ask the tournament service, return what it answers.
import { z } from "zod";
import { operationFor } from "../kernel/operation.ts";
import { MAX_ROUNDS } from "./catalog.ts";
import * as S from "./schemas.ts";
import type { TournamentService } from "./service.ts";

/** What these operations are handed (their feature: feature.ts beside this file). */
export interface TournamentServices {
  tournaments: TournamentService;
}
const defineOperation = operationFor<TournamentServices>();

const ADMIN_ERRORS = {
  401: "no session (`missing_authorization`, `invalid_session`)",
  403: "not an admin (`not_admin`), `foreign_origin`",
};
const IdParams = z.object({ id: z.string().max(64).describe("tournament id") });
const CreateBody = z.object({
  name: z.string().min(1).max(100).describe("shown on the tournament page"),
  ladder: z.string().min(1).max(64).describe("the ladder whose bots may enter"),
  format: z.enum(["round_robin", "swiss"]),
  rounds: z
    .number()
    .int()
    .min(1)
    .max(MAX_ROUNDS)
    .optional()
    .describe("Swiss only: the number of rounds (a round-robin has one per opponent)"),
  games_per_pairing: z.number().int().min(1).max(9).default(1).describe("games each pairing plays (1 to 9)"),
  starts_at: z.string().max(40).describe("ISO 8601; a time in the past starts at once"),
  checkin_minutes: z
    .number()
    .int()
    .min(0)
    .max(24 * 60)
    .default(15)
    .describe("the check-in window before the start: bots connected in it check in"),
  forfeit_after_s: z
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(120)
    .describe("a bot that has not queued this long after its game could start forfeits it"),
  rated: z
    .boolean()
    .default(false)
    .describe(
      "true: the games are rated games of the ladder (mode ranked) and enter its ratings; false (the default): unrated games of mode tournament, which stay out of them",
    ),
});

export const TOURNAMENT_OPERATIONS = [
  defineOperation({
    method: "GET",
    path: "/api/tournaments",
    operationId: "listTournaments",
    summary: "Tournaments, newest first: scheduled, running and finished",
    auth: "none",
    doc: { tag: "data", ok: S.TournamentList },
    tools: [
      {
        name: "list_tournaments",
        description:
          "The ladder's tournaments, newest first (scheduled, running, finished): id, name, ladder, format (round robin or Swiss), state and start. get_tournament has one in full.",
        permission: "register",
        result: (tournaments) => ({ tournaments }),
      },
    ],
    handle: async (_input, ctx) => ctx.tournaments.list(),
  }),
  defineOperation({
    method: "GET",
    path: "/api/tournaments/:id",
    operationId: "getTournament",
    summary:
      "A tournament: format, state, entrants, every round's pairings with results and replay links, and the standings with their tie-breaks (final once it ends)",
    auth: "none",
    params: IdParams,
    errors: { 404: "`no_such_tournament`" },
    doc: { tag: "data", ok: S.Tournament },
    tools: [
      {
        name: "get_tournament",
        description:
          "One tournament (id, from list_tournaments): format, state, entrants, every round's pairings with results and replay links, and the standings with their tie-breaks (final once it ends).",
        permission: "register",
      },
    ],
    handle: async ({ params }, ctx) => ctx.tournaments.get(params.id),
  }),
  defineOperation({
    method: "POST",
    path: "/api/admin/tournaments",
    operationId: "createTournament",
    summary: "Schedule a round-robin or Swiss tournament on a ladder (admins)",
    auth: "admin",
    body: CreateBody,
    status: 201,
    errors: {
      ...ADMIN_ERRORS,
      400: "unknown ladder, bad start time, rounds missing or not allowed (`bad_request`)",
    },
    handle: async ({ body, caller }, ctx) => ctx.tournaments.create(caller, body),
  }),
  defineOperation({
    method: "DELETE",
    path: "/api/admin/tournaments/:id",
    operationId: "cancelTournament",
    summary: "Cancel a scheduled or running tournament (admins); the standings so far are kept",
    auth: "admin",
    params: IdParams,
    errors: { ...ADMIN_ERRORS, 404: "`no_such_tournament`" },
    handle: async ({ params, caller }, ctx) => ctx.tournaments.cancel(caller, params.id),
  }),
];
