// The one reader of live limits (SPEC 8). Start-up flags are the defaults; an admin's overrides (global, and
// per ladder for the limits that make sense per ladder) sit on top and change while the server runs. Nothing
// else reads a limit from the frozen Config: the matchmaker, the runner, the socket and GET /api ask here, so
// a change takes effect at the next read.
import { z } from "zod";
import type { Config } from "../config.ts";
import type { Queryable } from "../db/db.ts";
import { errors } from "../errors.ts";
import type { EventBus } from "./bus.ts";
import type { Unit } from "./unit-of-work.ts";

/** The stored overrides row (its SQL: server/ladders/store.ts). */
interface StoredOverrides {
  revision: number;
  overrides: unknown;
  updated: string;
  updated_by: string;
}
/** The table the settings read and write (server/ladders/store.ts keeps it). */
export interface SettingsStorage {
  settings(q?: Queryable): Promise<StoredOverrides | null>;
  writeSettings(q: Queryable, expected: number, overrides: unknown, by: string): Promise<number | null>;
}

/** Where named presets of the overrides are kept (the same table's keeper). */
export interface PresetStorage extends SettingsStorage {
  savePreset(q: Queryable, name: string, overrides: Overrides, by: string): Promise<unknown>;
}

/** Where the write and its audit entry are one unit of work (the store). */
export interface SettingsWork {
  work<T>(fn: (u: Unit) => Promise<T>): Promise<T>;
}

/** The core's limits by their SPEC 8 / operational_policy names (start-up flags are their defaults). */
export interface CoreLimits {
  startup_ms: number;
  tick_ms: number;
  match_budget_ms: number;
  reconnect_grace_ms: number;
  matchIntervalMs: number;
  maxConcurrentMatches: number;
  maxConcurrentPerOwner: number;
  matchesPerHourPerBot: number;
  matchesPerDayPerOwner: number;
  maxBotsPerOwner: number;
  newVersionsPerDay: number;
  /** Time between two email submissions of the outbox sender (SPEC 8 item 5: at most one per second). */
  emailIntervalMs: number;
}

/**
 * Every limit: the core's, and the ones features declare. A feature adds its keys here by module augmentation
 * (`declare module "../kernel/settings.ts" { interface Limits { ... } }`) and their bounds and defaults as its
 * `settings` (server/kernel/feature.ts), so the settings service, its checks and the console's form know them.
 */
export interface Limits extends CoreLimits {}

/** One limit's bounds (the same as its flag's, if it has one), unit and meaning; `ladder`: a ladder may set it. */
export interface LimitSpec {
  min: number;
  max: number;
  unit: "ms" | null;
  about: string;
  ladder: boolean;
}

/** A limit a feature declares: its spec and its default (features' limits have no start-up flag). */
export type FeatureLimit = Omit<LimitSpec, "ladder"> & { default: number; ladder?: boolean };

/** Each core limit's bounds (the same as its flag's), unit and meaning: the schemas, the console's form and docs. */
const CORE_LIMIT_INFO = {
  startup_ms: { min: 10, max: 600_000, unit: "ms", about: "time a bot has to send ready" },
  tick_ms: { min: 10, max: 600_000, unit: "ms", about: "deadline for each turn" },
  match_budget_ms: { min: 10, max: 86_400_000, unit: "ms", about: "reply time a bot may use in one match" },
  reconnect_grace_ms: {
    min: 0,
    max: 600_000,
    unit: "ms",
    about: "time to come back after a lost connection",
  },
  matchIntervalMs: {
    min: 0,
    max: 3_600_000,
    unit: "ms",
    about: "minimum time between one bot's match starts",
  },
  maxConcurrentMatches: {
    min: 1,
    max: 100_000,
    unit: null,
    about: "matches at once (a ladder's share of the server's)",
  },
  maxConcurrentPerOwner: { min: 1, max: 100_000, unit: null, about: "matches at once per owner" },
  matchesPerHourPerBot: {
    min: 1,
    max: 10_000_000,
    unit: null,
    about: "matches per hour per bot (house bots exempt)",
  },
  matchesPerDayPerOwner: { min: 1, max: 100_000_000, unit: null, about: "matches per day per owner" },
  maxBotsPerOwner: { min: 1, max: 100_000, unit: null, about: "bots per owner (retired ones do not count)" },
  newVersionsPerDay: {
    min: 1,
    max: 1_000_000,
    unit: null,
    about: "new version labels per bot per day (house bots exempt)",
  },
  emailIntervalMs: {
    min: 1000,
    max: 3_600_000,
    unit: "ms",
    about:
      "time from the end of one email the outbox sends to the start of the next (at most one per second)",
  },
} as const satisfies Record<keyof CoreLimits, Omit<LimitSpec, "ladder">>;

/**
 * Core limits that a ladder may set for itself. Bots, versions and owners are shared by every ladder, so their
 * limits are global only; a ladder's maxConcurrentMatches is its share of the server's capacity.
 */
const CORE_LADDER_LIMITS = [
  "startup_ms",
  "tick_ms",
  "match_budget_ms",
  "reconnect_grace_ms",
  "matchIntervalMs",
  "maxConcurrentMatches",
  "maxConcurrentPerOwner",
  "matchesPerHourPerBot",
  "matchesPerDayPerOwner",
] as const satisfies readonly (keyof CoreLimits)[];

/** The overrides staff set live: server-wide, per ladder (the limits a ladder may set), and the tool endpoint. */
export interface Overrides {
  global: Partial<Limits>;
  ladders: Record<string, Partial<Limits>>;
  /** false turns the tool endpoint (/mcp) off at once; absent or true leaves it as the start-up flag says. */
  mcp?: boolean;
}

/** Every limit's spec, the core's first and then each feature's in the feature list's order. */
export function limitSpecs(
  features: Readonly<Record<string, FeatureLimit>> = {},
): Record<keyof Limits, LimitSpec> {
  const specs: Record<string, LimitSpec> = {};
  for (const [k, i] of Object.entries(CORE_LIMIT_INFO))
    specs[k] = { ...i, ladder: (CORE_LADDER_LIMITS as readonly string[]).includes(k) };
  for (const [k, f] of Object.entries(features)) {
    if (specs[k]) throw new Error(`the limit ${k} is declared twice`);
    specs[k] = { min: f.min, max: f.max, unit: f.unit, about: f.about, ladder: f.ladder ?? false };
  }
  return specs as Record<keyof Limits, LimitSpec>;
}

/** The overrides' schema for these limits: each within its bounds, a ladder's only the ones a ladder may set. */
function overridesSchema(specs: Record<string, LimitSpec>) {
  const number = (i: LimitSpec) => z.number().int().min(i.min).max(i.max);
  const entries = Object.entries(specs);
  const global = z
    .object(Object.fromEntries(entries.map(([k, i]) => [k, number(i)])))
    .partial()
    .strict();
  const ladder = z
    .object(Object.fromEntries(entries.filter(([, i]) => i.ladder).map(([k, i]) => [k, number(i)])))
    .partial()
    .strict();
  return z
    .object({
      global: global.default({}),
      ladders: z.record(z.string(), ladder).default({}),
      mcp: z.boolean({ error: "mcp must be true or false" }).optional(),
    })
    .strict();
}

export function defaultLimits(config: Config): CoreLimits {
  return {
    startup_ms: config.startupMs,
    tick_ms: config.tickMs,
    match_budget_ms: config.matchBudgetMs,
    reconnect_grace_ms: config.reconnectGraceMs,
    matchIntervalMs: config.matchIntervalMs,
    maxConcurrentMatches: config.maxConcurrent,
    maxConcurrentPerOwner: config.ownerConcurrency,
    matchesPerHourPerBot: config.hourlyQuota,
    matchesPerDayPerOwner: config.dailyOwnerQuota,
    maxBotsPerOwner: config.maxBots,
    newVersionsPerDay: config.newVersionsPerDay,
    emailIntervalMs: 1000,
  };
}

/** Effective limits: defaults, then global overrides, then the ladder's own (never above the server's cap). */
export function resolveLimits(defaults: Limits, overrides: Overrides, ladderId: string | null): Limits {
  const global = { ...defaults, ...overrides.global };
  if (ladderId === null) return global;
  const own = overrides.ladders[ladderId] ?? {};
  const merged = { ...global, ...own };
  merged.maxConcurrentMatches = Math.min(merged.maxConcurrentMatches, global.maxConcurrentMatches);
  return merged;
}

export interface SettingsState {
  revision: number;
  overrides: Overrides;
  updated: string | null;
  updated_by: string | null;
}

export interface LimitChange {
  /** null: server-wide. */
  ladder: string | null;
  limit: keyof Limits;
  from: number;
  to: number;
}

export class Settings {
  private state: SettingsState = {
    revision: 0,
    overrides: { global: {}, ladders: {} },
    updated: null,
    updated_by: null,
  };
  private cache = new Map<string | null, Limits>();
  /** Every limit's bounds, unit, meaning and whether a ladder may set it: the core's, then the features'. */
  readonly specs: Record<keyof Limits, LimitSpec>;
  /** The limits a ladder may set for itself. */
  readonly ladderLimits: (keyof Limits)[];
  readonly defaults: Limits;
  private readonly schema: ReturnType<typeof overridesSchema>;

  /** `core`: the core's defaults (start-up flags); `features`: the limits the features declare. */
  constructor(core: CoreLimits, features: Readonly<Record<string, FeatureLimit>> = {}) {
    this.specs = limitSpecs(features);
    this.ladderLimits = (Object.keys(this.specs) as (keyof Limits)[]).filter((k) => this.specs[k].ladder);
    this.defaults = {
      ...core,
      ...Object.fromEntries(Object.entries(features).map(([k, f]) => [k, f.default])),
    } as Limits;
    this.schema = overridesSchema(this.specs);
  }

  /** The limits in force, server-wide (null) or on one ladder. */
  limits(ladderId: string | null = null): Limits {
    let l = this.cache.get(ladderId);
    if (!l) {
      l = resolveLimits(this.defaults, this.state.overrides, ladderId);
      this.cache.set(ladderId, l);
    }
    return l;
  }

  /** Whether the live settings leave the tool endpoint on (the start-up flag --no-mcp turns it off for good). */
  mcpAllowed(): boolean {
    return this.state.overrides.mcp !== false;
  }

  get current(): SettingsState {
    return this.state;
  }

  /** Installs a state read from (or just committed to) storage. */
  apply(state: SettingsState): void {
    this.state = state;
    this.cache = new Map();
  }

  /** Reads the stored overrides at start-up (they survive restarts); a ladder no longer defined is dropped. */
  async load(table: SettingsStorage, ladderIds: readonly string[]): Promise<void> {
    const stored = await table.settings();
    if (!stored) return;
    const parsed = this.schema.safeParse(stored.overrides);
    const overrides: Overrides = parsed.success ? (parsed.data as Overrides) : { global: {}, ladders: {} };
    for (const id of Object.keys(overrides.ladders))
      if (!ladderIds.includes(id)) delete overrides.ladders[id];
    this.apply({
      revision: stored.revision,
      overrides,
      updated: stored.updated,
      updated_by: stored.updated_by,
    });
  }

  /** Checks overrides against the schema and the known ladders; a bad one is a 400 naming the problem. */
  validate(body: unknown, ladderIds: readonly string[]): Overrides {
    // No default for a missing body: null (or nothing) once stood for {} and so wiped every live setting;
    // clearing them all is a deliberate {}.
    if (body === null || body === undefined) {
      const message = "an object is required ({} clears every override)";
      throw errors.invalidSettings(`overrides: ${message}`, [{ path: "", message }]);
    }
    const parsed = this.schema.safeParse(body);
    if (!parsed.success) {
      // Each problem with its path ("ladders.club.tick_ms"), so a form can show it next to its field.
      const issues = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
      throw errors.invalidSettings(
        `overrides: ${issues.map((i) => `${i.path || "(root)"}: ${i.message}`).join("; ")}`,
        issues,
      );
    }
    for (const id of Object.keys(parsed.data.ladders))
      if (!ladderIds.includes(id)) throw errors.unknownLadder(id);
    return parsed.data as Overrides;
  }

  /** What would change, server-wide and on each named ladder, if `overrides` replaced the current ones. */
  preview(overrides: Overrides, ladderIds: readonly (string | null)[]): LimitChange[] {
    const changes: LimitChange[] = [];
    for (const ladder of ladderIds) {
      const before = this.limits(ladder);
      const after = resolveLimits(this.defaults, overrides, ladder);
      for (const limit of Object.keys(before) as (keyof Limits)[])
        if (before[limit] !== after[limit])
          changes.push({ ladder, limit, from: before[limit], to: after[limit] });
    }
    return changes;
  }

  /**
   * Replaces the overrides if `revision` is still current: one unit of work with its audit entry, then the
   * new limits are in force at once and SettingsChanged is announced. A stale revision changes nothing (409).
   */
  async update(
    store: SettingsWork,
    table: SettingsStorage,
    bus: EventBus,
    revision: number,
    overrides: Overrides,
    by: string,
    detail: Record<string, unknown> = {},
  ): Promise<SettingsState> {
    const changes = this.preview(overrides, [
      null,
      ...Object.keys({ ...overrides.ladders, ...this.state.overrides.ladders }),
    ]);
    const next = await store.work(async (u) => {
      const written = await table.writeSettings(u.q, revision, overrides, by);
      if (written === null) return null;
      await u.audit("settings", "settings", { revision: written, by, overrides, changes, ...detail });
      return written;
    });
    if (next === null) {
      const stored = await table.settings();
      throw errors.staleRevision(stored?.revision ?? 0);
    }
    this.apply({ revision: next, overrides, updated: new Date().toISOString(), updated_by: by });
    bus.emit("SettingsChanged", { revision: next, by });
    return this.state;
  }

  /**
   * Saves the overrides in force under a name, if `revision` is still current (else 409 stale_revision, nothing
   * saved): one unit of work with its audit entry. Answers the overrides saved.
   */
  async savePreset(
    store: SettingsWork,
    table: PresetStorage,
    revision: number,
    name: string,
    by: string,
  ): Promise<Overrides> {
    const { overrides } = this.state;
    await store.work(async (u) => {
      const stored = await table.settings(u.q);
      if ((stored?.revision ?? 0) !== revision) throw errors.staleRevision(stored?.revision ?? 0);
      await table.savePreset(u.q, name, overrides, by);
      await u.audit("settings_preset", name, { revision, by, overrides });
    });
    return overrides;
  }
}
