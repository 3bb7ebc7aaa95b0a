// Timed events' API as a feature (SPEC 3.1's events, 4.1 and 4.6's event routes, 6's achievements and flags):
// its operations and pages, handed the events service, the reads and the store.
import { defineFeature } from "../kernel/feature.ts";
import { imageBodies } from "./image.ts";
import { eventPageRoutes } from "./pages.ts";
import { EVENT_OPERATIONS, type EventServices } from "./routes.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    eventApi: EventServices & Pick<Services, "reads">;
  }
}

export const eventsFeature = defineFeature({
  name: "eventApi",
  needs: ["events", "reads", "store", "accountStore"],
  build: (kernel, deps) => {
    // An event's image is uploaded as raw bytes (PUT /api/admin/events/<id>/image).
    imageBodies(kernel.http);
    return deps;
  },
  operations: EVENT_OPERATIONS,
  pages: eventPageRoutes,
});
