// Timed events' API as a feature (SPEC 3.1's events, 4.1 and 4.6's event routes, 6's achievements and flags):
// its operations, handed the events service and the store.
import { defineFeature } from "../kernel/feature.ts";
import { EVENT_OPERATIONS, type EventServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    eventApi: EventServices;
  }
}

export const eventsFeature = defineFeature({
  name: "eventApi",
  needs: ["events", "store"],
  build: (_kernel, deps) => deps,
  operations: EVENT_OPERATIONS,
});
