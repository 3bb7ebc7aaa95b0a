// The feature contract (issue 32). A feature is one folder that declares, in one value: its name, the features
// whose services it uses, how it builds its services from the kernel's and theirs, its operations (routes,
// OpenAPI entries and MCP tools), its bus listeners, its scheduled jobs and its pages. `composeFeatures` builds an ordered list of them; nothing
// else wires a feature in, so a new feature is a new folder plus one line in `server/features.ts`.
//
// Services are typed by their feature, not listed here: a feature adds its entry to `Services` by module
// augmentation (`declare module "../kernel/feature.ts" { interface Services { name: TheService } }`), so the
// kernel never imports a feature and a dependent sees exactly the type the feature built. A feature receives
// only the services it names in `needs` (and the kernel's), never the whole server.
//
// A feature may also take part in the server's life: `start` once every feature is built (house bots join the
// lobby, timers begin), `drain` when the server is asked to stop (SPEC 3.10) and `stop` at the end, in reverse
// list order, so what a feature uses is still there while it stops. The composition root only hands in what
// exists before any feature (the store, the meters, the connection cap) as `provided` services.
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Config } from "../config.ts";
import type { Db } from "../db/db.ts";
import type { EventBus, EventName, Listener } from "./bus.ts";
import { type AnyOperation, type Authenticate, mountOperations } from "./operation.ts";
import type { Fields, PartOf, ResponseParts } from "./parts.ts";
import type { ScheduledJob, Scheduler } from "./scheduler.ts";
import type { CoreLimits, FeatureLimit, Limits, Settings } from "./settings.ts";
import type { Unit } from "./unit-of-work.ts";

/** Every feature's services by feature name; each feature adds its own entry (see the header). */
// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation in each feature's folder
export interface Services {}

/**
 * What tests and tools may set instead of the defaults when they build a server (shorter waits, a manifest in
 * memory). Each feature adds the options it reads by module augmentation, like `Services`.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation in each feature's folder
export interface Overrides {}

/** What the kernel hands every feature. */
export interface Kernel {
  config: Config;
  log: Logger;
  /**
   * The HTTP server, for what must be in place before any route is declared (a plugin such as the rate limiter,
   * a hook on every answer) and for the socket upgrade; routes themselves are operations and pages.
   */
  http: FastifyInstance;
  /** The options set by whoever built the server (tests); each feature reads its own. */
  overrides: Overrides;
  /** The database, for the feature's own store (its SQL lives in its folder). */
  db: Db;
  /** One unit of work: the change, its audit entry and its outbox rows in one transaction. */
  work<T>(fn: (u: Unit) => Promise<T>): Promise<T>;
  bus: EventBus;
  /** The one reader of live limits. */
  settings: Settings;
  /** One clock for timed work; a feature's own jobs are declared in its `jobs`. */
  scheduler: Scheduler;
  /** The fields features add to other features' resources (kernel/parts.ts); a feature declares its `parts`. */
  parts: ResponseParts;
  /** Every operation the server mounts, in document order: what /openapi.json and `GET /api` are made from. */
  operations: readonly AnyOperation<unknown>[];
  /** Every operation with the services it runs with, once the features are composed (the tool endpoint's tools). */
  boundOperations(): readonly BoundOperation[];
}

/** An operation with the services it runs with: what the tool endpoint calls a tool of. */
export interface BoundOperation {
  op: AnyOperation<unknown>;
  services: unknown;
}

export type BusListeners = { [K in EventName]?: Listener<K> };

export interface FeatureDef<N extends keyof Services, D extends keyof Services> {
  name: N;
  /** The features (or provided services) this one uses; they are built before it. */
  needs: readonly D[];
  /** The feature's services; may be awaited (a key read from the data dir). */
  build(kernel: Kernel, deps: Pick<Services, D>): Services[N] | Promise<Services[N]>;
  /** Routes, each handed this feature's services (never the whole server's context). */
  operations?: readonly AnyOperation<Services[N]>[];
  /**
   * The live limits this feature adds (their keys added to `Limits` in kernel/settings.ts by declaration merging):
   * bounds, unit, meaning, default and whether a ladder may set it. Staff change them like every other limit.
   */
  settings?: { readonly [K in Exclude<keyof Limits, keyof CoreLimits>]?: FeatureLimit };
  /** What this feature does when another announces something on the bus. */
  listeners?(services: Services[N], kernel: Kernel, deps: Pick<Services, D>): BusListeners;
  /**
   * Fields this feature adds to another feature's resource (kernel/parts.ts), by resource: what the owner
   * merges into its answer, so the owner's code does not name this feature.
   */
  parts?: {
    readonly [R in keyof PartOf]?: (services: Services[N], of: PartOf[R]) => Fields | Promise<Fields>;
  };
  /** Pages and other routes that are not operations (HTML, files, OAuth), mounted after every operation. */
  pages?(http: FastifyInstance, services: Services[N]): void | Promise<void>;
  /** Timed work on the kernel's scheduler (sweeps, reminders, phase changes). */
  jobs?(services: Services[N], kernel: Kernel, deps: Pick<Services, D>): readonly ScheduledJob[];
  /** Once every feature is built and mounted, before the server listens (timers, the house bots joining). */
  start?(services: Services[N], kernel: Kernel, deps: Pick<Services, D>): void | Promise<void>;
  /**
   * The server drains (SPEC 3.10): stop taking new work and tell the connected clients the deadline; the promise
   * settles when this feature's work in flight is done (the server waits at most its drain timeout).
   */
  drain?(services: Services[N], deadline: string): void | Promise<void>;
  /** The server stops: in reverse list order, so the features this one needs are still running meanwhile. */
  stop?(services: Services[N], kernel: Kernel, deps: Pick<Services, D>): void | Promise<void>;
}

/** A feature of any name, as the feature list holds them. */
// biome-ignore lint/suspicious/noExplicitAny: the list mixes features whose names and needs differ
export type AnyFeature = FeatureDef<any, any>;

/** The limits the features declare, in list order (the settings service is built with them). */
export function featureLimits(features: readonly AnyFeature[]): Record<string, FeatureLimit> {
  const out: Record<string, FeatureLimit> = {};
  for (const f of features) Object.assign(out, f.settings ?? {});
  return out;
}

/** Keeps a feature's literal name and needs, so `build` sees exactly the services it named. */
export function defineFeature<N extends keyof Services, D extends keyof Services = never>(
  def: FeatureDef<N, D>,
): FeatureDef<N, D> {
  return def;
}

/** What composing the features gives the composition root. */
export interface Composed {
  /** Every service by name (the features' and the provided ones). */
  services: Partial<Services>;
  /** Every feature operation with its feature's services, in list order (the tool endpoint runs these). */
  operations: BoundOperation[];
  /** The services each feature was handed, by feature name (its `start` is handed them again). */
  deps: Record<string, unknown>;
}

/**
 * Builds the features in list order and mounts their operations, listeners and jobs. A feature that names one
 * not built before it (later in the list, or unknown) is refused at start, so the list is a checked graph.
 * Pages are mounted by `mountPages` once every feature's operations are, so an operation's path always wins.
 */
export async function composeFeatures(
  app: FastifyInstance,
  kernel: Kernel,
  features: readonly AnyFeature[],
  provided: Partial<Services>,
  authenticate: Authenticate,
): Promise<Composed> {
  const built: Record<string, unknown> = { ...provided };
  const operations: BoundOperation[] = [];
  const handed: Record<string, unknown> = {};
  for (const f of features) {
    const name = String(f.name);
    if (name in built) throw new Error(`feature ${name} is listed twice or shadows a provided service`);
    const deps: Record<string, unknown> = {};
    for (const need of f.needs as readonly string[]) {
      if (!(need in built))
        throw new Error(
          `feature ${name} needs ${need}, which is not built before it (order the feature list)`,
        );
      deps[need] = built[need];
    }
    const services = await f.build(kernel, deps as never);
    built[name] = services;
    handed[name] = deps;
    if (f.operations) {
      mountOperations(app, f.operations, services, authenticate);
      for (const op of f.operations) operations.push({ op, services });
    }
    for (const [event, listener] of Object.entries(f.listeners?.(services, kernel, deps as never) ?? {}))
      kernel.bus.on(event as EventName, listener as Listener<EventName>);
    for (const job of f.jobs?.(services, kernel, deps as never) ?? []) kernel.scheduler.add(job);
    for (const [resource, fill] of Object.entries(f.parts ?? {}))
      kernel.parts.add(
        resource as keyof PartOf,
        ((of: unknown) => (fill as (s: unknown, o: unknown) => Fields)(services, of)) as never,
      );
  }
  return { services: built as Partial<Services>, operations, deps: handed };
}

/** Runs each feature's `start`, in list order. */
export async function startFeatures(
  features: readonly AnyFeature[],
  kernel: Kernel,
  composed: Composed,
): Promise<void> {
  const all = composed.services as Record<string, unknown>;
  for (const f of features) {
    const name = String(f.name);
    await f.start?.(all[name] as never, kernel, composed.deps[name] as never);
  }
}

/** Runs every feature's `drain` at once; settles when each has (the caller bounds the wait). */
export async function drainFeatures(
  features: readonly AnyFeature[],
  composed: Composed,
  deadline: string,
): Promise<void> {
  const all = composed.services as Record<string, unknown>;
  await Promise.all(features.map((f) => f.drain?.(all[String(f.name)] as never, deadline)));
}

/** Runs each feature's `stop`, in reverse list order; one that fails is logged and the others still stop. */
export async function stopFeatures(
  features: readonly AnyFeature[],
  kernel: Kernel,
  composed: Composed,
): Promise<void> {
  const all = composed.services as Record<string, unknown>;
  for (const f of [...features].reverse()) {
    const name = String(f.name);
    try {
      await f.stop?.(all[name] as never, kernel, composed.deps[name] as never);
    } catch (err) {
      kernel.log.error({ err, feature: name }, "feature failed to stop");
    }
  }
}

/** Mounts each feature's pages, in list order, with the services composeFeatures built. */
export async function mountPages(
  app: FastifyInstance,
  features: readonly AnyFeature[],
  composed: Composed,
): Promise<void> {
  const all = composed.services as Record<string, unknown>;
  for (const f of features) await f.pages?.(app, all[String(f.name)] as never);
}
