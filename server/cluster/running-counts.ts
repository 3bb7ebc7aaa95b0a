// Matches running in the whole cluster, for the matchmaker's limits (issue 36, part 4). Only the holder of a ladder's
// lease pairs it, but the matches it places run on every node: a ladder's `max_concurrent_matches` and an owner's
// `max_concurrent_per_owner` must count them all, or an owner with bots on two nodes plays twice as many at once.
// Each node's heartbeat carries its running matches by ladder and by owner (LiveMatches.tally); the holder adds its
// own live figures, and the placements it made that the placed node's last beat cannot show yet (asked, or
// answered after that beat was written), so a pass a few hundred milliseconds after a placement counts it once.
// A count may be one too high for up to a beat after a match ends, never too low while the beats flow.
import type { RunningCounts } from "../ladders/registry.ts";
import type { LiveMatches } from "../play/live-matches.ts";
import type { NodeBeat } from "./codec.ts";

/** A placement this node made: in flight until answered, then counted until the node's beats show it. */
interface Placed {
  node: string;
  ladder: string;
  owners: string[];
  /** When it was answered (ms, this node's clock); null while in flight. */
  at: number | null;
}

/** A placement is forgotten after this, whatever the beats say (a lost answer, a node that stopped beating). */
const FORGET_MS = 10_000;

export class ClusterRunning implements RunningCounts {
  private readonly placed = new Set<Placed>();

  constructor(
    private readonly self: string,
    private readonly nodes: () => readonly NodeBeat[],
    private readonly local: Pick<LiveMatches, "running" | "runningForOwner">,
  ) {}

  /** A placement asked of `node`; `settle` it with the answer. */
  placing(node: string, ladder: string, owners: readonly string[]): (ok: boolean) => void {
    const p: Placed = { node, ladder, owners: [...new Set(owners)], at: null };
    this.placed.add(p);
    return (ok) => {
      // Placed here, a started match is in this node's own figures at once.
      if (!ok || node === this.self) this.placed.delete(p);
      else p.at = Date.now();
    };
  }

  running(ladderId?: string): number {
    return this.count(
      this.local.running(ladderId),
      (b) => (ladderId === undefined ? b.matches : (b.running?.ladders[ladderId] ?? 0)),
      (p) => ladderId === undefined || p.ladder === ladderId,
    );
  }

  runningForOwner(owner: string): number {
    return this.count(
      this.local.runningForOwner(owner),
      (b) => b.running?.owners[owner] ?? 0,
      (p) => p.owners.includes(owner),
    );
  }

  /** Each node's `max_concurrent_matches`, for every node beating. */
  capacity(perNode: number): number {
    return perNode * Math.max(1, this.nodes().length);
  }

  private count(here: number, inBeat: (b: NodeBeat) => number, counts: (p: Placed) => boolean): number {
    const now = Date.now();
    const beats = new Map<string, number>();
    let n = here;
    for (const b of this.nodes()) {
      if (b.node === this.self) continue;
      n += inBeat(b);
      beats.set(b.node, Date.parse(b.beat_at));
    }
    for (const p of this.placed) {
      if (p.at !== null && now - p.at > FORGET_MS) {
        this.placed.delete(p);
        continue;
      }
      // Shown by the node's beat once a beat was written after the answer (the match started before it).
      const beat = beats.get(p.node);
      if (p.at !== null && beat !== undefined && beat >= p.at) {
        this.placed.delete(p);
        continue;
      }
      if (counts(p)) n++;
    }
    return n;
  }
}
