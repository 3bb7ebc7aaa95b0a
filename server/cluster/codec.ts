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
