// The ladder manifest: which ladders this server runs, with their access rule and optional window. A
// versioned JSON file in the repo (server/ladders/ladders.json) that an operator may replace with --ladders.
// This is the one place that names the default ladder: a ladder is a value from here, never a literal.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { DEFAULT_LADDER } from "../kernel/names.ts";
import { repoPath } from "../root.ts";
import { EventDefinition } from "./event-definition.ts";

export const LADDER_ID = /^[a-z0-9][a-z0-9_-]{1,31}$/;
export const ACCESS = ["open", "approval", "invitation"] as const;
export type Access = (typeof ACCESS)[number];

const Instant = z.iso.datetime({ offset: true, error: "must be an ISO 8601 instant with an offset" });

export const LadderDefinition = z
  .object({
    id: z.string().regex(LADDER_ID, "ladder id: 2-32 of a-z, 0-9, - and _, starting with a letter or digit"),
    name: z.string().min(1).max(80),
    description: z.string().max(2000).default(""),
    enabled: z.boolean().default(true),
    visible: z.boolean().default(true),
    access: z.enum(ACCESS).default("open"),
    /** Whether the house bots play and show on this ladder (a tournament of players only sets false). */
    house_bots: z.boolean().default(true),
    opens_at: Instant.nullable().default(null),
    closes_at: Instant.nullable().default(null),
  })
  .strict()
  .refine((l) => !l.opens_at || !l.closes_at || Date.parse(l.closes_at) > Date.parse(l.opens_at), {
    message: "closes_at must follow opens_at",
  });
export type LadderDefinition = z.infer<typeof LadderDefinition>;

export const Manifest = z
  .object({
    $comment: z.string().optional(),
    version: z.literal(1),
    ladders: z.array(LadderDefinition).min(1),
    /** Timed events with achievements (SPEC 2 Event), each on one of the ladders above. */
    events: z.array(EventDefinition).optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    const ids = new Set<string>();
    for (const l of m.ladders) {
      if (ids.has(l.id)) ctx.addIssue({ code: "custom", message: `ladder ${l.id} is defined twice` });
      ids.add(l.id);
    }
    const def = m.ladders.find((l) => l.id === DEFAULT_LADDER);
    if (!def) ctx.addIssue({ code: "custom", message: `the ${DEFAULT_LADDER} ladder must be defined` });
    else if (def.access !== "open" || !def.enabled || def.opens_at || def.closes_at)
      ctx.addIssue({
        code: "custom",
        message: `the ${DEFAULT_LADDER} ladder must be enabled, open to everyone and have no window`,
      });
    // An event lives on its own event ladder (and shares its window) or on the default ladder (its own window).
    const eventIds = new Set<string>();
    for (const e of m.events ?? []) {
      if (eventIds.has(e.id)) ctx.addIssue({ code: "custom", message: `event ${e.id} is defined twice` });
      eventIds.add(e.id);
      const ladder = m.ladders.find((l) => l.id === e.ladder_id);
      if (!ladder)
        ctx.addIssue({ code: "custom", message: `event ${e.id}: no ladder ${JSON.stringify(e.ladder_id)}` });
      else if (ladder.id === DEFAULT_LADDER) {
        if (!e.opens_at || !e.closes_at)
          ctx.addIssue({
            code: "custom",
            message: `event ${e.id}: an event on the ${DEFAULT_LADDER} ladder needs its own opens_at and closes_at`,
          });
      } else if (e.opens_at || e.closes_at)
        ctx.addIssue({
          code: "custom",
          message: `event ${e.id}: an event on the event ladder ${ladder.id} shares that ladder's window; set opens_at and closes_at on the ladder`,
        });
      else if (!ladder.opens_at || !ladder.closes_at)
        ctx.addIssue({
          code: "custom",
          message: `event ${e.id}: its ladder ${ladder.id} needs opens_at and closes_at (an event is timed)`,
        });
    }
  });
export type Manifest = z.infer<typeof Manifest>;

export const DEFAULT_MANIFEST_FILE = pathToFileURL(repoPath("server", "ladders", "ladders.json"));

export class ManifestError extends Error {}

/** Parses a manifest document; a bad one throws ManifestError naming each problem. */
export function parseManifest(doc: unknown, source = "ladder manifest"): Manifest {
  const parsed = Manifest.safeParse(doc);
  if (!parsed.success)
    throw new ManifestError(
      `${source}: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
    );
  return parsed.data;
}

export function loadManifest(file: string | URL = DEFAULT_MANIFEST_FILE): Manifest {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ManifestError(`cannot read the ladder manifest ${String(file)}: ${(err as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ManifestError(`the ladder manifest ${String(file)} is not JSON: ${(err as Error).message}`);
  }
  return parseManifest(doc, String(file));
}

export type Phase = "upcoming" | "open" | "closed";

/** A ladder's phase at a time, from its window (SPEC 3.1). */
export function phaseAt(def: Pick<LadderDefinition, "opens_at" | "closes_at">, now: number): Phase {
  if (def.closes_at && now >= Date.parse(def.closes_at)) return "closed";
  if (def.opens_at && now < Date.parse(def.opens_at)) return "upcoming";
  return "open";
}

/** The next instant after `now` at which the phase changes, or null when it never will again. */
export function nextPhaseChange(
  def: Pick<LadderDefinition, "opens_at" | "closes_at">,
  now: number,
): number | null {
  const times = [def.opens_at, def.closes_at]
    .filter((t): t is string => t !== null)
    .map(Date.parse)
    .filter((t) => t > now);
  return times.length > 0 ? Math.min(...times) : null;
}
