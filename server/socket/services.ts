// The bot socket hub as a service (moderation closes sockets through it).
import type { BotHub } from "./hub.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    hub: BotHub;
  }
}
