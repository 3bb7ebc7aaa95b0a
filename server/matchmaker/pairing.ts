// The pairing rule of SPEC 1.2, as a pure function of the waiting bots and what is known of each pair: it
// builds a weighted graph and takes a maximum-weight matching (Edmonds' blossom algorithm, from the
// edmonds-blossom-fixed package) over it. Weights combine competitive quality, waiting time, fewer recent
// games, settling new versions against established ones and under-tested matchups. About one start in seven
// is reserved for discovery (an under-tested pair, regardless of ratings), and discovery also fills in for
// bots no competitive pairing could place. Hard exclusions are never weighed: they remove the edge.
import blossom from "edmonds-blossom-fixed";
import { expectedScore } from "../ratings/bradley-terry.ts";
import type { PairingChoice, PairingReason } from "../store/pairing-record.ts";

export const PRIOR_GAMES = 20;
export const WINDOW_START = 400;
export const WINDOW_PER_SECOND = 20;
export const WINDOW_CAP = 1200;
export const PRIORITY_AFTER_MS = 60_000;
export const QUALIFYING_GAMES = 30;
export const REMATCH_HOLD_MS = 10_000;
/** Fewer games than this between two versions cannot contradict the ratings (see contradicts). */
const TESTED_GAMES = 3;

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
  /**
   * How many of this pass's starts are reserved for discovery; overrides discoveryDue (which means one).
   * A pass over a long queue starts many matches at once, and one in seven of them is discovery.
   */
  discoverySlots?: number;
  /**
   * Ids of the candidates `a`'s version has from `minGames` to `maxGames` rated games against. Only long
   * queues (above DENSE_LIMIT) use it, so that a pair whose early results may contradict the ratings is
   * never lost to the sparse pairing; without it such a pair is still found when the two are rating
   * neighbours or both among the longest waiting.
   */
  tested?(a: Candidate, minGames: number, maxGames: number): Iterable<string>;
  /** An extra, caller-specific exclusion (for example: house bots only after a short wait). */
  allowed?(a: Candidate, b: Candidate): boolean;
}

export interface Pairing {
  a: Candidate;
  b: Candidate;
  kind: "competitive" | "discovery";
  /** The smoothed forecast of a's score. */
  forecast: number;
  /** Why: the reason, the weight and its parts, the window (for the match's pairing record). */
  choice: PairingChoice;
}

/** The forecast smoothed toward the rating estimate with PRIOR_GAMES games (SPEC 1.2 rule 2). */
export function smoothedForecast(
  a: Pick<Candidate, "rating">,
  b: Pick<Candidate, "rating">,
  f: Pick<PairFacts, "games" | "score">,
): number {
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
  if (f.games < TESTED_GAMES || f.games >= PRIOR_GAMES) return false;
  return Math.abs(f.score / f.games - expectedScore(a.rating, b.rating)) > 0.25;
}

function excluded(a: Candidate, b: Candidate, f: PairFacts, now: number): boolean {
  if (a.id === b.id || a.owner === b.owner || (a.house && b.house)) return true;
  return f.lastMetAt !== null && now - f.lastMetAt < REMATCH_HOLD_MS;
}

/** A weight and the parts it is the sum of (kept for the match's pairing record, pairing-record.ts). */
export interface Weight {
  w: number;
  parts: Record<string, number>;
}

/** Sums the parts in the order given (the order the rule has always added them in). */
function weigh(parts: Record<string, number>): Weight {
  let w = 0;
  for (const v of Object.values(parts)) w += v;
  return { w, parts };
}

function competitiveWeight(a: Candidate, b: Candidate, f: PairFacts): Weight | null {
  const p = smoothedForecast(a, b, f);
  const gap = Math.abs(a.rating - b.rating);
  const established = f.games >= PRIOR_GAMES && p >= 0.25 && p <= 0.75 && f.mapQuality >= 0.5;
  if (gap > ratingWindow(a, b) && !(established && gap <= WINDOW_CAP)) return null;
  const quality = 1 - Math.abs(2 * p - 1);
  const [wa, wb] = waits(a, b);
  // The oldest eligible bots get priority once they have waited a minute.
  const longest = Math.max(wa, wb);
  return weigh({
    quality: 100 * quality,
    wait: Math.min((wa + wb) / 1000, 120),
    priority: longest >= PRIORITY_AFTER_MS ? 1000 + (longest - PRIORITY_AFTER_MS) / 1000 : 0,
    recent: 20 / (1 + a.recentGames + b.recentGames),
    settling: a.ratedGames < QUALIFYING_GAMES !== b.ratedGames < QUALIFYING_GAMES ? 30 : 0,
    untested: 30 * Math.max(0, 1 - f.games / PRIOR_GAMES),
  });
}

function discoveryWeight(a: Candidate, b: Candidate, f: PairFacts): Weight | null {
  const contradicting = contradicts(a, b, f);
  if (f.games >= PRIOR_GAMES && !contradicting) return null;
  return weigh({
    untested: 100 * Math.max(0, 1 - f.games / PRIOR_GAMES),
    contradiction: contradicting ? 100 : 0,
    wait: Math.min((a.waitedMs + b.waitedMs) / 1000, 120),
    base: 1,
  });
}

/** The reason a pair of a kind was chosen, as the match's pairing record names it. */
function reasonOf(kind: Pairing["kind"], weight: Weight): PairingReason {
  if (kind === "discovery") return weight.parts.contradiction! > 0 ? "contradiction" : "discovery";
  return weight.parts.priority! > 0 ? "priority" : "competitive";
}

type Edge = { i: number; j: number; w: number; f: PairFacts; weight: Weight };

/** Maximum-weight matching over `edges` (indices into the candidates), each vertex in at most one pair. */
function match(edges: Edge[]): Edge[] {
  if (edges.length === 0) return [];
  // The library numbers vertices 0..max and runs in O(vertices^3): renumber densely first.
  const local = new Map<number, number>();
  const at = (v: number) => {
    const l = local.get(v);
    if (l !== undefined) return l;
    local.set(v, local.size);
    return local.size - 1;
  };
  // The library wants integer-ish weights; scale keeps two decimals of the weight's resolution.
  const mate = blossom(edges.map((e) => [at(e.i), at(e.j), Math.round(e.w * 100)]));
  return edges.filter((e) => mate[local.get(e.i)!] === local.get(e.j));
}

/** Queues up to this size are matched exactly: every pair is an edge, one blossom over the whole queue. */
export const DENSE_LIMIT = 64;
/**
 * Above DENSE_LIMIT: the rating-sorted queue is matched in blocks of this many (see choosePairs). The
 * blossom library's time grows with the cube of a block's size: 16 keeps a pass over 1,000 bots near
 * 10 ms of matching, 32 costs about three times as much.
 */
export const BLOCK = 16;
/** Above DENSE_LIMIT: every pair among this many longest-waiting candidates is a discovery option... */
export const LONGEST_WAITING = 16;
/** ...and each of the longest-waiting (twice the reserved slots, plus those) is offered this many more. */
const WAITING_PARTNERS = 4;

interface PairInfo {
  i: number;
  j: number;
  f: PairFacts;
  cw: Weight | null;
  dw: Weight | null;
}

export function choosePairs(input: PairingInput): Pairing[] {
  const { candidates: c, now } = input;
  const n = c.length;
  // Each pair's facts and weights, computed at most once and only for the pairs the pass looks at; null
  // for an excluded pair.
  const cache = new Map<number, PairInfo | null>();
  const info = (x: number, y: number): PairInfo | null => {
    const i = Math.min(x, y);
    const j = Math.max(x, y);
    const key = i * n + j;
    let e = cache.get(key);
    if (e === undefined) {
      e = null;
      const a = c[i]!;
      const b = c[j]!;
      if (a.id !== b.id && a.owner !== b.owner && !(a.house && b.house)) {
        const f = input.facts(a, b);
        if (!excluded(a, b, f, now) && (!input.allowed || input.allowed(a, b)))
          e = { i, j, f, cw: competitiveWeight(a, b, f), dw: discoveryWeight(a, b, f) };
      }
      cache.set(key, e);
    }
    return e;
  };
  const edge = (e: PairInfo | null, kind: Pairing["kind"]): Edge | null => {
    const w = e && (kind === "competitive" ? e.cw : e.dw);
    return e && w !== null ? { i: e.i, j: e.j, w: w.w, f: e.f, weight: w } : null;
  };
  /** Every allowed edge of a kind among some candidates. */
  const among = (vs: number[], kind: Pairing["kind"]): Edge[] => {
    const out: Edge[] = [];
    for (let x = 0; x < vs.length; x++)
      for (let y = x + 1; y < vs.length; y++) {
        const e = edge(info(vs[x]!, vs[y]!), kind);
        if (e) out.push(e);
      }
    return out;
  };

  const taken = new Set<number>();
  const out: { pairing: Pairing; phase: number; first: number }[] = [];
  let phase = 0;
  const take = (e: Edge, kind: Pairing["kind"]) => {
    taken.add(e.i).add(e.j);
    const a = c[e.i]!;
    const b = c[e.j]!;
    out.push({
      pairing: {
        a,
        b,
        kind,
        forecast: smoothedForecast(a, b, e.f),
        choice: {
          reason: reasonOf(kind, e.weight),
          weight: e.w,
          parts: e.weight.parts,
          window: Math.round(ratingWindow(a, b)),
          pairGames: e.f.games,
        },
      },
      phase,
      first: Math.min(e.i, e.j),
    });
  };
  const free = (v: number) => !taken.has(v);
  const byRating = [...c.keys()].sort(
    (x, y) => c[x]!.rating - c[y]!.rating || (c[x]!.id < c[y]!.id ? -1 : 1),
  );

  // 1. The reserved discovery starts (SPEC 1.2 rule 3), best discovery weight first.
  const slots = input.discoverySlots ?? (input.discoveryDue ? 1 : 0);
  if (slots > 0) {
    const options = n <= DENSE_LIMIT ? among(byRating, "discovery") : discoveryOptions(slots);
    options.sort((x, y) => y.w - x.w);
    let left = slots;
    for (const e of options) {
      if (left === 0) break;
      if (free(e.i) && free(e.j)) {
        take(e, "discovery");
        left--;
      }
    }
  }
  // 2. Competitive pairs by maximum-weight matching; 3. discovery fills in for whoever is left.
  for (const kind of ["competitive", "discovery"] as const) {
    phase++;
    const queue = byRating.filter(free);
    if (queue.length <= DENSE_LIMIT) {
      for (const e of match(among(queue, kind))) take(e, kind);
      continue;
    }
    // Sparse pairing of a long queue. One blossom over every pair of 1,000 bots takes seconds (the
    // matching is cubic in the vertices, and half a million pair facts alone are too slow for a pass
    // every 250 ms), so the rating-sorted queue is cut into blocks of BLOCK neighbours and each block is
    // matched exactly; whoever a block leaves unpaired joins the next block (up to BLOCK of them).
    // The trade-off: a bot is only weighed against partners within about a block of it in rating order,
    // so the matching is maximal per block, not over the whole queue. Every SPEC rule still holds on the
    // edges considered: exclusions remove edges, the window filters competitive edges, a bot past 60 s
    // outweighs any other edge of its block, and the reserved discovery slots above looked at the
    // longest-waiting bots and at every pair with history, not only at neighbours.
    let carry: number[] = [];
    for (let start = 0; start < queue.length; start += BLOCK) {
      const members = [...carry, ...queue.slice(start, start + BLOCK)];
      for (const e of match(among(members, kind))) take(e, kind);
      carry = members.filter(free).slice(-BLOCK);
    }
  }
  // Reserved discovery first, then competitive, then fill-in; within each, in the candidates' order (the
  // queue's, longest waiting first), so that when capacity cuts a pass short the longest waiting start.
  return out.sort((x, y) => x.phase - y.phase || x.first - y.first).map((x) => x.pairing);

  /**
   * Discovery options of a long queue: the longest waiters among themselves and with a few more of the
   * long waiting (discovery is independent of ratings, and waiting raises its weight), each bot with its
   * rating neighbour (so everyone has one), and every pair with enough history to contradict the ratings
   * (those weigh most).
   */
  function discoveryOptions(wanted: number): Edge[] {
    const seen = new Set<number>();
    const options: Edge[] = [];
    const add = (x: number, y: number) => {
      const key = Math.min(x, y) * n + Math.max(x, y);
      if (x === y || seen.has(key)) return;
      seen.add(key);
      const e = edge(info(x, y), "discovery");
      if (e) options.push(e);
    };
    const waiting = [...byRating].sort((x, y) => c[y]!.waitedMs - c[x]!.waitedMs);
    for (let x = 0; x < Math.min(waiting.length, LONGEST_WAITING); x++)
      for (let y = x + 1; y < Math.min(waiting.length, LONGEST_WAITING); y++) add(waiting[x]!, waiting[y]!);
    const longest = Math.min(waiting.length, 2 * wanted + LONGEST_WAITING);
    for (let x = 0; x < longest; x++)
      for (let y = x + 1; y <= x + WAITING_PARTNERS && y < longest; y++) add(waiting[x]!, waiting[y]!);
    for (let x = 0; x + 1 < byRating.length; x++) add(byRating[x]!, byRating[x + 1]!);
    if (input.tested) {
      const at = new Map(c.map((cand, i) => [cand.id, i]));
      // The relation is symmetric, so asking the players finds every pair; a house bot's own list (it
      // has played everyone) would only repeat them at length.
      for (let x = 0; x < n; x++) {
        if (c[x]!.house) continue;
        for (const id of input.tested(c[x]!, TESTED_GAMES, PRIOR_GAMES - 1)) {
          const y = at.get(id);
          if (y !== undefined) add(x, y);
        }
      }
    }
    return options;
  }
}
