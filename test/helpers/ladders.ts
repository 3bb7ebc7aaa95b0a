// Ladder definitions for test manifests (deps.manifest): an enabled, visible, open ladder without a window,
// with whatever a test changes.
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
