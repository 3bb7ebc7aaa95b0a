// Timed events as a service (server/events/service.ts), for the features that read or manage them.
import type { Events } from "./service.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    events: Events;
  }
}
