// The wire protocol (SPEC section 6): every message schema by direction and every code, in one module that
// the engine host, simulator, server, pool and bots import. JSON Schemas under docs/schema are generated from
// these zod schemas (scripts/gen-schemas.ts); nothing re-declares a message shape by hand.
import { z } from "zod";
import { ATTACK_NAMES, DIRECTIONS, PICKUP_KINDS } from "./rules.ts";

export const REJECT_REASONS = [
  "unknown_attack",
  "not_ready",
  "bad_text",
  "not_visible",
  "blocked",
  "conflicting_moves",
  "schema",
] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

/** Parts of a turn that can be refused; `shout` is named separately so a bad shout never reads as a lost turn. */
export const TURN_PARTS = ["move", "dash", "attack", "turn", "shout"] as const;
export type TurnPart = (typeof TURN_PARTS)[number];

export const END_REASONS = [
  "last_standing",
  "timeout_hp",
  "timeout_damage",
  "timeout_draw",
  "double_knockout",
  "forfeit",
  "disqualified",
  "voided",
  "aborted",
] as const;
export type EndReason = (typeof END_REASONS)[number];

/** Why a fighter's turn was substituted with an idle one by the server (SPEC `server_idles`). */
export const IDLE_REASONS = ["timeout", "disconnected"] as const;
export type IdleReason = (typeof IDLE_REASONS)[number];

/** Connection errors after which a client must stop reconnecting (SPEC 7.2). */
export const FATAL_CONNECTION_CODES = [
  "missing_authorization",
  "invalid_token",
  "suspended",
  "banned",
  "retired",
  "account_banned",
  "account_required",
  "replaced",
] as const;

export const DAMAGE_SOURCES = [...ATTACK_NAMES, "wall_slam", "collision"] as const;
export const TAKEN_SOURCES = [...DAMAGE_SOURCES, "zone"] as const;

const int = z.int();
const nonNeg = z.int().min(0);
export const Tile = z.tuple([int, int]).describe("[x, y]; x grows east, y grows south, origin top-left");
export const DirectionSchema = z.enum(DIRECTIONS);
export const AttackNameSchema = z.enum(ATTACK_NAMES);
export const BoardCoordinate = z.int().min(0).max(20);

// ---- bot to server ----

export const QueueMessage = z.object({
  type: z.literal("queue"),
  version: z.string().min(1).max(32),
  ladder_id: z.string().min(1).max(64).optional(),
});
export const LeaveMessage = z.object({ type: z.literal("leave") });
export const ReadyMessage = z.object({ type: z.literal("ready") });

export const AttackPart = z.object({
  name: z.string().describe("an entry of hello.rules.attacks"),
  target: z.tuple([BoardCoordinate, BoardCoordinate]).optional().describe("required except for repulsor"),
});
export const TurnMessage = z
  .object({
    type: z.literal("turn"),
    tick: int.describe("the tick of the observation this turn answers"),
    move: DirectionSchema.optional(),
    dash: DirectionSchema.optional(),
    attack: AttackPart.optional(),
    shout: z.string().optional().describe("at most 40 characters, once every 20 ticks"),
  })
  .describe("All parts optional; an empty turn is idle. move and dash are exclusive.");
export type Turn = z.infer<typeof TurnMessage>;

export const BotMessage = z.discriminatedUnion("type", [
  QueueMessage,
  LeaveMessage,
  ReadyMessage,
  TurnMessage,
]);
export type BotMessageT = z.infer<typeof BotMessage>;

// ---- server to bot ----

export const Deadlines = z.object({
  startup_ms: nonNeg,
  tick_ms: nonNeg,
  match_budget_ms: nonNeg,
  max_consecutive_failures: nonNeg,
  reconnect_grace_ms: nonNeg,
});
export type DeadlinesT = z.infer<typeof Deadlines>;

export const FighterRef = z.object({
  id: nonNeg,
  name: z.string(),
  display_name: z.string(),
  version: z.string(),
});

export const MapView = z.object({
  name: z.string(),
  width: nonNeg,
  height: nonNeg,
  rows: z.array(z.string()).describe("'#' wall, '.' floor, 'A'/'B' spawn sides, 'p' pickup spot"),
});

export const HelloMessage = z.object({
  type: z.literal("hello"),
  match_id: z.string(),
  bot_id: nonNeg.describe("your fighter id"),
  protocol_version: z.string(),
  engine_version: z.string(),
  rules_hash: z.string(),
  rules: z.looseObject({ attacks: z.record(z.string(), z.unknown()) }),
  map: MapView,
  fighters: z.array(FighterRef),
  deadlines: Deadlines,
  ladder_id: z.string(),
  mode: z.string(),
  tick: nonNeg.describe("current tick; above 0 when resuming a match"),
});
export type HelloMessageT = z.infer<typeof HelloMessage>;

export const Cooldowns = z.object({
  ranged: nonNeg,
  frostburst: nonNeg,
  repulsor: nonNeg,
  dash: nonNeg,
  shout: nonNeg,
});

export const SelfView = z.object({
  id: nonNeg,
  x: int,
  y: int,
  hp: int,
  shield: nonNeg,
  alive: z.boolean(),
  stunned: nonNeg.describe("ticks still stunned; moves, dashes and attacks are refused while above 0"),
  slowed: nonNeg.describe("ticks still slowed; dashes are refused while above 0"),
  cooldowns: Cooldowns.describe("ticks until each is ready; 0 means ready now"),
});
export type SelfViewT = z.infer<typeof SelfView>;

export const OpponentView = z.object({
  id: nonNeg,
  name: z.string(),
  visible: z.boolean(),
  x: int.nullable(),
  y: int.nullable(),
  hp: int,
  shield: nonNeg,
  alive: z.boolean(),
  stunned: nonNeg.nullable(),
  slowed: nonNeg.nullable(),
  last_seen: z.object({ tile: Tile, tick: nonNeg }).nullable(),
});
export type OpponentViewT = z.infer<typeof OpponentView>;

export const MoveOption = z.object({ dir: DirectionSchema, tile: Tile });
export const DashOption = z.object({ dir: DirectionSchema, tile: Tile, distance: z.int().min(1) });
export const AreaView = z.object({
  kind: z.literal("frostburst"),
  owner: nonNeg,
  center: Tile,
  radius: nonNeg,
  explodes_in: nonNeg.describe("ticks until it explodes; 0 means at the end of this tick"),
});
export const DangerTile = z.object({
  tile: Tile,
  source: z.enum(["frostburst", "zone"]),
  in: nonNeg.describe("ticks until the tile hurts; 0 means this tick"),
});
export const PickupView = z.object({ kind: z.enum(PICKUP_KINDS), tile: Tile });
export const ZoneView = z.object({
  center: Tile,
  radius: nonNeg.describe("tiles with Chebyshev distance above radius from center take zone damage"),
  next_radius: nonNeg.nullable(),
  shrinks_in: nonNeg.nullable(),
  damage: nonNeg,
});

const by = nonNeg.describe("fighter id");
export const GameEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("move"), by, from: Tile, to: Tile, dash: z.boolean(), blocked: z.boolean() }),
  z.object({
    type: z.literal("attack"),
    by,
    name: AttackNameSchema,
    from: Tile,
    target: Tile,
    ricochet: z.boolean(),
  }),
  z.object({
    type: z.literal("hit"),
    by,
    target: nonNeg,
    source: z.enum(DAMAGE_SOURCES),
    damage: nonNeg,
    absorbed: nonNeg,
    ricochet: z.boolean().optional(),
  }),
  z.object({
    type: z.literal("rejected"),
    by,
    part: z.enum(TURN_PARTS),
    reason: z.enum(REJECT_REASONS),
    detail: z.string().optional(),
  }),
  z.object({ type: z.literal("shout"), by, text: z.string().describe("cleaned, untrusted text") }),
  z.object({ type: z.literal("area_spawn"), by, center: Tile, radius: nonNeg, explodes_in: nonNeg }),
  z.object({ type: z.literal("area_explode"), by, center: Tile, radius: nonNeg }),
  z.object({ type: z.literal("zone_damage"), target: nonNeg, damage: nonNeg }),
  z.object({ type: z.literal("zone_shrink"), radius: nonNeg }),
  z.object({ type: z.literal("repulse"), by, target: nonNeg, from: Tile, to: Tile, wall_slam: z.boolean() }),
  z.object({ type: z.literal("pickup"), by, kind: z.enum(PICKUP_KINDS), tile: Tile, amount: nonNeg }),
  z.object({ type: z.literal("pickup_spawn"), kind: z.enum(PICKUP_KINDS), tile: Tile }),
  z.object({ type: z.literal("status"), target: nonNeg, effect: z.enum(["slow", "stun"]), ticks: nonNeg }),
  z.object({ type: z.literal("death"), target: nonNeg }),
]);
export type GameEventT = z.infer<typeof GameEvent>;

export const ObservationMessage = z.object({
  type: z.literal("observation"),
  match_id: z.string(),
  tick: nonNeg,
  tick_ms: nonNeg.describe("deadline for this turn in ms"),
  budget_ms_left: int.describe("remaining match reply-time budget in ms"),
  self: SelfView,
  opponents: z.array(OpponentView),
  moves: z.array(MoveOption).describe("legal one-tile moves this tick"),
  dashes: z.array(DashOption).describe("legal dashes this tick with where each ends"),
  areas: z.array(AreaView),
  danger: z.array(DangerTile).describe("tiles within 3 of you that will hurt soon, with their source"),
  pickups: z.array(PickupView),
  zone: ZoneView,
  events: z.array(GameEvent).describe("what happened on the last tick that you could see"),
});
export type ObservationT = z.infer<typeof ObservationMessage>;

const Counter = z.record(z.string(), nonNeg);
export const WeaponStats = z.object({ uses: nonNeg, hits: nonNeg, damage: nonNeg });
export const TimingStats = z.object({
  replies: nonNeg,
  mean_ms: z.number().min(0),
  p50_ms: z.number().min(0),
  p95_ms: z.number().min(0),
  max_ms: z.number().min(0),
  near_limit: nonNeg.describe("replies taking at least 80 % of the tick limit"),
  tick_ms: nonNeg,
  budget_ms: nonNeg,
  budget_ms_left: z.number(),
  histogram: z
    .array(nonNeg)
    .describe("reply counts in tenths of the tick limit; the last bucket is the limit and over"),
});
export const FighterStats = z.object({
  id: nonNeg,
  name: z.string(),
  version: z.string(),
  hp: int,
  alive: z.boolean(),
  moves: nonNeg,
  moves_blocked: nonNeg,
  dashes: nonNeg,
  dash_tiles: nonNeg,
  weapons: z.record(z.string(), WeaponStats),
  ricochets: z.object({ bounces: nonNeg, hits: nonNeg, damage: nonNeg }),
  pickups: Counter,
  healed: nonNeg,
  damage_dealt: nonNeg,
  damage_taken: nonNeg,
  dealt_by_source: Counter,
  taken_by_source: Counter,
  wall_slams: nonNeg,
  knocked_back: nonNeg,
  stunned: nonNeg,
  zone_ticks: nonNeg,
  rejected: Counter,
  refused_turns: nonNeg,
  refused_turns_by_reason: Counter,
  refused_all_parts: nonNeg
    .optional()
    .describe(
      "turns accepted as a whole of which every move, dash and attack part sent was refused (nothing asked for was done; a shout does not count); absent in older stats",
    ),
  refused_ticks_by_reason: Counter.optional().describe(
    "ticks in which some part of the turn, or the whole turn, was refused, by reason; absent in older stats",
  ),
  server_idles: z.object({ timeout: nonNeg.optional(), disconnected: nonNeg.optional() }),
  timing: TimingStats,
  disconnects: nonNeg,
  disqualified: z.boolean(),
});
export type FighterStatsT = z.infer<typeof FighterStats>;
export const STATS_VERSION = 2;
export const MatchStats = z.object({
  match_id: z.string().optional(),
  stats_version: z.literal(STATS_VERSION),
  map: z.string(),
  seed: int,
  ticks: nonNeg,
  winner: nonNeg.nullable(),
  reason: z.string().nullable(),
  fighters: z.array(FighterStats),
});
export type MatchStatsT = z.infer<typeof MatchStats>;

export const QueuedMessage = z.object({
  type: z.literal("queued"),
  version: z.string(),
  estimated_wait_s: z.number().min(0),
  ladder_id: z.string().optional(),
});
export const EndMessage = z.object({
  type: z.literal("end"),
  match_id: z.string(),
  winner: nonNeg.nullable().describe("winning fighter id; null for a draw"),
  result: z.enum(["win", "loss", "draw", "void"]),
  reason: z.enum(END_REASONS),
  final_tick: nonNeg,
  stats: MatchStats.nullable(),
  watch_url: z.string(),
  rating_change: int.nullable(),
  ladder_id: z.string(),
});
export const ErrorMessage = z.object({ type: z.literal("error"), code: z.string(), message: z.string() });
export const ReplacedMessage = z.object({ type: z.literal("replaced") });
export const ServerDrainingMessage = z.object({
  type: z.literal("server_draining"),
  drain_deadline: z.string(),
});

export const ServerMessage = z.discriminatedUnion("type", [
  QueuedMessage,
  HelloMessage,
  ObservationMessage,
  EndMessage,
  ErrorMessage,
  ReplacedMessage,
  ServerDrainingMessage,
]);

export type ServerMessageT = z.infer<typeof ServerMessage>;
export type QueuedMessageT = z.infer<typeof QueuedMessage>;
export type EndMessageT = z.infer<typeof EndMessage>;

/** Schemas published at /docs/schema/<name>.json, by name. */
export const PUBLISHED_SCHEMAS: Record<string, z.ZodType> = {
  "bot-message": BotMessage,
  "bot-queue": QueueMessage,
  "bot-leave": LeaveMessage,
  "bot-ready": ReadyMessage,
  "bot-turn": TurnMessage,
  "server-message": ServerMessage,
  "server-queued": QueuedMessage,
  "server-hello": HelloMessage,
  "server-observation": ObservationMessage,
  "server-end": EndMessage,
  "server-error": ErrorMessage,
  "server-replaced": ReplacedMessage,
  "server-draining": ServerDrainingMessage,
  "match-stats": MatchStats,
  event: GameEvent,
};
