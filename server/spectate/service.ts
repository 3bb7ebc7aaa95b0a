// What a spectator is shown first (issue 19): the home page's featured match and the dashboard's story at a
// glance (upsets, the top ten's rating trends). Read-only: everything comes from the public reads
// (server/reads/reads.ts), so a page shows what the API says. The rules:
// - featured: the highest-rated match being played (its two bots' leaderboard ratings added; unranked count 0;
//   a tie goes to the match that started first); when nothing is being played, the latest notable finished
//   match (the latest upset, else the highest-rated of the latest matches); on a fresh server with no match at
//   all, the bundled replay two house bots played in the simulator at build time (scripts/build-showcase.ts).
// - an upset: a rated win whose forecast, from the two ratings before the game, was below 25 %.
// - spectator pace (issue 37): bot matches finish in well under a second, far too fast to watch as they
//   happen. So a ranked match that just ended stays "on air" for as long as its replay takes at watching speed
//   (the viewer's 1x, SPECTATOR_TICK_MS a tick): "Being played now" lists it, marked as a replay at watching
//   pace with the tick a spectator would be at, and the featured match shows it (label "Just played") when no
//   match is being played. Ticks on the ladder itself are not slowed: bots keep their own pace.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { LeaderboardRowT, MatchT, StatusT } from "../api/responses.ts";
import { REPO_ROOT } from "../root.ts";

/** Below this forecast a win is an upset. */
export const UPSET_FORECAST = 0.25;
/** How many of the latest matches the dashboard and the featured pick look through. */
export const RECENT_WINDOW = 100;

/** Watching speed: one tick every 125 ms, the viewer's 1x (web/viewer.js TICKS_PER_SECOND = 8). */
export const SPECTATOR_TICK_MS = 125;

export const SHOWCASE_FILE = join(REPO_ROOT, "build", "showcase.jsonl.gz");
export const SHOWCASE_URL = "/featured/showcase.jsonl.gz";

export interface Featured {
  /**
   * live: being played now; paced: a ranked match that just ended, replayed at watching speed while it is on air;
   * finished: a stored match replayed in a loop; bundled: the build's replay.
   */
  kind: "live" | "paced" | "finished" | "bundled" | "none";
  match_id: string | null;
  names: [string, string] | null;
  /** What the label over the board says. */
  label: string;
  live_url: string | null;
  replay_url: string | null;
  /** The match's page (live matches: the viewer), null for the bundled replay. */
  watch_url: string | null;
}

/** The winner's forecast before the game (Bradley-Terry on the 400-point scale), or null when not rated. */
export function winnerForecast(m: MatchT): number | null {
  if (m.voided || m.winner === null || m.mode !== "ranked") return null;
  const w = m.bots.find((b) => b.id === m.winner);
  const l = m.bots.find((b) => b.id !== m.winner);
  if (w?.rating_before === undefined || l?.rating_before === undefined) return null;
  return 1 / (1 + 10 ** ((l.rating_before - w.rating_before) / 400));
}

export function isUpset(m: MatchT): boolean {
  const f = winnerForecast(m);
  return f !== null && f < UPSET_FORECAST;
}

/** The latest upsets among matches listed newest first. */
export function upsets(matches: MatchT[], limit = 5): { match: MatchT; forecast: number }[] {
  const out: { match: MatchT; forecast: number }[] = [];
  for (const m of matches) {
    const forecast = winnerForecast(m);
    if (forecast !== null && forecast < UPSET_FORECAST) out.push({ match: m, forecast });
    if (out.length >= limit) break;
  }
  return out;
}

/** The match being played that a spectator most wants to see, or null when none is. */
export function featuredLive(
  status: StatusT,
  board: readonly LeaderboardRowT[],
  ladder: string | null,
): StatusT["matches"][number] | null {
  if (status.matches.length === 0) return null;
  const rating = ratingsOf(board);
  let best: StatusT["matches"][number] | null = null;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const m of status.matches) {
    if (ladder && m.ladder_id !== ladder) continue;
    const score = m.names.reduce((sum, n) => sum + (rating.get(n) ?? 0), 0);
    if (score > bestScore) {
      best = m;
      bestScore = score;
    }
  }
  return best;
}

/**
 * Each board's ratings by bot name, kept by the board (the reads hand back the same frozen array until it
 * changes): a home page view does not map 2,000 rows to score the matches being played.
 */
const boardRatings = new WeakMap<readonly LeaderboardRowT[], Map<string, number>>();
function ratingsOf(board: readonly LeaderboardRowT[]): Map<string, number> {
  let rating = boardRatings.get(board);
  if (!rating) {
    rating = new Map(board.map((r) => [r.name, r.rating]));
    if (Object.isFrozen(board)) boardRatings.set(board, rating);
  }
  return rating;
}

/** A match that just ended, replayed at spectator pace: `tick` is where a spectator watching from its start is. */
export interface OnAir {
  match: MatchT;
  tick: number;
  ticks: number;
}

/**
 * The ranked matches still on air at `now` (epoch ms), newest first: each ended less than its replay's length at
 * watching speed ago (final_tick x SPECTATOR_TICK_MS). Voided and human games are not replayed this way.
 */
export function onAir(matches: readonly MatchT[], now: number): OnAir[] {
  const out: OnAir[] = [];
  const { list, until } = airtimes(matches);
  if (now >= until) return out;
  for (const { match: m, ended } of list) {
    const since = now - ended;
    if (since < 0 || since >= m.final_tick * SPECTATOR_TICK_MS) continue;
    out.push({ match: m, tick: Math.floor(since / SPECTATOR_TICK_MS), ticks: m.final_tick });
  }
  return out;
}

interface Airtimes {
  /** The matches that go on air, with their end (epoch ms). */
  list: { match: MatchT; ended: number }[];
  /** When the last of them is off air (epoch ms). */
  until: number;
}
/** Each kept list's airtimes (the reads hand back the same frozen list until a match is stored). */
const airtimesKept = new WeakMap<readonly MatchT[], Airtimes>();
function airtimes(matches: readonly MatchT[]): Airtimes {
  const kept = airtimesKept.get(matches);
  if (kept) return kept;
  const list: Airtimes["list"] = [];
  let until = Number.NEGATIVE_INFINITY;
  for (const m of matches) {
    if (m.voided || m.mode !== "ranked" || m.final_tick <= 0) continue;
    const ended = Date.parse(m.ended);
    list.push({ match: m, ended });
    until = Math.max(until, ended + m.final_tick * SPECTATOR_TICK_MS);
  }
  const made = { list, until };
  if (Object.isFrozen(matches)) airtimesKept.set(matches, made);
  return made;
}

const notableKept = new WeakMap<readonly MatchT[], { match: MatchT; why: "upset" | "top" } | null>();
/** The latest notable finished match: the latest upset, else the highest-rated of the latest. */
export function notableFinished(matches: readonly MatchT[]): { match: MatchT; why: "upset" | "top" } | null {
  const kept = notableKept.get(matches);
  if (kept !== undefined) return kept;
  const found = notableOf(matches);
  if (Object.isFrozen(matches)) notableKept.set(matches, found);
  return found;
}

function notableOf(matches: readonly MatchT[]): { match: MatchT; why: "upset" | "top" } | null {
  const watchable = matches.filter((m) => !m.voided);
  const upset = watchable.find(isUpset);
  if (upset) return { match: upset, why: "upset" };
  let best: MatchT | null = null;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const m of watchable) {
    const score = m.bots.reduce((s, b) => s + (b.rating_before ?? 0), 0);
    if (score > bestScore) {
      best = m;
      bestScore = score;
    }
  }
  return best ? { match: best, why: "top" } : null;
}

let showcaseNames: [string, string] | null | undefined;
/** The bundled replay's two fighters (from its header), or null when the build did not record one. */
export function showcase(): [string, string] | null {
  if (showcaseNames !== undefined) return showcaseNames;
  showcaseNames = null;
  if (existsSync(SHOWCASE_FILE)) {
    try {
      const text = gunzipSync(readFileSync(SHOWCASE_FILE)).toString("utf8");
      const header = JSON.parse(text.slice(0, text.indexOf("\n"))) as {
        fighters?: { display_name: string }[];
      };
      const names = header.fighters?.map((f) => f.display_name);
      if (names?.length === 2) showcaseNames = [names[0]!, names[1]!];
    } catch {
      showcaseNames = null;
    }
  }
  return showcaseNames;
}

/** "a 25 %", "an 18 %", "an 8 %": the article as the number is read aloud (eight, eleven, eighteen, eighty-). */
export function percentWithArticle(pct: number): string {
  const an = pct === 8 || pct === 11 || pct === 18 || (pct >= 80 && pct <= 89);
  return `${an ? "an" : "a"} ${pct}\u00a0%`;
}

export function pickFeatured(
  o: { status: StatusT; board: readonly LeaderboardRowT[]; recent: readonly MatchT[]; ladder: string | null },
  href: (path: string) => string,
  now = Date.now(),
): Featured {
  const live = featuredLive(o.status, o.board, o.ladder);
  if (live) {
    return {
      kind: "live",
      match_id: live.id,
      names: [live.display_names[0] ?? "?", live.display_names[1] ?? "?"],
      label: "Live now",
      live_url: `/api/matches/${live.id}/live`,
      replay_url: `/replays/${live.id}.jsonl.gz`,
      watch_url: href(`/view/${live.id}`),
    };
  }
  const paced = onAir(o.recent, now)[0];
  if (paced) {
    const m = paced.match;
    return {
      kind: "paced",
      match_id: m.id,
      names: [m.bots[0]?.display_name ?? "?", m.bots[1]?.display_name ?? "?"],
      label: "Just played: the replay at watching speed",
      live_url: null,
      replay_url: `/replays/${m.id}.jsonl.gz`,
      watch_url: href(`/view/${m.id}`),
    };
  }
  const notable = notableFinished(o.recent);
  if (notable) {
    const m = notable.match;
    const f = winnerForecast(m);
    return {
      kind: "finished",
      match_id: m.id,
      names: [m.bots[0]?.display_name ?? "?", m.bots[1]?.display_name ?? "?"],
      label:
        notable.why === "upset" && f !== null
          ? `Replay: an upset (the winner had ${percentWithArticle(Math.round(f * 100))} forecast)`
          : "Replay: the top-rated recent match",
      live_url: null,
      replay_url: `/replays/${m.id}.jsonl.gz`,
      watch_url: href(`/view/${m.id}`),
    };
  }
  const names = showcase();
  if (names) {
    return {
      kind: "bundled",
      match_id: null,
      names,
      label: "Replay: two house bots, recorded in the simulator",
      live_url: null,
      replay_url: SHOWCASE_URL,
      watch_url: null,
    };
  }
  return {
    kind: "none",
    match_id: null,
    names: null,
    label: "No match yet",
    live_url: null,
    replay_url: null,
    watch_url: null,
  };
}
