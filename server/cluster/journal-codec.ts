// The encoding of the match journal and the match leases (issue 36, part 5; match-journal.ts): msgpackr with
// records, as every other message between nodes (codec.ts). The setup and the bots are passed through as the
// journaling node wrote them; the shape of each entry is checked.
import { Packr } from "msgpackr";
import { z } from "zod";
import type { SeatInput } from "../../pool/link.ts";
import type { MatchSetup } from "../../pool/protocol.ts";
import type { PairingRecord } from "../store/pairing-record.ts";
import type { BotRow } from "../store/types.ts";

export type JournalEntry =
  | {
      k: "setup";
      setup: MatchSetup;
      bots: [BotRow, BotRow];
      versions: [string | null, string | null];
      pairing: PairingRecord | null;
    }
  | { k: "start"; ready: [boolean, boolean] }
  | { k: "tick"; t: number; in: [SeatInput | null, SeatInput | null]; x: number; h: [number, number] };

/** A running match's lease (bucket `arena_matches`, key: the match id). */
export interface MatchLease {
  /** The node running it. */
  node: string;
  /** Its two bots, so a node a bot reconnects to finds the match. */
  bots: [string, string];
  /** Taken over from a node that died: its bots may come back through any node. */
  adopted: boolean;
  /** Its journal is behind (an append failed): it cannot be resumed, SPEC 3.3's crash rule applies. */
  broken: boolean;
}

const packr = new Packr({ useRecords: true, mapsAsObjects: true });

const bytes = z.custom<Uint8Array>((v) => v instanceof Uint8Array);
const Input = z.union([
  z.object({ idle: z.enum(["timeout", "disconnected"]), ms: z.number() }),
  z.object({ raw: z.unknown(), ms: z.number(), bytes: bytes.optional() }),
]);
const Entry = z.discriminatedUnion("k", [
  z.object({
    k: z.literal("setup"),
    setup: z.object({ matchId: z.string(), seed: z.number(), ladderId: z.string() }).passthrough(),
    bots: z.tuple([z.object({ id: z.string() }).passthrough(), z.object({ id: z.string() }).passthrough()]),
    versions: z.tuple([z.string().nullable(), z.string().nullable()]),
    pairing: z.unknown(),
  }),
  z.object({ k: z.literal("start"), ready: z.tuple([z.boolean(), z.boolean()]) }),
  z.object({
    k: z.literal("tick"),
    t: z.number().int().min(0),
    in: z.tuple([Input.nullable(), Input.nullable()]),
    x: z.number().int(),
    h: z.tuple([z.number(), z.number()]),
  }),
]);
const Lease = z.object({
  node: z.string(),
  bots: z.tuple([z.string(), z.string()]),
  adopted: z.boolean(),
  broken: z.boolean(),
});

export const encodeJournal = (e: JournalEntry): Uint8Array => packr.pack(e);
export function decodeJournal(b: Uint8Array): JournalEntry | null {
  try {
    const r = Entry.safeParse(packr.unpack(b));
    return r.success ? (r.data as unknown as JournalEntry) : null;
  } catch {
    return null;
  }
}
export const encodeMatchLease = (l: MatchLease): Uint8Array => packr.pack(l);
export function decodeMatchLease(b: Uint8Array): MatchLease | null {
  try {
    const r = Lease.safeParse(packr.unpack(b));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}
