// The arithmetic of live limits for the console's settings form, without the DOM: the limits in force for a
// scope under some overrides (the same rule as the server's settings service, server/kernel/settings.ts), where
// a value comes from, and what an edit changes. A scope is "" (server-wide) or a ladder id.

export const SERVER = "";

export const copy = (overrides) => JSON.parse(JSON.stringify(overrides));

/** The override set in `scope` itself, or undefined. */
export function own(overrides, scope, limit) {
  const set = scope === SERVER ? overrides.global : overrides.ladders?.[scope];
  return set?.[limit];
}

/** Sets (a number) or removes (undefined) the override of `limit` in `scope`; an emptied ladder entry goes. */
export function setOwn(overrides, scope, limit, value) {
  if (scope === SERVER) {
    overrides.global ??= {};
    if (value === undefined) delete overrides.global[limit];
    else overrides.global[limit] = value;
    return;
  }
  overrides.ladders ??= {};
  overrides.ladders[scope] ??= {};
  const set = overrides.ladders[scope];
  if (value === undefined) delete set[limit];
  else set[limit] = value;
  if (Object.keys(set).length === 0) delete overrides.ladders[scope];
}

/**
 * The limits in force: the defaults, then the server-wide overrides, then the ladder's own; a ladder's
 * capacity never exceeds the server's.
 */
export function resolve(defaults, overrides, scope) {
  const global = { ...defaults, ...(overrides.global ?? {}) };
  if (scope === SERVER) return global;
  const merged = { ...global, ...(overrides.ladders?.[scope] ?? {}) };
  merged.maxConcurrentMatches = Math.min(merged.maxConcurrentMatches, global.maxConcurrentMatches);
  return merged;
}

/** The value `limit` would have in `scope` without an override of the scope's own. */
export function inherited(defaults, overrides, scope, limit) {
  return scope === SERVER ? defaults[limit] : resolve(defaults, overrides, SERVER)[limit];
}

/** Where the value in force comes from: "ladder" (its own override), "global" (server-wide) or "default". */
export function sourceOf(overrides, scope, limit) {
  if (scope !== SERVER && own(overrides, scope, limit) !== undefined) return "ladder";
  return overrides.global?.[limit] !== undefined ? "global" : "default";
}

/** Every override that differs between two sets: [{scope, limit, from, to}], undefined meaning "not set". */
export function differences(before, after) {
  const scopes = new Set([SERVER, ...Object.keys(before.ladders ?? {}), ...Object.keys(after.ladders ?? {})]);
  const out = [];
  for (const scope of scopes) {
    const a = (scope === SERVER ? before.global : before.ladders?.[scope]) ?? {};
    const b = (scope === SERVER ? after.global : after.ladders?.[scope]) ?? {};
    for (const limit of new Set([...Object.keys(a), ...Object.keys(b)]))
      if (a[limit] !== b[limit]) out.push({ scope, limit, from: a[limit], to: b[limit] });
  }
  return out;
}

/** Overrides in a line of words: "server-wide: maxBotsPerOwner 9; Club ladder: tick_ms 900". */
export function describe(overrides, nameOf) {
  const parts = [];
  const list = (set) =>
    Object.entries(set ?? {})
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
  if (Object.keys(overrides.global ?? {}).length) parts.push(`server-wide: ${list(overrides.global)}`);
  for (const [id, set] of Object.entries(overrides.ladders ?? {}))
    if (Object.keys(set).length) parts.push(`${nameOf(id)}: ${list(set)}`);
  return parts.length ? parts.join("; ") : "no overrides (the defaults)";
}
