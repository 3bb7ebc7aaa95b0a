// Human play as a service: play tickets and the `/human` socket (SPEC 1.7).
import type { HumanPlay } from "./human-play.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    humanPlay: HumanPlay;
  }
}
