// The typed in-process domain event bus. A module announces what happened (a match result committed, a
// ladder changed phase, an account was banned) and any number of listeners react, so a new consumer of a
// result plugs in here instead of being edited into the match runner. Listeners run after the emitter's
// work is done and committed; one listener's failure is logged and never reaches the emitter or the others.
import type { Logger } from "pino";

/**
 * Every bus event by name, with its payload. The kernel lists none of a domain's: each emitter declares its own
 * events beside its code by module augmentation (`declare module "../kernel/bus.ts" { interface DomainEvents {
 * ... } }`, in the emitter's `bus-events.ts`), so a new event is added where it is emitted and the kernel never
 * imports a domain. The kernel's own event, SettingsChanged, is declared here.
 */
export interface DomainEvents {
  /** Live settings changed: limits read from the settings service now have new values. */
  SettingsChanged: { revision: number; by: string };
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
