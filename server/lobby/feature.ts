// The lobby (who is connected and queued on which ladder) as a feature, and the house bots that are always in it
// (SPEC 1.2 rule 8: human games start at once): registered in the store on first start, then joined to the lobby
// once every feature is built. The lobby empties a ladder's queue when the ladder closes or a member is revoked.
import { HOUSE_BOTS } from "../../engine/house/index.ts";
import { defineFeature } from "../kernel/feature.ts";
import { Lobby } from "./lobby.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** The house bots of this server (none when --no-house-bots). */
    houseBots: { names: readonly string[]; join(): Promise<void> };
  }
}

export const lobbyFeature = defineFeature({
  name: "lobby",
  needs: [],
  build: () => new Lobby(),
  listeners: (lobby) => ({
    // A closed ladder starts nothing more: its queue is told so and emptied (SPEC 3.1).
    LadderPhaseChanged: (e) => {
      if (e.to !== "closed") return;
      for (const p of lobby.waiting(e.ladderId)) {
        if (p.house) continue;
        p.state = "idle";
        p.conn?.error("ladder_closed", `the ladder ${e.ladderId} has closed; no ranked match starts on it`);
      }
    },
    // Revocation closes the way to queue at once: a waiting bot of the account leaves that ladder's queue.
    MembershipChanged: (e) => {
      if (e.to !== "revoked") return;
      for (const p of lobby.waiting(e.ladderId))
        if (!p.house && p.bot.account_id === e.accountId) {
          p.state = "idle";
          p.conn?.error("enrollment_required", `your membership of the ladder ${e.ladderId} was revoked`);
        }
    },
  }),
});

export const houseBotsFeature = defineFeature({
  name: "houseBots",
  needs: ["lobby", "botStore"],
  build: (kernel, { lobby, botStore }) => {
    const strategies = kernel.config.houseBots ? Object.values(HOUSE_BOTS) : [];
    return {
      names: strategies.map((s) => s.name),
      async join(): Promise<void> {
        for (const strategy of strategies) {
          const bot =
            (await botStore.botByName(strategy.name)) ??
            (
              await botStore.createBot({
                name: strategy.name,
                owner: "house",
                house: true,
                display_name: strategy.display_name,
              })
            ).bot;
          await botStore.ensureVersion(bot.id, strategy.version);
          lobby.join(bot, null, strategy);
        }
      },
    };
  },
  start: (houseBots) => houseBots.join(),
});
