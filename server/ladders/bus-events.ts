// The bus events the ladders emit: phase changes (registry.ts's phase job) and membership (membership.ts).
import type { Phase } from "./manifest.ts";

declare module "../kernel/bus.ts" {
  interface DomainEvents {
    /** A ladder's phase changed on time (the scheduler's phase job; a restart announces nothing). */
    LadderPhaseChanged: { ladderId: string; from: Phase; to: Phase; at: string };
    /** A ladder membership changed (SPEC 3.7). */
    MembershipChanged: {
      ladderId: string;
      accountId: string;
      from: string | null;
      to: string;
      by: string | null;
    };
  }
}
