// The bus event of the results shared between nodes (issue 36, cluster mode). server/kernel/bus.ts lists none of a
// domain's events; this one is declared beside the results because every node's copies of the ladder state follow
// the committed results, whichever node committed them.
import type { MatchRecord } from "../store/types.ts";

declare module "../kernel/bus.ts" {
  interface DomainEvents {
    /**
     * A result another node of the cluster committed to the database (cluster mode only; a single server never
     * emits it). What each node keeps in memory from the results (rating books, leaderboards, bot health) takes
     * it in, exactly as it took in MatchFinished on the node that committed it. Whatever acts on a result (mail,
     * achievements, events, tournaments, scrimmages) listens to MatchFinished only, which the committing node
     * alone emits: so it acts once per result in the whole cluster.
     */
    PeerResult: { match: MatchRecord; node: string };
  }
}
