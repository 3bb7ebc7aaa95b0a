// Announcements as a feature (SPEC 3.8, 4.1 `GET /api/announcements`, 4.6's announcement routes): its own store,
// its service built from the kernel's unit of work and the mail outbox, and its operations. The whole wiring of
// the feature is this value and its line in server/features.ts.
import { defineFeature } from "../kernel/feature.ts";
import { ANNOUNCEMENT_OPERATIONS } from "./routes.ts";
import { Announcements } from "./service.ts";
import { AnnouncementStore } from "./store.ts";

declare module "../kernel/feature.ts" {
  interface Services {
    announcements: Announcements;
  }
}

export const announcementsFeature = defineFeature({
  name: "announcements",
  needs: ["mail"],
  build: (kernel, { mail }) =>
    new Announcements({ store: new AnnouncementStore(kernel.db), work: (fn) => kernel.work(fn), mail }),
  operations: ANNOUNCEMENT_OPERATIONS,
});
