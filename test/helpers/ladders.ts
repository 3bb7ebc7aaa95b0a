// Ladder and event definitions for test manifests (deps.manifest): an enabled, visible, open ladder without a
// window, and an event open for hours around now on a ladder, with whatever a test changes.
import type { EventDefinition } from "../../server/ladders/event-definition.ts";
import type { LadderDefinition } from "../../server/ladders/manifest.ts";

export function ladderDef(id: string, extra: Partial<LadderDefinition> = {}): LadderDefinition {
  return {
    id,
    name: `${id} ladder`,
    description: `the ${id} ladder`,
    enabled: true,
    visible: true,
    access: "open",
    house_bots: true,
    opens_at: null,
    closes_at: null,
    ...extra,
  };
}

/** An achievement no test plays enough matches to earn. */
export const neverEarned = (id: string): EventDefinition["achievements"][number] => ({
  id,
  name: `Never ${id}`,
  description: "",
  condition: { opponent: "any", matches: 100 },
});

/** An event on `ladder` open from an hour ago for six hours, five achievements none of which is earned. */
export function openEventDef(
  id: string,
  ladder: string,
  extra: Partial<EventDefinition> = {},
): EventDefinition {
  return {
    id,
    name: `The ${id}`,
    description: "An event open while the test runs",
    ladder_id: ladder,
    opens_at: new Date(Date.now() - 3_600_000).toISOString(),
    closes_at: new Date(Date.now() + 6 * 3_600_000).toISOString(),
    timezone: "UTC",
    enabled: true,
    achievements: ["n1", "n2", "n3", "n4", "n5"].map(neverEarned),
    opponents: [{ kind: "house", name: "kiter", display_name: "Kiter" }],
    metadata: null,
    submission_url: null,
    submission_instructions: "",
    flag_mode: "testing",
    ...extra,
  };
}
