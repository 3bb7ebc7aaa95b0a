// The bots' API as a feature (SPEC 4.2 registration, 4.3 the bot-token routes, 3.4's deletion): its operations,
// handed the accounts (who registers), the bot lifecycle (every change to a bot), the lobby, the ladders, the
// store, the config and the live limits.
import { defineFeature } from "../kernel/feature.ts";
import { BOT_OPERATIONS, type BotServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    botApi: BotServices;
  }
}

export const botsFeature = defineFeature({
  name: "botApi",
  needs: [
    "accounts",
    "auditStore",
    "botLifecycle",
    "botStore",
    "insight",
    "ladders",
    "lobby",
    "ratingStore",
    "store",
  ],
  build: (kernel, deps) => ({ ...deps, config: kernel.config, settings: kernel.settings }),
  operations: BOT_OPERATIONS,
});
