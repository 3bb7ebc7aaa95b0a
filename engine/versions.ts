// The running versions (SPEC section 9). The rules version and hash come from the rules table itself.
import { RULES, rulesHash } from "./rules.ts";

export const RELEASE = "0.45.0";
export const ENGINE_VERSION = "0.24.0";
export const PROTOCOL_VERSION = "0.6";
export const RULES_VERSION = RULES.version;
export const RULES_HASH = rulesHash(RULES);
/** Name of the Python package of the offline simulator; its wheel is `<package>-<release>-py3-none-any.whl`. */
export const SIMULATOR_PACKAGE = "arena_sim";

export interface Versions {
  release: string;
  engine: string;
  protocol: string;
  rules: string;
  rules_hash: string;
}

export const VERSIONS: Versions = Object.freeze({
  release: RELEASE,
  engine: ENGINE_VERSION,
  protocol: PROTOCOL_VERSION,
  rules: RULES_VERSION,
  rules_hash: RULES_HASH,
});

/** The hash of a rules table; cached for the current one, since every hello carries it. */
export function rulesHashOf(rules: unknown): string {
  return rules === RULES ? RULES_HASH : rulesHash(rules);
}
