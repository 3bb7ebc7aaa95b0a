// The bots' API as a feature (SPEC 4.2 registration, 4.3 the bot-token routes, 3.4's deletion): its operations,
// handed the accounts, the hub and lobby (a removed bot's socket is closed), the ladders, the store, the config
// and the live limits.
import { defineFeature } from "../kernel/feature.ts";
import { BOT_OPERATIONS, type BotServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    botApi: BotServices;
  }
}

export const botsFeature = defineFeature({
  name: "botApi",
  needs: ["accounts", "hub", "insight", "ladders", "lobby", "store"],
  build: (kernel, deps) => ({ ...deps, config: kernel.config, settings: kernel.settings }),
  operations: BOT_OPERATIONS,
});
