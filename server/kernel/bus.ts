// The typed in-process domain event bus. A module announces what happened (a match result committed, a
// ladder changed phase, an account was banned) and any number of listeners react, so a new consumer of a
// result plugs in here instead of being edited into the match runner. Listeners run after the emitter's
// work is done and committed; one listener's failure is logged and never reaches the emitter or the others.
import type { Logger } from "pino";
import type { Phase } from "../ladders/manifest.ts";
import type { MatchRecord } from "../store/types.ts";

export interface DomainEvents {
  /** A match result is committed to storage (voided and human games included; `rated` says which count). */
  MatchFinished: {
    match: MatchRecord;
    rated: boolean;
    /** Per fighter: the version's rating change, or null when unrated. */
    ratingChange: [number | null, number | null];
    /**
     * Per fighter: the account that owned the bot when the match was played (null for a house bot or a bot
     * of no account), so a subscriber need not read every seat's bot back from the database.
     */
    accounts: [string | null, string | null];
  };
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
  /** Live settings changed: limits read from the settings service now have new values. */
  SettingsChanged: { revision: number; by: string };
  /** An account was banned (SPEC 3.6). */
  AccountBanned: { accountId: string; handle: string | null; by: string };
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

export type EventName = keyof DomainEvents;
export type Listener<K extends EventName> = (event: DomainEvents[K]) => void | Promise<void>;

export class EventBus {
  private readonly listeners = new Map<EventName, Listener<EventName>[]>();

  constructor(private readonly log: Logger) {}

  /** Adds a listener; returns a function that removes it. */
  on<K extends EventName>(name: K, listener: Listener<K>): () => void {
    const list = this.listeners.get(name) ?? [];
    list.push(listener as Listener<EventName>);
    this.listeners.set(name, list);
    return () => {
      const now = this.listeners.get(name) ?? [];
      this.listeners.set(
        name,
        now.filter((l) => l !== (listener as Listener<EventName>)),
      );
    };
  }

  /**
   * Calls every listener of `name` in the order they were added. Never throws, and the promise never rejects:
   * it settles once every listener has, for an emitter that must not answer before the effects are done (a
   * ban's sockets closed before the admin route replies); most emitters do not wait.
   */
  emit<K extends EventName>(name: K, event: DomainEvents[K]): Promise<void> {
    const running: Promise<void>[] = [];
    for (const listener of this.listeners.get(name) ?? []) {
      try {
        const r = listener(event);
        if (r && typeof (r as Promise<void>).then === "function")
          running.push(
            (r as Promise<void>).catch((err: unknown) =>
              this.log.error({ err, event: name }, "event listener failed"),
            ),
          );
      } catch (err) {
        this.log.error({ err, event: name }, "event listener failed");
      }
    }
    return Promise.all(running).then(() => undefined);
  }
}
