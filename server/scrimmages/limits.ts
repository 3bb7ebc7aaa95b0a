// The scrimmages' own live limits (issue 34): declared by the feature (feature.ts's `settings`), changed by staff
// like every other limit (GET/PUT /api/admin/settings), server-wide only. They have no start-up flags.
import type { FeatureLimit } from "../kernel/settings.ts";

declare module "../kernel/settings.ts" {
  interface Limits {
    /** Scrimmages and batch-test games an owner may have running at once. */
    scrimmagesAtOncePerOwner: number;
    /** Scrimmages and batch-test games an owner may start (or ask for) per hour. */
    scrimmagesPerHourPerOwner: number;
  }
}

export const SCRIMMAGE_LIMITS = {
  scrimmagesAtOncePerOwner: {
    min: 0,
    max: 1000,
    unit: null,
    about: "unrated scrimmages and batch-test games running at once per owner (0 turns them off)",
    default: 2,
  },
  scrimmagesPerHourPerOwner: {
    min: 0,
    max: 100_000,
    unit: null,
    about: "unrated scrimmages and batch-test games per hour per owner (0 turns them off)",
    default: 120,
  },
} as const satisfies Record<string, FeatureLimit>;
