// The bot directory as a feature: every bot and its retired versions in memory, so a connect flood or a page
// that lists many bots costs no query (SPEC 3.4's token lookups read it too).
import { defineFeature } from "../kernel/feature.ts";
import { BotDirectory } from "./directory.ts";

export const botDirectoryFeature = defineFeature({
  name: "botDirectory",
  needs: ["store", "botStore"],
  build: (_kernel, { store, botStore }) => new BotDirectory(store, botStore),
});
