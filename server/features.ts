// The features of the server, in build order (server/kernel/feature.ts): a feature comes after every feature
// it needs. Adding a feature is one line here; the domains not moved into features yet are handed to them by
// server/app.ts as provided services (mail).

import { adminFeature } from "./admin/feature.ts";
import { announcementsFeature } from "./announcements/feature.ts";
import { accountFeature } from "./auth/feature.ts";
import type { AnyFeature } from "./kernel/feature.ts";
import { opsFeature } from "./ops/feature.ts";

export const FEATURES: readonly AnyFeature[] = [
  accountFeature,
  announcementsFeature,
  adminFeature,
  opsFeature,
];
