// What `npm run mutation` mutates, and against which tests: one entry per module, each with the few test
// files that pin its rules (small and fast, since every mutant reruns them). A `path:from-to` mutate entry
// limits mutation to those lines (Stryker's own syntax), for files where only some code carries the rules.
export interface MutationModule {
  /** Files (or `file:line-line` ranges) to mutate. */
  mutate: string[];
  /** Test files run against each mutant. */
  tests: string[];
  /** What the module's tests are meant to pin, for the report. */
  rules: string;
}

export const MODULES: Record<string, MutationModule> = {
  ratings: {
    mutate: ["server/ratings/bradley-terry.ts"],
    tests: [
      "test/unit/bradley-terry.test.ts",
      "test/unit/standard-errors.test.ts",
      "test/unit/bt-solver.test.ts",
      "test/unit/pairing.test.ts",
    ],
    rules: "Bradley-Terry fit, standard errors, leaderboard score, expected score (SPEC 1.2 rule 9)",
  },
  book: {
    mutate: ["server/ratings/book.ts"],
    // ratings-known.test.ts also reaches the book, but through a store (seconds per run); rating-book.test.ts
    // checks the book against fitBradleyTerry and forecasts computed independently, in well under a second.
    tests: ["test/unit/rating-book.test.ts"],
    rules: "rating book: qualifying games, forecasts from pair and map results (SPEC 1.2 rules 2, 9)",
  },
  pairing: {
    mutate: ["server/matchmaker/pairing.ts"],
    tests: [
      "test/unit/pairing.test.ts",
      "test/unit/pairing-rules.test.ts",
      "test/unit/matchmaker.test.ts",
      "test/unit/matchmaker-details.test.ts",
    ],
    rules: "window, priority, established matchups, weights, discovery, exclusions (SPEC 1.2 rules 1, 3-5)",
  },
  matchmaker: {
    mutate: ["server/matchmaker/matchmaker.ts"],
    tests: ["test/unit/matchmaker.test.ts", "test/unit/matchmaker-details.test.ts"],
    rules:
      "one in seven discovery, quotas and capacity applied, map and seat choice (SPEC 1.2 rules 3, 5, 6)",
  },
  quotas: {
    mutate: ["server/matchmaker/quotas.ts"],
    tests: ["test/unit/quotas.test.ts"],
    rules: "hourly and daily quotas: never late, at most 10 s early (SPEC 8)",
  },
  policy: {
    mutate: ["server/ladders/policy.ts"],
    tests: ["test/unit/policy.test.ts"],
    rules: "the live operational policy reports SPEC 8's limits",
  },
  limits: {
    mutate: ["server/bots/versions.ts", "server/connection/bot-connection.ts"],
    tests: ["test/unit/limits.test.ts"],
    rules: "new versions per day, idle messages per second (SPEC 8)",
  },
  socket: {
    // unstorableText, then onMessage, queue and describe: the per-message pipeline.
    mutate: ["server/socket/hub.ts:29-34", "server/socket/hub.ts:185-275", "server/socket/hub.ts:300-304"],
    tests: ["test/unit/hub-pipeline.test.ts"],
    rules:
      "the per-message pipeline: rate limit, decode, validate, dispatch, one code per failure (SPEC 6, 7.2)",
  },
  runner: {
    // fromBot (what counts as a seat's answer, the per-tick message cap), detach/attach (the reconnect grace),
    // the tick's due times, maybeResolve, the deadline timer and deadlinesDue; in the host, Match.play's idle
    // turns, refusal counts and disqualification after max_consecutive_failures, and Match.disqualify.
    mutate: [
      "server/runner/match-runner.ts:131-186",
      "server/runner/match-runner.ts:214-233",
      "server/runner/match-runner.ts:256-312",
      "engine/match.ts:248-297",
      "engine/match.ts:318-328",
    ],
    tests: [
      "test/unit/match-runner.test.ts",
      "test/unit/match-host.test.ts",
      "test/unit/reconnect-grace.test.ts",
      "test/unit/bad-input.test.ts",
    ],
    rules:
      "the match runner's deadlines, per-tick message cap, reconnect grace and disqualification after 10 failures (SPEC 3.3, 8)",
  },
  observations: {
    mutate: ["engine/json-bytes.ts", "engine/observation-writer.ts"],
    tests: ["test/unit/observation-writer.test.ts"],
    rules: "the observation writer's bytes are JSON.stringify's: escapes, number forms, key order (SPEC 6.2)",
  },
  accounts: {
    // Password storage and checking, and how a presented secret is classified.
    mutate: ["server/accounts/passwords.ts", "server/accounts/accounts.ts:22-29"],
    tests: ["test/unit/credentials.test.ts"],
    rules: "the accounts' credential rules: scrypt storage, constant-time check, token kinds (SPEC 5)",
  },
};
