// The one encoding of what nodes tell each other through NATS (issue 36): msgpackr, the binary encoding the design
// names, with its records for repeated shapes (a record's keys are written once per message, then only its
// values). The record definitions travel inside each message rather than being shared ahead of time, so a node
// of another release still reads what it is sent; nothing here is ever JSON.
import { Packr } from "msgpackr";
import { z } from "zod";
import type { MatchRecord } from "../store/types.ts";

/** What one node announces every heartbeat (the KV bucket of nodes, one key per node). */
export interface NodeBeat {
  node: string;
  /** The node's release (a rolling upgrade shows which nodes run which). */
  release: string;
  started_at: string;
  /** When this beat was sent, by the node's clock. */
  beat_at: string;
  sockets: { bot: number; human: number };
  /** Matches running on this node. */
  matches: number;
  /** Bots waiting in this node's queues (house bots not counted). */
  queued: number;
  /** The node's match pool: worker threads alive and matches waiting for one. */
  pool: { threads: number; queued: number };
  /** The ladders whose matchmaker lease this node holds. */
  leases: string[];
  /**
   * Matches running on this node by ladder, and by owner of a player bot in them: the matchmaker's node counts the
   * whole cluster's against a ladder's and an owner's limits (running-counts.ts). Absent from an older node.
   */
  running?: { ladders: Record<string, number>; owners: Record<string, number> };
}

/** The value of a lease entry: who holds it, since when. */
export interface LeaseValue {
  node: string;
  name: string;
  since: string;
}

/** A committed result as the results stream carries it: the match record and the node that committed it. */
export interface SharedResult {
  node: string;
  match: MatchRecord;
}

/** Bytes as msgpack carries them (a Node Buffer when read). */
const bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array);

const count = z.number().int().min(0);
const Beat = z.object({
  node: z.string(),
  release: z.string(),
  started_at: z.string(),
  beat_at: z.string(),
  sockets: z.object({ bot: count, human: count }),
  matches: count,
  queued: count,
  pool: z.object({ threads: count, queued: count }),
  leases: z.array(z.string()),
  running: z.object({ ladders: z.record(z.string(), count), owners: z.record(z.string(), count) }).optional(),
});
const Lease = z.object({ node: z.string(), name: z.string(), since: z.string() });

// The fields of a match record that every node's books, leaderboards and health windows read are checked; the
// rest (stats, pairing) passes through as the committing node wrote it.
const Seat = z
  .object({ fighter: z.number().int(), bot_id: z.string(), version: z.string(), house: z.boolean() })
  .passthrough();
const Shared = z.object({
  node: z.string(),
  match: z
    .object({
      id: z.string(),
      ladder_id: z.string(),
      mode: z.string(),
      map: z.string(),
      ended: z.string(),
      winner_bot_id: z.string().nullable(),
      voided: z.boolean(),
      bots: z.array(Seat).length(2),
      stats: z.unknown(),
    })
    .passthrough(),
});

const packr = new Packr({ useRecords: true, mapsAsObjects: true });

/** Decodes and checks a message; one that is not msgpack or not of the shape is null (logged by the caller). */
function decode<T>(schema: z.ZodType<T>, bytes: Uint8Array): T | null {
  try {
    const r = schema.safeParse(packr.unpack(bytes));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}

export const encodeBeat = (b: NodeBeat): Uint8Array => packr.pack(b);
export const decodeBeat = (bytes: Uint8Array): NodeBeat | null => decode(Beat, bytes);
export const encodeLease = (v: LeaseValue): Uint8Array => packr.pack(v);
export const decodeLease = (bytes: Uint8Array): LeaseValue | null => decode(Lease, bytes);
export const encodeResult = (r: SharedResult): Uint8Array => packr.pack(r);
/** The match record's other fields are the committing node's own MatchRecord, passed through unchanged. */
export const decodeResult = (bytes: Uint8Array): SharedResult | null =>
  decode(Shared, bytes) as SharedResult | null;

/** A committed write to tables every node caches (`table`: "bots" for bots and their versions). */
export interface TableWrite {
  node: string;
  table: string;
}
const Write = z.object({ node: z.string(), table: z.string() });
export const encodeWrite = (w: TableWrite): Uint8Array => packr.pack(w);
export const decodeWrite = (bytes: Uint8Array): TableWrite | null => decode(Write, bytes);

// The shared queue and cross-node play (issue 36, parts 2-3): server/cluster/shared-queue.ts, placement.ts and
// remote-seat.ts say what each message is for.

const Bot = z.object({
  id: z.string(),
  name: z.string(),
  display_name: z.string(),
  owner: z.string(),
  house: z.boolean(),
  status: z.enum(["active", "suspended", "banned", "retired"]),
  avatar: z.string().nullable(),
  created: z.string(),
  account_id: z.string().nullable(),
});

/** One queued bot as the node holding its socket publishes it (bucket `arena_queue`, key: the bot id). */
const Entry = z.object({
  node: z.string(),
  bot: Bot,
  version: z.string(),
  ladder_id: z.string(),
  queued_at: z.number(),
  last_start_at: z.number(),
  /** Its ranked starts in the last hour (the pairing's count of recent games). */
  starts: z.array(z.number()),
  /** Recent opponents: bot id and when their last match ended (the rematch hold). */
  last_met: z.array(z.tuple([z.string(), z.number()])),
});
export type QueueEntry = z.infer<typeof Entry>;
export const encodeEntry = (e: QueueEntry): Uint8Array => packr.pack(e);
export const decodeEntry = (bytes: Uint8Array): QueueEntry | null => decode(Entry, bytes);

/** A seat of a placed match: a bot queued on `node`, or a house bot (node null: every node hosts them). */
const PlacedSeat = z.object({ bot: Bot, version: z.string(), node: z.string().nullable() });
/** The matchmaker's node asks a node to run a match (`arena.place.<node>`). */
const Place = z.object({
  from: z.string(),
  ladder_id: z.string(),
  seats: z.tuple([PlacedSeat, PlacedSeat]),
  map: z.string(),
  seed: z.number().int(),
  pairing: z.unknown(),
});
export type PlaceRequest = z.infer<typeof Place>;
export const encodePlace = (p: PlaceRequest): Uint8Array => packr.pack(p);
export const decodePlace = (bytes: Uint8Array): PlaceRequest | null => decode(Place, bytes);

/** The match's node asks the node holding a seat's socket for the bot (`claim`), or gives it back (`release`). */
const Claim = z.object({
  op: z.enum(["claim", "release"]),
  match: z.string(),
  seat: z.number().int().min(0).max(1),
  bot_id: z.string(),
  ladder_id: z.string(),
  version: z.string(),
  /** The node that runs the match. */
  node: z.string(),
  ranked: z.boolean(),
  /** The other seat's bot (the rematch hold counts from the end of their match). */
  opponent: z.string(),
});
export type ClaimRequest = z.infer<typeof Claim>;
export const encodeClaim = (c: ClaimRequest): Uint8Array => packr.pack(c);
export const decodeClaim = (bytes: Uint8Array): ClaimRequest | null => decode(Claim, bytes);

/** The answer to a placement or a claim: done, or why not. */
const Answer = z.object({ ok: z.boolean(), why: z.string().optional(), match: z.string().optional() });
export type Answer = z.infer<typeof Answer>;
export const encodeAnswer = (a: Answer): Uint8Array => packr.pack(a);
export const decodeAnswer = (bytes: Uint8Array): Answer | null => decode(Answer, bytes);

/**
 * What a seat's socket node sends the match's node (`arena.seat.<match>.<seat>.in`): a message of the bot (its
 * head as the socket node read it, and its bytes; null for a binary frame), or that its socket came back or went.
 * `attach` and `detach` name the relay they come from (`r`), and `attach` when its socket connected (`at`, ms
 * since the epoch): two nodes may hold a socket of the same bot at once (remote-seat.ts, RemoteSeat).
 */
const In = z.object({
  k: z.enum(["msg", "attach", "detach"]),
  r: z.string().optional(),
  at: z.number().optional(),
  type: z.enum(["turn", "ready", "queue", "leave", "other"]).optional(),
  tick: z.number().int().nullable().optional(),
  b: bytes.nullable().optional(),
});
export type SeatIn = z.infer<typeof In>;
export const encodeIn = (m: SeatIn): Uint8Array => packr.pack(m);
export const decodeIn = (bytes: Uint8Array): SeatIn | null => decode(In, bytes);

/**
 * What the match's node sends a seat's socket node (`arena.seat.<match>.<seat>.out`): a message for the bot as
 * text (`s`) or as UTF-8 bytes (`b`, the observations), whether ticks are being played (`p`), and at the end `done`.
 */
const Out = z.object({
  p: z.boolean(),
  s: z.string().optional(),
  b: bytes.optional(),
  done: z.boolean().optional(),
});
export type SeatOut = z.infer<typeof Out>;
export const encodeOut = (m: SeatOut): Uint8Array => packr.pack(m);
export const decodeOut = (bytes: Uint8Array): SeatOut | null => decode(Out, bytes);

/** A connection error for a bot of the receiving node, from the matchmaker's node (`arena.notice.<node>`). */
const Notice = z.object({ bot_id: z.string(), code: z.literal("quota_exceeded"), message: z.string() });
export type Notice = z.infer<typeof Notice>;
export const encodeNotice = (n: Notice): Uint8Array => packr.pack(n);
export const decodeNotice = (bytes: Uint8Array): Notice | null => decode(Notice, bytes);

/**
 * Units of the per-address socket budgets a node spent since its last message (`arena.spend`): each entry is an
 * address, its connects let through and its failed token checks (shared-budgets.ts).
 */
export interface Spends {
  node: string;
  spent: [string, number, number][];
}
const SpendsMsg = z.object({ node: z.string(), spent: z.array(z.tuple([z.string(), count, count])) });
export const encodeSpends = (s: Spends): Uint8Array => packr.pack(s);
export const decodeSpends = (bytes: Uint8Array): Spends | null => decode(SpendsMsg, bytes);

/** A bot's socket to close wherever it is held (`arena.disconnect`): moderation, a new token, a retirement. */
export interface Disconnect {
  node: string;
  bot_id: string;
  code: string;
}
const DisconnectMsg = z.object({ node: z.string(), bot_id: z.string(), code: z.string() });
export const encodeDisconnect = (d: Disconnect): Uint8Array => packr.pack(d);
export const decodeDisconnect = (bytes: Uint8Array): Disconnect | null => decode(DisconnectMsg, bytes);

/** Hits of a shared limit a node counted since its last message (`arena.hits.<limit>`): key and count. */
export interface Hits {
  node: string;
  hits: [string, number][];
}
const HitsMsg = z.object({ node: z.string(), hits: z.array(z.tuple([z.string(), count])) });
export const encodeHits = (h: Hits): Uint8Array => packr.pack(h);
export const decodeHits = (bytes: Uint8Array): Hits | null => decode(HitsMsg, bytes);

/**
 * One connected player bot as the node holding its socket publishes it (bucket `arena_presence`, key: the bot id):
 * what a lobby shows of it on every node (shared-presence.ts).
 */
const Presence = z.object({
  node: z.string(),
  bot: Bot,
  version: z.string().nullable(),
  ladder_id: z.string(),
  state: z.enum(["waiting", "playing", "idle"]),
});
export type PresenceEntry = z.infer<typeof Presence>;
export const encodePresence = (p: PresenceEntry): Uint8Array => packr.pack(p);
export const decodePresence = (bytes: Uint8Array): PresenceEntry | null => decode(Presence, bytes);
