// The settlement phase as a feature (issue 34, part 4): staff end a ladder's window with a settlement that
// freezes the top K's versions, plays extra rated games among them and publishes immutable final standings.
// It steers pairing through the lobby's hold (the settling ladder's queued bots wait for it, not for the
// matchmaker) and starts its games through the live matches as ranked games; the core is not edited for it.
import { defineFeature } from "../kernel/feature.ts";
import { settlementAdminPage } from "./admin-page.ts";
import { noticeHook, settlementPages } from "./pages.ts";
import { SETTLEMENT_OPERATIONS, type SettlementServices } from "./routes.ts";
import { SettlementService } from "./service.ts";
import { SettlementStore } from "./store.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    settlement: SettlementServices;
  }
}

/** How often settlements are looked at (a start due, a bot free, the end), besides each queue and result. */
const TICK_MS = 1_000;

export const settlementFeature = defineFeature({
  name: "settlement",
  needs: ["ladders", "reads", "insight", "botDirectory", "events", "lobby", "live", "lifecycle"],
  build: async (kernel, deps) => {
    const settlement = new SettlementService({
      store: new SettlementStore(kernel.db),
      ladders: deps.ladders,
      reads: deps.reads,
      insight: deps.insight,
      botDirectory: deps.botDirectory,
      events: deps.events,
      lobby: deps.lobby,
      live: deps.live,
      settings: kernel.settings,
      draining: () => deps.lifecycle.draining(),
      work: (fn) => kernel.work(fn),
      log: kernel.log.child({ feature: "settlement" }),
      publicUrl: kernel.config.publicUrl,
    });
    await settlement.load();
    deps.lobby.hold({ claims: (p) => settlement.claims(p), queued: () => settlement.clock.queued() });
    // A new version's queue on a settling ladder is refused (settlement_frozen).
    deps.ladders.admitWith((bot, ladderId, version) => settlement.admits(bot, ladderId, version));
    noticeHook(kernel.http, settlement);
    return { settlement, ladders: deps.ladders, events: deps.events };
  },
  operations: SETTLEMENT_OPERATIONS,
  listeners: (s) => ({ MatchFinished: (e) => s.settlement.clock.finished(e.match) }),
  jobs: (s) => [
    { name: "settlement", nextAt: (now) => now + TICK_MS, run: (now) => s.settlement.clock.tick(now) },
  ],
  pages: (http, s) => {
    settlementPages(http, s.settlement);
    settlementAdminPage(http, s.settlement, s.ladders, () =>
      s.events.all().map((e) => ({ id: e.def.id, name: e.def.name, ladder_id: e.def.ladder_id })),
    );
  },
});
