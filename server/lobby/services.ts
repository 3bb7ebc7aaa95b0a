// The lobby as a service: who is connected and queued on which ladder.
import type { Lobby } from "./lobby.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    lobby: Lobby;
  }
}
