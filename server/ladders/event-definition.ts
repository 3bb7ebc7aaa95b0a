// Events as data (SPEC 2 Event, 3.1): the event entries of the ladder manifest (this file is the manifest's
// events section; server/events/ runs them) and the small vocabulary of achievement conditions (docs/events.md).
// A condition is a filter over the facts of one account's matches (opponent, result, end reason, map, version,
// stat ranges) plus how many qualifying matches, distinct opponents or distinct maps it takes; no event needs
// code of its own.
import { z } from "zod";

export const EVENT_ID = /^[a-z0-9][a-z0-9_-]{1,47}$/;
export const ACHIEVEMENT_ID = /^[a-z0-9][a-z0-9_-]{0,47}$/;
/** The official opponents an event may name (SPEC 1 item 6). */
export const HOUSE_NAMES = ["ts-starter", "brawler", "kiter", "champion"] as const;
export const ACHIEVEMENTS_PER_EVENT = 5;

/** Match stats a condition may bound, each a number per fighter (or of the match, for `ticks`). */
export const STAT_NAMES = [
  "ticks",
  "hp_left",
  "damage_dealt",
  "damage_taken",
  "ricochet_hits",
  "ricochet_damage",
  "dashes",
  "healed",
  "pickups",
  "wall_slams",
  "knocked_back",
  "stunned",
] as const;
export type StatName = (typeof STAT_NAMES)[number];

const Range = z
  .object({ min: z.number().finite().optional(), max: z.number().finite().optional() })
  .strict()
  .refine((r) => r.min !== undefined || r.max !== undefined, "a stat range needs min, max or both")
  .refine((r) => r.min === undefined || r.max === undefined || r.min <= r.max, "min must not exceed max");

const Name = z.string().min(1).max(64);

export const Condition = z
  .object({
    /** Whom the match was against: `official` (the event's opponents, the default), `any`, or names. */
    opponent: z.union([z.enum(["official", "any"]), z.array(Name).min(1)]).default("official"),
    result: z
      .array(z.enum(["win", "loss", "draw"]))
      .min(1)
      .optional(),
    reason: z.array(Name).min(1).optional(),
    map: z.array(Name).min(1).optional(),
    /** The bot's version label must be one of these. */
    version: z.array(z.string().min(1).max(32)).min(1).optional(),
    stats: z.partialRecord(z.enum(STAT_NAMES), Range).optional(),
    /** Qualifying matches needed (default 1). */
    matches: z.number().int().min(1).max(1000).default(1),
    /** Qualifying matches against at least this many different opponents. */
    distinct_opponents: z.number().int().min(1).max(100).optional(),
    /** Qualifying matches on at least this many different maps. */
    distinct_maps: z.number().int().min(1).max(100).optional(),
  })
  .strict();
export type Condition = z.infer<typeof Condition>;

const Instant = z.iso.datetime({ offset: true, error: "must be an ISO 8601 instant with an offset" });

export const AchievementDefinition = z
  .object({
    id: z.string().regex(ACHIEVEMENT_ID, "achievement id: 1-48 of a-z, 0-9, - and _"),
    name: z.string().min(1).max(80),
    description: z.string().max(500).default(""),
    condition: Condition,
  })
  .strict();
export type AchievementDefinition = z.infer<typeof AchievementDefinition>;

export const Opponent = z
  .object({
    kind: z.literal("house"),
    name: z.enum(HOUSE_NAMES),
    display_name: z.string().min(1).max(40),
  })
  .strict();

const Metadata = z
  .object({
    kind: z.enum(["precon", "main", "community"]),
    purpose: z.string().max(500).default(""),
    audience: z.string().max(500).default(""),
    format: z.string().max(500).default(""),
    preparation: z.string().max(1000).default(""),
  })
  .strict();

const validZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export const EventDefinition = z
  .object({
    id: z.string().regex(EVENT_ID, "event id: 2-48 of a-z, 0-9, - and _, starting with a letter or digit"),
    name: z.string().min(1).max(80),
    description: z.string().max(4000).default(""),
    ladder_id: z.string().min(1).max(64),
    /** Only for events on the default ladder; an event on an event ladder shares that ladder's window. */
    opens_at: Instant.nullable().default(null),
    closes_at: Instant.nullable().default(null),
    timezone: z
      .string()
      .refine(validZone, "timezone must be an IANA zone such as Europe/Berlin")
      .default("UTC"),
    enabled: z.boolean().default(true),
    achievements: z
      .array(AchievementDefinition)
      .length(ACHIEVEMENTS_PER_EVENT, "an event has five achievements"),
    opponents: z.array(Opponent).min(1),
    metadata: Metadata.nullable().default(null),
    submission_url: z
      .url({ protocol: /^https$/, error: "submission_url must be an HTTPS address" })
      .nullable()
      .default(null),
    submission_instructions: z.string().max(4000).default(""),
    flag_mode: z.enum(["official", "testing"]).default("official"),
  })
  .strict()
  .superRefine((e, ctx) => {
    const ids = new Set<string>();
    for (const a of e.achievements) {
      if (ids.has(a.id)) ctx.addIssue({ code: "custom", message: `achievement ${a.id} is defined twice` });
      ids.add(a.id);
      const names = a.condition.opponent;
      if (Array.isArray(names))
        for (const n of names)
          if (!e.opponents.some((o) => o.name === n))
            ctx.addIssue({
              code: "custom",
              message: `achievement ${a.id}: ${n} is not one of the event's opponents`,
            });
    }
    const seen = new Set<string>();
    for (const o of e.opponents) {
      if (seen.has(o.name)) ctx.addIssue({ code: "custom", message: `opponent ${o.name} is listed twice` });
      seen.add(o.name);
    }
    if (e.opens_at && e.closes_at && Date.parse(e.closes_at) <= Date.parse(e.opens_at))
      ctx.addIssue({ code: "custom", message: "closes_at must follow opens_at" });
  });
export type EventDefinition = z.infer<typeof EventDefinition>;

/**
 * Whether an event has a window of its own: one on a ladder that is always open (the default ladder, by the
 * manifest's rules) does; one on a timed event ladder shares that ladder's window and sets none itself.
 */
export function ownsWindow(e: Pick<EventDefinition, "opens_at" | "closes_at">): boolean {
  return e.opens_at !== null || e.closes_at !== null;
}
