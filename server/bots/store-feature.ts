// The bots' SQL as a service (issue 32): `botStore` (bots, tokens, versions) is built on the store's database and
// read memo with no other work, so it comes early in the feature list, and every feature that reads or writes a
// bot or a version names it in its `needs` rather than reaching through the store registry.
import { defineFeature } from "../kernel/feature.ts";
import { BotStore } from "./bot-store.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    /** Bots, their tokens and their versions (server/bots/bot-store.ts). */
    botStore: BotStore;
  }
}

export const botStoreFeature = defineFeature({
  name: "botStore",
  needs: ["store"],
  build: (_kernel, { store }) => new BotStore(store),
});
