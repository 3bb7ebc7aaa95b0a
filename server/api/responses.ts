// Zod schemas of the JSON the documented routes send back (SPEC section 2). They are the source of the
// response schemas in /openapi.json, and the contract test checks live responses against that document, so
// a route that drifts from these shapes fails a test instead of silently breaking a client.

import { z } from "zod";
import { MatchStats } from "../../engine/protocol.ts";
import { EMAIL_CATEGORIES } from "../kernel/unit-of-work.ts";
import { PairingRecord } from "../store/pairing-record.ts";

const int = z.int();
const url = z.string().describe("absolute address");
const timestamp = z.string().describe("UTC ISO 8601 instant");

export const ErrorBody = z.object({
  error: z.string().describe("human-readable message"),
  code: z.string().optional().describe("machine code, see SPEC section 7"),
  account_url: url.optional().describe("where to sign in; present with authentication_required"),
});

export const Versions = z.object({
  release: z.string(),
  engine: z.string(),
  protocol: z.string(),
  rules: z.string(),
  rules_hash: z.string(),
  schema: int.describe("database schema number"),
  commit: z.string().optional(),
});

export const OperationalPolicy = z
  .object({
    ladder: z
      .string()
      .nullable()
      .describe("the ladder whose limits these are (`?ladder=`, default `public`); null: server-wide"),
    startup_ms: int,
    tick_ms: int,
    match_budget_ms: int,
    max_consecutive_failures: int,
    reconnect_grace_ms: int,
    max_message_bytes: int,
    messages_per_tick: int,
    idle_messages_per_second: int,
    matchIntervalMs: int,
    maxConcurrentMatches: int,
    maxConcurrentPerOwner: int,
    matchesPerHourPerBot: int,
    matchesPerDayPerOwner: int,
    maxBotsPerOwner: int,
    newVersionsPerDay: int,
    qualifyingGames: int,
    rematch_hold_ms: int,
    discovery_share: z.string(),
    replaysPerBot: int,
    drain_timeout_ms: int,
    ping_interval_ms: int,
    anonymous_development: z.boolean(),
  })
  .describe("live limits (SPEC section 8); they override the documented defaults");

export const ApiIndex = z.object({
  bot_endpoint: z.string().describe("WebSocket address of the bot socket"),
  accounts: z
    .object({ identity_url: url, publishable_key: z.string() })
    .nullable()
    .describe("identity provider for sign-in; null on a ladder without accounts"),
  authentication_required: z.boolean(),
  mcp: url.nullable().describe("tool endpoint; null while disabled"),
  openapi: url,
  llms_txt: url,
  docs: url,
  bot_code: url,
  versions: Versions,
  onboarding: z.object({
    account_url: url,
    signup_url: url,
    guide_url: url,
    signup_endpoint: url.nullable(),
    token_endpoint: url.nullable(),
    handle_endpoint: url,
    registration_endpoint: url,
    claim_endpoint: url,
  }),
  operational_policy: OperationalPolicy,
  changelog: z.object({ page: url, markdown: url, json: url }),
  simulator: z.object({ javascript: url, script: url, python: url, docs: url }),
  open_data: z
    .object({ index: url, ladder: url, format: url })
    .describe(
      "daily gzip JSON Lines dumps of each ladder's rated results: all ladders, this one, the format",
    ),
  maps: z.array(z.string()),
  endpoints: z.array(z.string()).describe("routes, as `METHOD /path?query=`"),
});

export const ClusterStatus = z.object({
  node: z.string().describe("the node that answered"),
  nodes: z
    .array(
      z.object({
        node: z.string(),
        release: z.string(),
        started_at: z.string(),
        beat_at: z.string().describe("the node's last heartbeat, by its clock"),
        sockets: z.object({ bot: int, human: int }),
        matches: int.describe("matches running on the node"),
        queued: int.describe("bots waiting in the node's queues"),
        pool: z
          .object({ threads: int, queued: int })
          .describe("the node's match workers and waiting matches"),
        leases: z.array(z.string()).describe("the leases the node holds"),
      }),
    )
    .describe("every node whose heartbeat is current, this one included"),
  leases: z
    .array(
      z.object({
        name: z.string().describe("matchmaker.<ladder id>: who pairs that ladder's queue"),
        holder: z.string().nullable().describe("the holder as this node last saw it"),
        held: z.boolean().describe("this node holds it"),
      }),
    )
    .describe("the leases this node takes part in"),
});

export const Status = z.object({
  online: z.array(
    z.object({
      name: z.string(),
      display_name: z.string(),
      house: z.boolean(),
      version: z.string().nullable(),
      state: z.enum(["waiting", "playing", "idle"]),
      ladder_id: z.string(),
    }),
  ),
  matches: z.array(
    z.object({
      id: z.string(),
      ladder_id: z.string(),
      tick: int,
      names: z.array(z.string()),
      display_names: z.array(z.string()).describe("in seat order"),
    }),
  ),
  capacity: z.object({ running: int, max: int }),
  draining: z.boolean(),
  cluster: ClusterStatus.optional().describe("cluster mode only (--cluster): the nodes and the leases"),
});

export const Changelog = z.object({ versions: Versions, markdown: z.string() });

export const DocsIndex = z.object({
  docs: z.array(url).describe("Markdown documents"),
  schemas: z.array(url).describe("JSON Schemas of the bot protocol messages"),
});

export const DownloadsIndex = z.object({
  about: z.string(),
  guide: url,
  typescript: url.describe("the TypeScript starter bot"),
  python: url.describe("the Python starter bot"),
  archives: z
    .array(z.object({ language: z.enum(["typescript", "python"]), url }))
    .describe("each starter as one archive (.tar.gz and .zip) with what installs its dependencies"),
  files: z.array(z.object({ path: z.string(), url, about: z.string() })),
});

export const LeaderboardRow = z.object({
  rank: int,
  name: z.string(),
  display_name: z.string(),
  version: z.string(),
  owner: z.string(),
  owner_url: url.nullable(),
  house: z.boolean(),
  online: z.boolean().describe("connected with this version"),
  rating: int,
  rating_deviation: int,
  leaderboard_score: int,
  wins: int,
  losses: int,
  draws: int,
  rank_low: int
    .nullable()
    .optional()
    .describe("best rank in the 95 % rank interval (issue 33); null until computed for this version"),
  rank_high: int.nullable().optional().describe("worst rank in the 95 % rank interval"),
});

export const LobbyEntry = z.object({
  name: z.string(),
  display_name: z.string(),
  house: z.boolean(),
  version: z.string().nullable().describe("null before queueing"),
  rating: int.nullable(),
  rating_deviation: int.nullable(),
  leaderboard_score: int.nullable(),
  difficulty: z.enum(["Easy", "Medium", "Hard", "Very hard"]).nullable(),
  avatar: z.string().nullable(),
  state: z.enum(["waiting", "playing", "idle"]),
});

export const Version = z.object({
  label: z.string().min(1).max(32),
  notes: z.string(),
  created: timestamp,
  retired: z.boolean(),
  rating: int,
  rating_deviation: int,
  leaderboard_score: int,
  wins: int,
  losses: int,
  draws: int,
  win_rate: z.number().nullable(),
  rated_games: int.describe("rated games this version has played on the ladder"),
  qualifying_games: int.describe("rated games a version needs to be ranked (30)"),
  provisional: z
    .boolean()
    .describe(
      "fewer rated games than qualifying_games: not ranked yet, and the rating still moves by hundreds of points a game",
    ),
});

export const Health = z.object({
  matches: int,
  turns: int,
  idle_pct: z.number(),
  refused_pct: z.number(),
  near_limit_pct: z.number(),
  idle_pct_by_reason: z.record(z.string(), z.number()),
  refused_pct_by_reason: z.record(z.string(), z.number()),
  reply_ms: z.object({ replies: int, mean: z.number(), p50: z.number(), p95: z.number(), max: z.number() }),
  lowest_budget_ms_left: int,
  disconnects: int,
  disqualifications: int,
  refused_turns: int.describe(
    "turns refused as a whole, or with every move, dash and attack part sent refused (nothing asked for was done)",
  ),
  idle_turns: int.describe("turns the server idled (timeout, disconnected)"),
  lost_turns: int.describe("idle and refused turns: turns that did nothing the bot asked for"),
  lost_pct: z.number().describe("lost_turns as a percent of turns"),
  refused_parts_by_reason: z
    .record(z.string(), int)
    .describe("refused parts of turns (and whole turns refused) by reason"),
});

export const MatchStatsBody = MatchStats;

export const Ladder = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  visible: z.boolean(),
  access: z
    .enum(["open", "approval", "invitation"])
    .describe("who may queue: anyone, approved members, invited members"),
  phase: z.enum(["upcoming", "open", "closed"]),
  opens_at: timestamp.nullable().describe("null: open from the start"),
  closes_at: timestamp.nullable().describe("null: never closes"),
  leaderboard_url: url,
  events: z.array(z.object({ id: z.string(), name: z.string() })),
});

export const Match = z.object({
  id: z.string(),
  ladder_id: z.string(),
  mode: z.enum(["ranked", "human", "scrimmage", "tournament"]),
  seed: int,
  map: z.string(),
  started: timestamp.optional(),
  ended: timestamp,
  duration_ms: z.number().min(0).nullable(),
  final_tick: int,
  reason: z.string(),
  winner: z.string().nullable().describe("bot id; null for a draw"),
  voided: z.boolean(),
  bots: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      display_name: z.string(),
      version: z.string(),
      house: z.boolean(),
      avatar: z.string().nullable(),
      fighter: int,
      rating_before: z.number().optional().describe("present when rated"),
      rating_after: z.number().optional().describe("present when rated"),
    }),
  ),
  replay_url: url,
  stats_url: url,
  watch_url: url,
  stats: MatchStats.nullable().optional().describe("only on lists requested with stats=1"),
  pairing: PairingRecord.nullable()
    .optional()
    .describe(
      "GET /api/matches/<id> only: why the matchmaker paired the two; null for human games and older matches",
    ),
});

export const Bot = z.object({
  name: z.string(),
  display_name: z.string(),
  owner: z.string(),
  owner_url: url.nullable(),
  created: timestamp,
  ladder_id: z.string(),
  house: z.boolean(),
  online: z.boolean(),
  avatar: z.string().nullable(),
  online_version: z.string().nullable().describe("version playing or queued"),
  qualifying_games: int,
  versions: z.array(
    Version.extend({
      rank: int.nullable().describe("non-null only for the version on the leaderboard"),
      health: Health.nullable(),
    }),
  ),
  recent_matches: z.array(Match),
});

export const RatingHistory = z.object({
  since: timestamp.nullable(),
  games: int,
  points: z.array(
    z.object({
      match_id: z.string(),
      ended: timestamp,
      version: z.string(),
      rating: int,
      delta: int,
      result: z.enum(["W", "L", "D"]),
      opponent: z.string().describe("name@version"),
      opponent_display_name: z.string(),
      map: z.string(),
    }),
  ),
});

export const User = z.object({
  handle: z.string(),
  created: timestamp,
  ladder_id: z.string(),
  bots: z.array(
    z.object({
      name: z.string(),
      display_name: z.string(),
      owner: z.string(),
      created: timestamp,
      owner_url: url.nullable(),
      house: z.boolean(),
      online: z.boolean(),
      retired: z.boolean(),
      avatar: z.string().nullable(),
      version: z.string().nullable(),
      rank: int.nullable(),
      leaderboard_score: int.nullable(),
      rating: int.nullable(),
      rating_deviation: int.nullable(),
      wins: int,
      losses: int,
      draws: int,
    }),
  ),
});

export const RegisteredBot = z.object({
  name: z.string(),
  token: z.string().describe("bot token, shown once"),
  bot_endpoint: z.string(),
  note: z.string(),
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

export const MyBot = z.object({
  name: z.string(),
  display_name: z.string(),
  owner: z.string(),
  created: timestamp,
  owner_url: url.nullable(),
  house: z.boolean(),
  online: z.boolean(),
  avatar: z.string().nullable(),
  versions: z.array(Version),
  regressions: Regressions.optional(),
});

export const Ok = z.object({ ok: z.boolean() });
/** DELETE /api/bots/<name> (SPEC 3.4). */
export const RemovedBot = z.object({ name: z.string(), outcome: z.enum(["deleted", "retired"]) });
export const NewToken = z.object({
  token: z.string().describe("the new bot token; the old one stops working"),
});

/** GET /api/email/unsubscribe (SPEC 4.1): what a token would do; an invalid or expired one is still a 200. */
export const UnsubscribeCheck = z.object({
  valid: z.boolean(),
  reason: z.enum(["invalid", "expired"]).optional().describe("why the token is not valid"),
  category: z.enum(EMAIL_CATEGORIES).optional(),
  label: z.string().optional().describe("the category as the account page names it"),
  message: z.string(),
});
/** POST /api/email/unsubscribe (SPEC 4.1): the category is off; `already` when it was off before. */
export const Unsubscribed = z.object({
  unsubscribed: z.boolean(),
  category: z.enum(EMAIL_CATEGORIES),
  label: z.string(),
  already: z.boolean(),
  message: z.string(),
});

/** Named response schemas: the components of /openapi.json. */
export const RESPONSE_SCHEMAS = {
  Error: ErrorBody,
  Versions,
  OperationalPolicy,
  ApiIndex,
  Status,
  Changelog,
  DocsIndex,
  DownloadsIndex,
  LeaderboardRow,
  LobbyEntry,
  Version,
  Health,
  MatchStats: MatchStatsBody,
  Match,
  Bot,
  RatingHistory,
  User,
  RegisteredBot,
  MyBot,
  Ok,
  NewToken,
  UnsubscribeCheck,
  Unsubscribed,
} as const;

// The shapes as TypeScript types, for the code that builds and renders them.
export type LeaderboardRowT = z.infer<typeof LeaderboardRow>;
export type LobbyEntryT = z.infer<typeof LobbyEntry>;
export type StatusT = z.infer<typeof Status>;
export type BotT = z.infer<typeof Bot>;
export type RatingHistoryT = z.infer<typeof RatingHistory>;
export type UserT = z.infer<typeof User>;
export type MatchT = z.infer<typeof Match>;
export type LadderT = z.infer<typeof Ladder>;
export type MatchStatsT = z.infer<typeof MatchStatsBody>;
export type ClusterStatusT = z.infer<typeof ClusterStatus>;
