// The pairing rule of SPEC 1.2, as a pure function of the waiting bots and what is known of each pair: it
// builds a weighted graph and takes a maximum-weight matching (Edmonds' blossom algorithm, from the
// edmonds-blossom-fixed package) over it. Weights combine competitive quality, waiting time, fewer recent
// games, settling new versions against established ones and under-tested matchups. About one start in seven
// is reserved for discovery (an under-tested pair, regardless of ratings), and discovery also fills in for
// bots no competitive pairing could place. Hard exclusions are never weighed: they remove the edge.
import blossom from "edmonds-blossom-fixed";
import { expectedScore } from "../ratings/bradley-terry.ts";

export const PRIOR_GAMES = 20;
export const WINDOW_START = 400;
export const WINDOW_PER_SECOND = 20;
export const WINDOW_CAP = 1200;
export const PRIORITY_AFTER_MS = 60_000;
export const QUALIFYING_GAMES = 30;
export const REMATCH_HOLD_MS = 10_000;

export interface Candidate {
  /** Bot id; also the vertex identity. */
  id: string;
  owner: string;
  house: boolean;
  rating: number;
  ratedGames: number;
  waitedMs: number;
  /** Matches started in the last hour. */
  recentGames: number;
}

export interface PairFacts {
  /** Rated games between the two versions, and the first candidate's score in them (wins + draws / 2). */
  games: number;
  score: number;
  /** Mean over the pair's maps of 1 - |2p - 1| for the map-smoothed forecast p; 1 when unknown. */
  mapQuality: number;
  /** When the two bots last finished a match together, or null. */
  lastMetAt: number | null;
}

export interface PairingInput {
  now: number;
  candidates: Candidate[];
  facts(a: Candidate, b: Candidate): PairFacts;
  /** True when the next start is the reserved discovery slot (one in seven). */
  discoveryDue: boolean;
  /** An extra, caller-specific exclusion (for example: house bots only after a short wait). */
  allowed?(a: Candidate, b: Candidate): boolean;
}

export interface Pairing {
  a: Candidate;
  b: Candidate;
  kind: "competitive" | "discovery";
  /** The smoothed forecast of a's score. */
  forecast: number;
}

/** The forecast smoothed toward the rating estimate with PRIOR_GAMES games (SPEC 1.2 rule 2). */
export function smoothedForecast(a: Candidate, b: Candidate, f: PairFacts): number {
  const prior = expectedScore(a.rating, b.rating);
  return (f.score + PRIOR_GAMES * prior) / (f.games + PRIOR_GAMES);
}

/** How long each side of a pair has waited; a house bot is always there, so it counts as its partner's wait. */
function waits(a: Candidate, b: Candidate): [number, number] {
  return [a.house ? b.waitedMs : a.waitedMs, b.house ? a.waitedMs : b.waitedMs];
}

/** The rating window for a pair: 400, widening 20 per second of the shorter wait, capped at 1200. */
export function ratingWindow(a: Candidate, b: Candidate): number {
  const shorter = Math.min(...waits(a, b)) / 1000;
  return Math.min(WINDOW_CAP, WINDOW_START + WINDOW_PER_SECOND * shorter);
}

/** Early results that contradict the rating prediction ask for more games, up to PRIOR_GAMES. */
export function contradicts(a: Candidate, b: Candidate, f: PairFacts): boolean {
  if (f.games < 3 || f.games >= PRIOR_GAMES) return false;
  return Math.abs(f.score / f.games - expectedScore(a.rating, b.rating)) > 0.25;
}

function excluded(a: Candidate, b: Candidate, f: PairFacts, now: number): boolean {
  if (a.id === b.id || a.owner === b.owner || (a.house && b.house)) return true;
  return f.lastMetAt !== null && now - f.lastMetAt < REMATCH_HOLD_MS;
}

function competitiveWeight(a: Candidate, b: Candidate, f: PairFacts): number | null {
  const p = smoothedForecast(a, b, f);
  const gap = Math.abs(a.rating - b.rating);
  const established = f.games >= PRIOR_GAMES && p >= 0.25 && p <= 0.75 && f.mapQuality >= 0.5;
  if (gap > ratingWindow(a, b) && !(established && gap <= WINDOW_CAP)) return null;
  const quality = 1 - Math.abs(2 * p - 1);
  const [wa, wb] = waits(a, b);
  let w = 100 * quality + Math.min((wa + wb) / 1000, 120);
  // The oldest eligible bots get priority once they have waited a minute.
  const longest = Math.max(wa, wb);
  if (longest >= PRIORITY_AFTER_MS) w += 1000 + (longest - PRIORITY_AFTER_MS) / 1000;
  w += 20 / (1 + a.recentGames + b.recentGames);
  if (a.ratedGames < QUALIFYING_GAMES !== b.ratedGames < QUALIFYING_GAMES) w += 30;
  w += 30 * Math.max(0, 1 - f.games / PRIOR_GAMES);
  return w;
}

function discoveryWeight(a: Candidate, b: Candidate, f: PairFacts): number | null {
  const contradicting = contradicts(a, b, f);
  if (f.games >= PRIOR_GAMES && !contradicting) return null;
  return (
    100 * Math.max(0, 1 - f.games / PRIOR_GAMES) +
    (contradicting ? 100 : 0) +
    Math.min((a.waitedMs + b.waitedMs) / 1000, 120) +
    1
  );
}

type Edge = { i: number; j: number; w: number; f: PairFacts };

function match(cands: Candidate[], edges: Edge[]): [number, number, Edge][] {
  if (edges.length === 0) return [];
  // The library wants integer-ish weights; scale keeps two decimals of the weight's resolution.
  const mate = blossom(edges.map((e) => [e.i, e.j, Math.round(e.w * 100)]));
  const byPair = new Map(edges.map((e) => [`${e.i},${e.j}`, e]));
  const out: [number, number, Edge][] = [];
  for (let i = 0; i < cands.length; i++) {
    const j = mate[i] ?? -1;
    if (j > i) out.push([i, j, byPair.get(`${i},${j}`)!]);
  }
  return out;
}

export function choosePairs(input: PairingInput): Pairing[] {
  const { candidates: c, now } = input;
  const facts = new Map<string, PairFacts>();
  const competitive: Edge[] = [];
  const discovery: Edge[] = [];
  for (let i = 0; i < c.length; i++) {
    for (let j = i + 1; j < c.length; j++) {
      const f = input.facts(c[i]!, c[j]!);
      facts.set(`${i},${j}`, f);
      if (excluded(c[i]!, c[j]!, f, now) || (input.allowed && !input.allowed(c[i]!, c[j]!))) continue;
      const cw = competitiveWeight(c[i]!, c[j]!, f);
      if (cw !== null) competitive.push({ i, j, w: cw, f });
      const dw = discoveryWeight(c[i]!, c[j]!, f);
      if (dw !== null) discovery.push({ i, j, w: dw, f });
    }
  }
  const taken = new Set<number>();
  const out: Pairing[] = [];
  const take = (i: number, j: number, f: PairFacts, kind: Pairing["kind"]) => {
    taken.add(i).add(j);
    out.push({ a: c[i]!, b: c[j]!, kind, forecast: smoothedForecast(c[i]!, c[j]!, f) });
  };
  if (input.discoveryDue) {
    const best = [...discovery].sort((x, y) => y.w - x.w)[0];
    if (best) take(best.i, best.j, best.f, "discovery");
  }
  const free = (e: Edge) => !taken.has(e.i) && !taken.has(e.j);
  for (const [i, j, e] of match(c, competitive.filter(free))) take(i, j, e.f, "competitive");
  for (const [i, j, e] of match(c, discovery.filter(free))) take(i, j, e.f, "discovery");
  return out;
}
