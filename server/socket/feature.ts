// The bot socket hub as a feature (SPEC 3: `/bot`): authentication by token from the bot directory, queueing
// through the ladders' rules, and the hub's own rules that other features add (`admitWith`: the accounts' ban and
// owner checks). It opens the `/bot` door; the server's drain and stop reach every bot socket through it.
import { defineFeature } from "../kernel/feature.ts";
import { BotHub } from "./hub.ts";

export const hubFeature = defineFeature({
  name: "hub",
  needs: ["store", "auditStore", "botStore", "lobby", "live", "ladders", "botDirectory", "doors"],
  build: (kernel, { store, auditStore, botStore, lobby, live, ladders, botDirectory, doors }) => {
    const { config, log, settings } = kernel;
    const hub = new BotHub({
      authFailed: (addr) => doors.addressLimits.failed(addr),
      authenticated: () => doors.upgradeBudget.give(),
      config,
      store,
      auditStore,
      botStore,
      lobby,
      log,
      limits: () => settings.limits(),
      botByToken: (token) => botDirectory.byToken(token),
      matchOf: (botId) => live.ofBot(botId),
      estimatedWaitS: (p) => ladders.require(p.ladderId).estimatedWaitS(p),
      mayQueue: async (bot, ladderId, version) => ladders.mayQueue(bot, ladderId, Date.now(), version),
      poke: () => ladders.poke(),
    });
    doors.open("/bot", (req, socket, head, addr) => hub.handleUpgrade(req, socket, head, addr));
    return hub;
  },
  drain: (hub, deadline) => hub.drain(deadline),
  stop: (hub) => hub.closeAll(),
});
