// Every bot, its token hash and its retired versions, kept in memory for the read paths that list many bots at
// once (the leaderboards, user pages) and for the bot socket's token check, which must not cost a query: a
// flood of connects with made-up tokens would otherwise queue thousands of lookups on the database (on the
// embedded one, on the socket thread itself). It reloads only when the store reports a committed write to
// bots or versions, so a rename, a ban, a new token or a retired version shows at the next read.
import { hashToken } from "../db/rows.ts";
import type { BotSnapshot } from "../store/bot-row.ts";
import type { BotRow, Store } from "../store/types.ts";
import type { BotStore } from "./bot-store.ts";

export class BotDirectory {
  private current: BotSnapshot | null = null;
  private loading: Promise<BotSnapshot> | null = null;

  constructor(
    private readonly store: Pick<Store, "botWrites">,
    private readonly bots: Pick<BotStore, "allBots" | "retiredVersions" | "botTokenHashes">,
  ) {}

  async snapshot(): Promise<BotSnapshot> {
    // A load already under way may have begun before the latest write (a registration whose token is about
    // to be checked): wait for it, then load again unless it saw that write.
    const wanted = this.store.botWrites.generation;
    for (;;) {
      if (this.current && this.current.generation >= wanted) return this.current;
      this.loading ??= this.load().finally(() => {
        this.loading = null;
      });
      await this.loading;
    }
  }

  private async load(): Promise<BotSnapshot> {
    // Read the count first: a write that lands during the reload makes the next read reload again.
    const at = this.store.botWrites.generation;
    const [bots, retired, hashes] = await Promise.all([
      this.bots.allBots(),
      this.bots.retiredVersions(),
      this.bots.botTokenHashes(),
    ]);
    const byId = new Map(bots.map((b) => [b.id, b]));
    const byTokenHash = new Map<string, BotRow>();
    for (const [hash, id] of hashes) {
      const bot = byId.get(id);
      if (bot) byTokenHash.set(hash, bot);
    }
    const snap: BotSnapshot = { generation: at, bots, byId, byTokenHash, retired };
    this.current = snap;
    return snap;
  }

  /** The bot a token belongs to, or null; a query only when bots changed since the last read. */
  async byToken(token: string): Promise<BotRow | null> {
    const hash = hashToken(token);
    const snap = await this.snapshot();
    return snap.byTokenHash.get(hash) ?? null;
  }
}
