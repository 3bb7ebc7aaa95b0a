// Entries a dead node left in a key-value bucket (issue 36): the queue and presence buckets hold one entry per bot,
// written by the node holding its socket and deleted by that node when the bot leaves or the node stops. A node
// killed with -9 deletes nothing, and its entries were ignored (their node is not in the heartbeat directory) but
// stayed in the buckets for good: a restarted cluster read them again at every watch, and a bucket grew with every
// crash. Each node now deletes the entries of a node that has been out of the directory for GONE_MS, each with the
// revision it saw (a conditional delete), so an entry the bot's new node wrote meanwhile is never taken, and two
// nodes sweeping the same entry delete it once. A node that was only cut off from NATS for longer than GONE_MS
// writes its entries again when it sees them deleted (the buckets' watchers do), so nothing it means is lost.
import type { KV } from "@nats-io/kv";
import type { Logger } from "pino";

/** Out of the directory this long (a few missed heartbeats and a NATS restart's gap) before a node counts as gone. */
export const GONE_MS = 30_000;
/** How often a node looks for gone nodes' entries. */
const SWEEP_MS = 5_000;

/** One entry of the bucket as the watcher last saw it. */
export interface SeenEntry {
  key: string;
  node: string;
  revision: number;
}

export class DeadEntrySweep {
  /** Nodes seen with entries but not in the directory: since when. */
  private readonly missingSince = new Map<string, number>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly kv: Pick<KV, "delete">,
    private readonly liveNodes: () => ReadonlySet<string>,
    private readonly log: Logger,
    private readonly goneMs = GONE_MS,
  ) {}

  /**
   * Deletes the entries of nodes gone for goneMs; looks at most every SWEEP_MS (`seen` is only read then). Returns
   * the keys it sent deletes for.
   */
  sweep(seen: () => readonly SeenEntry[], now = Date.now()): string[] {
    if (now - this.lastSweep < SWEEP_MS) return [];
    this.lastSweep = now;
    const entries = seen();
    const live = this.liveNodes();
    const gone = new Set<string>();
    const withEntries = new Set<string>();
    for (const e of entries) {
      if (live.has(e.node)) continue;
      withEntries.add(e.node);
      const since = this.missingSince.get(e.node) ?? now;
      this.missingSince.set(e.node, since);
      if (now - since >= this.goneMs) gone.add(e.node);
    }
    // A node back in the directory, or with no entries left, starts afresh.
    for (const node of [...this.missingSince.keys()])
      if (!withEntries.has(node)) this.missingSince.delete(node);
    if (gone.size === 0) return [];
    const deleted: string[] = [];
    for (const e of entries) {
      if (!gone.has(e.node)) continue;
      deleted.push(e.key);
      // Refused when the entry changed since (another node wrote it, or a sweeper deleted it first): left alone.
      this.kv.delete(e.key, { previousSeq: e.revision }).catch(() => {});
    }
    this.log.info(
      { nodes: [...gone], entries: deleted.length },
      "deleted the entries of nodes gone from the cluster",
    );
    return deleted;
  }
}
