// The bus events timed events emit (service.ts): their phases and the achievements they award.
import type { Phase } from "../ladders/manifest.ts";

declare module "../kernel/bus.ts" {
  interface DomainEvents {
    /** An event's phase changed on time (the events' phase job; SPEC 3.1). */
    EventPhaseChanged: { eventId: string; ladderId: string; from: Phase; to: Phase; at: string };
    /**
     * An achievement was awarded and the award is committed (SPEC 6.3's achievement email listens here). Carries
     * no flag: the flag is only ever in a reveal's answer.
     */
    AchievementEarned: {
      eventId: string;
      eventName: string;
      achievementId: string;
      achievementName: string;
      accountId: string;
      earnedAt: string;
      /** Addresses of the matches that earned it. */
      evidence: string[];
    };
  }
}
