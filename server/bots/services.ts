// The bot directory as a service: every bot and its retired versions in memory.
import type { BotDirectory } from "./directory.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    botDirectory: BotDirectory;
  }
}
