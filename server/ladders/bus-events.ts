// The bus events the ladders emit: phase changes (registry.ts's phase job), moved windows (schedule.ts) and
// membership (membership.ts).
import type { Phase } from "./manifest.ts";

declare module "../kernel/bus.ts" {
  interface DomainEvents {
    /** A ladder's phase changed on time (the scheduler's phase job; a restart announces nothing). */
    LadderPhaseChanged: { ladderId: string; from: Phase; to: Phase; at: string };
    /**
     * Staff moved a ladder's window (schedule.ts), committed; the emitter waits for the listeners, so the events
     * that share the window have counted their new revision before the route answers.
     */
    LadderWindowMoved: { ladderId: string; opens_at: string | null; closes_at: string | null; by: string };
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
