// Every bot and its retired versions, kept in memory for the read paths that list many bots at once (the
// leaderboards, user pages). It reloads only when the store reports a committed write to bots or versions,
// so a rename, a ban or a retired version shows at the next read, and a read costs no query otherwise.
import type { BotRow, Store } from "../store/types.ts";

export interface BotSnapshot {
  /** The store's write count the snapshot was read at. */
  readonly generation: number;
  readonly bots: readonly BotRow[];
  readonly byId: ReadonlyMap<string, BotRow>;
  readonly retired: ReadonlyMap<string, ReadonlySet<string>>;
}

export class BotDirectory {
  private current: BotSnapshot | null = null;
  private loading: Promise<BotSnapshot> | null = null;

  constructor(private readonly store: Store) {}

  async snapshot(): Promise<BotSnapshot> {
    const generation = this.store.botWrites.generation;
    if (this.current && this.current.generation === generation) return this.current;
    this.loading ??= (async () => {
      // Read the count first: a write that lands during the reload makes the next read reload again.
      const at = this.store.botWrites.generation;
      const [bots, retired] = await Promise.all([this.store.allBots(), this.store.retiredVersions()]);
      const snap: BotSnapshot = { generation: at, bots, byId: new Map(bots.map((b) => [b.id, b])), retired };
      this.current = snap;
      return snap;
    })().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }
}
