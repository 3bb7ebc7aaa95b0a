// Evaluating an event's achievement conditions over the facts kept of an account's matches (the conditions
// themselves are the manifest's: server/ladders/event-definition.ts).
import type { Condition, StatName } from "../ladders/event-definition.ts";

/** What is kept of one account's match for an event: enough to evaluate every condition again later. */
export interface MatchFacts {
  match_id: string;
  ended: string;
  bot_id: string;
  bot_name: string;
  version: string;
  opponent: string;
  opponent_house: boolean;
  map: string;
  result: "win" | "loss" | "draw";
  reason: string;
  stats: Partial<Record<StatName, number>>;
}

export interface Evaluation {
  met: boolean;
  /** Toward the condition: what counts now and what it takes. */
  progress: { current: number; target: number };
  /** The matches that meet it (the ones that completed it when met), oldest first. */
  evidence: string[];
  /** When the last match of the evidence ended (the earned time), or null. */
  completedAt: string | null;
}

export function qualifies(c: Condition, f: MatchFacts, official: readonly string[]): boolean {
  if (c.opponent === "official") {
    if (!f.opponent_house || !official.includes(f.opponent)) return false;
  } else if (c.opponent !== "any" && !c.opponent.includes(f.opponent)) return false;
  if (c.result && !c.result.includes(f.result)) return false;
  if (c.reason && !c.reason.includes(f.reason)) return false;
  if (c.map && !c.map.includes(f.map)) return false;
  if (c.version && !c.version.includes(f.version)) return false;
  for (const [name, range] of Object.entries(c.stats ?? {}) as [StatName, { min?: number; max?: number }][]) {
    const v = f.stats[name];
    if (v === undefined) return false;
    if (range.min !== undefined && v < range.min) return false;
    if (range.max !== undefined && v > range.max) return false;
  }
  return true;
}

/** Evaluates a condition over an account's facts (any order; taken oldest first). */
export function evaluate(
  c: Condition,
  facts: readonly MatchFacts[],
  official: readonly string[],
): Evaluation {
  const sorted = [...facts].sort(
    (a, b) => a.ended.localeCompare(b.ended) || a.match_id.localeCompare(b.match_id),
  );
  const q = sorted.filter((f) => qualifies(c, f, official));
  // Walk the qualifying matches oldest first until every count is reached.
  const opponents = new Set<string>();
  const maps = new Set<string>();
  const used: MatchFacts[] = [];
  const done = () =>
    used.length >= c.matches &&
    opponents.size >= (c.distinct_opponents ?? 0) &&
    maps.size >= (c.distinct_maps ?? 0);
  for (const f of q) {
    if (done()) break;
    const helps =
      used.length < c.matches ||
      (c.distinct_opponents !== undefined &&
        !opponents.has(f.opponent) &&
        opponents.size < c.distinct_opponents) ||
      (c.distinct_maps !== undefined && !maps.has(f.map) && maps.size < c.distinct_maps);
    if (!helps) continue;
    used.push(f);
    opponents.add(f.opponent);
    maps.add(f.map);
  }
  // Progress is the furthest-behind of the counts the condition asks for, on one fixed scale: the largest of
  // those counts. Reading the furthest-behind count itself changed the target as the counts moved ("0 of 1",
  // then "1 of 3" for one match toward three opponents); the scale keeps the target and never goes back.
  const parts: [number, number][] = [[Math.min(q.length, c.matches), c.matches]];
  if (c.distinct_opponents !== undefined)
    parts.push([
      Math.min(new Set(q.map((f) => f.opponent)).size, c.distinct_opponents),
      c.distinct_opponents,
    ]);
  if (c.distinct_maps !== undefined)
    parts.push([Math.min(new Set(q.map((f) => f.map)).size, c.distinct_maps), c.distinct_maps]);
  const target = Math.max(...parts.map((p) => p[1]));
  const behind = Math.min(...parts.map(([have, need]) => have / need));
  const met = done();
  const current = met ? target : Math.min(Math.floor(behind * target + 1e-9), target - 1);
  return {
    met,
    progress: { current, target },
    evidence: (met ? used : q).map((f) => f.match_id),
    completedAt: met && used.length > 0 ? used[used.length - 1]!.ended : null,
  };
}

/** A one-line reading of a condition for pages and docs ("win against Kiter, 3 matches"). */
export function describeCondition(c: Condition, opponentName: (n: string) => string): string {
  const bits: string[] = [];
  if (c.result) bits.push(c.result.join(" or "));
  else bits.push("finish");
  bits.push(
    c.opponent === "official"
      ? "against an official opponent"
      : c.opponent === "any"
        ? "against anyone"
        : `against ${c.opponent.map(opponentName).join(" or ")}`,
  );
  if (c.map) bits.push(`on ${c.map.join(" or ")}`);
  if (c.reason) bits.push(`ending by ${c.reason.join(" or ")}`);
  if (c.version) bits.push(`with version ${c.version.join(" or ")}`);
  for (const [k, r] of Object.entries(c.stats ?? {}) as [string, { min?: number; max?: number }][]) {
    const name = k.replace(/_/g, " ");
    if (r.min !== undefined && r.max !== undefined) bits.push(`${name} ${r.min}-${r.max}`);
    else if (r.min !== undefined) bits.push(`${name} at least ${r.min}`);
    else bits.push(`${name} at most ${r.max}`);
  }
  let s = `${bits[0]} ${bits.slice(1).join(", ")}`;
  if (c.matches > 1) s += `; ${c.matches} matches`;
  if (c.distinct_opponents) s += `; ${c.distinct_opponents} different opponents`;
  if (c.distinct_maps) s += `; ${c.distinct_maps} different maps`;
  return s;
}
