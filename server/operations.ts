// Every operation the server mounts, in one list: app.ts mounts them all, /openapi.json documents those with a
// `doc`, and a later MCP tool list (issue 18) is derived from the same entries. A function, not a constant:
// the discovery operations are in the list and read the document built from it, so neither module may touch
// the other's values while the two are still loading.

import { FEATURES } from "./features.ts";
import type { AnyOperation } from "./kernel/operation.ts";
import { MCP_OPERATIONS } from "./mcp/routes.ts";

let legacy: readonly AnyOperation[] | null = null;
let all: readonly AnyOperation<unknown>[] | null = null;

/** Every operation, the features' included: what /openapi.json documents and the tool list is made from. */
export function allOperations(): readonly AnyOperation<unknown>[] {
  all ??= [...legacyOperations(), ...FEATURES.flatMap((f) => f.operations ?? [])];
  return all;
}

/**
 * The operations of the domains not moved into features yet (app.ts mounts them with the server's context),
 * in the order of the public document: discovery and documents, data, registration and bots, ladders.
 */
export function legacyOperations(): readonly AnyOperation[] {
  legacy ??= [...MCP_OPERATIONS] as readonly AnyOperation[];
  return legacy;
}
