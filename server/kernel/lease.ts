// A lease: the right of one holder at a time to do a piece of work that must not be done twice at once (today:
// pairing a ladder's queue, SPEC 1.2). A single server holds every lease, always (`ALWAYS_HELD`, today's
// behaviour); in cluster mode (server/cluster/) a lease is a NATS JetStream key-value entry taken with
// compare-and-set and kept alive by its holder, and `held` turns false as soon as the holder cannot be sure
// the entry is still its own. `held` is synchronous and cheap: it is asked on every matchmaker pass.

export interface Lease {
  /** Whether this process holds the lease now: the guarded work may run. */
  held(): boolean;
}

/** Who grants the lease of a named piece of work (`matchmaker.<ladder id>`). */
export interface LeaseGrant {
  lease(name: string): Lease;
}

/** The single-node lease: held, always (one process, nothing to share it with). */
export const ALWAYS_HELD: Lease = Object.freeze({ held: () => true });
