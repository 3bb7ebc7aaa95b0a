// Every operation the server mounts, in one list made from the feature list (server/features.ts): /openapi.json
// documents those with a `doc`, and the MCP tool list is made from those with `tools`. A function, not a
// constant: it is read once the feature modules have loaded.
import { FEATURES } from "./features.ts";
import type { AnyOperation } from "./kernel/operation.ts";

let all: readonly AnyOperation<unknown>[] | null = null;

/** Every operation, in the feature list's order (the document's and the tool list's). */
export function allOperations(): readonly AnyOperation<unknown>[] {
  all ??= FEATURES.flatMap((f) => f.operations ?? []);
  return all;
}
