// The tool endpoint's OAuth scopes (SPEC 5 rule 8; issue 31). A grant carries the scopes the client asked for
// and the owner approved, and every tool names the scope it needs (its operation's `permission`):
//   bots:register  read the account, its bots and ladders, register bots, read the agent guide;
//   bots:manage    also delete and retire bots and enroll on ladders (the owner's explicit approval).
// bots:manage extends bots:register rather than standing alone, so a grant is one of two sets; that is what the
// grant's `manage` column stores (migrations/0009_mcp.sql), and a request for bots:manage alone is refused
// rather than silently widened. A client that asks for no scope gets DEFAULT_SCOPE (what the MCP SDK asks for
// anyway: it sends the resource metadata's scopes_supported).

export const REGISTER = "bots:register";
export const MANAGE = "bots:manage";
export type Scope = typeof REGISTER | typeof MANAGE;
export const SCOPES: readonly Scope[] = [REGISTER, MANAGE];
/** What a request without `scope` is asked to approve. */
export const DEFAULT_SCOPE = `${REGISTER} ${MANAGE}`;

/** The scope a tool permission needs. */
export const scopeFor = (permission: "register" | "manage"): Scope =>
  permission === "manage" ? MANAGE : REGISTER;

/** A grant's scopes from its stored `manage` flag. */
export const grantScopes = (manage: boolean): Scope[] => (manage ? [REGISTER, MANAGE] : [REGISTER]);

/** A scope string as sent (RFC 6749 3.3: space-delimited, order free, no duplicates needed). */
const split = (s: string) => s.split(" ").filter((x) => x !== "");

/**
 * The scopes a `scope` parameter asks for, or why it is refused (OAuth's invalid_scope): an unknown value, or
 * bots:manage without bots:register. Absent or empty: the default.
 */
export function parseScope(requested: string | undefined): { scopes: Scope[] } | { problem: string } {
  if (requested === undefined || requested.trim() === "") return parseScope(DEFAULT_SCOPE);
  if (requested.length > 500) return { problem: "scope is too long" };
  const asked = [...new Set(split(requested))];
  const unknown = asked.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0)
    return {
      problem: `unknown scope ${unknown.map((s) => JSON.stringify(s)).join(", ")}; the scopes here are ${SCOPES.join(", ")}`,
    };
  if (asked.includes(MANAGE) && !asked.includes(REGISTER))
    return { problem: `${MANAGE} extends ${REGISTER}: ask for "${REGISTER} ${MANAGE}"` };
  return { scopes: SCOPES.filter((s) => asked.includes(s)) };
}

/** The space-delimited form, in the canonical order. */
export const scopeString = (scopes: readonly Scope[]) => SCOPES.filter((s) => scopes.includes(s)).join(" ");
