// A bot's life as a feature: registration, renames, tokens, avatars, claims, deletion and retirement, each one
// unit of work with its audit entry (server/bots/lifecycle.ts), used by the bots' API, the account API and their
// tools. The accounts service is its live control (closing a socket, refreshing the lobby's copy of a bot).
import { defineFeature } from "../kernel/feature.ts";
import { BotLifecycle } from "./lifecycle.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    botLifecycle: BotLifecycle;
  }
}

export const botLifecycleFeature = defineFeature({
  name: "botLifecycle",
  needs: ["accounts", "accountStore", "botStore", "lobby", "store"],
  build: (kernel, { accounts, accountStore, botStore, lobby, store }) =>
    new BotLifecycle({ store, accountStore, botStore, lobby, config: kernel.config, live: accounts }),
});
