// A local league (issue 35): every pair of the given bots plays N games, planned with the ladder's own rules
// where they apply (each game on the pair's least-played map, the seed breaking ties; the bot that has sat in
// seat 0 more often takes seat 1, as server/matchmaker/matchmaker.ts plans a start), played on every core by
// worker threads, appended to a results file as they finish (so a stopped league resumes where it stopped), and
// rated by the ladder's own rating book. The book is handed in (LeagueRatings) by the simulator's entry: the
// engine layer imports nothing from the server.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { DeadlinesT } from "../protocol.ts";
import { MAP_NAMES } from "../rules.ts";
import { playMatch } from "./play.ts";
import { type BotRunner, createRunner, errorLine, parseBotSpec, type SimContext } from "./seats.ts";

/** What fixes a league's games: a results file belongs to one of these and resumes only under it. */
export interface LeagueConfig {
  bots: string[];
  /** Games per pair of bots. */
  games: number;
  seed: number;
  tick_ms: number;
  startup_ms: number;
  release: string;
}

/** One planned game: `seats` are the bots (indices into config.bots) in fighter 0 and fighter 1. */
export interface LeagueGame {
  game: number;
  match_id: string;
  seed: number;
  map: string;
  seats: [number, number];
}

/** A played game, one line of the results file. `winner` is a fighter id (0 or 1), null for a draw or void. */
export interface LeagueResult extends LeagueGame {
  type: "result";
  winner: number | null;
  reason: string;
  ticks: number;
}

/** A results file that belongs to another league, or cannot be read: told to the user as it is. */
export class LeagueError extends Error {}

/**
 * The games of a league, in rounds: each round plays every pair once, in a fixed order. Per game, the
 * ladder's start rules: the pair's least-played map (a tie goes by the seed), and seats by each bot's
 * accumulated seat-0 balance (a tie goes by the seed). Only earlier plans decide them, never results, so the
 * plan is known before any game is played and a resumed league plays exactly the games that are missing.
 */
export function planLeague(bots: number, gamesPerPair: number, seed: number): LeagueGame[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < bots; i++) for (let j = i + 1; j < bots; j++) pairs.push([i, j]);
  const mapGames = new Map<string, number[]>(); // per pair, games per map (MAP_NAMES order)
  const balance = new Array<number>(bots).fill(0); // per bot: seat-0 games minus seat-1 games
  const out: LeagueGame[] = [];
  for (let round = 0; round < gamesPerPair; round++) {
    for (const [a, b] of pairs) {
      const game = out.length;
      const s = (seed + game) | 0;
      const key = `${a},${b}`;
      const counts = mapGames.get(key) ?? new Array<number>(MAP_NAMES.length).fill(0);
      mapGames.set(key, counts);
      const fewest = Math.min(...counts);
      const least = MAP_NAMES.filter((_, k) => counts[k] === fewest);
      const map = least[Math.abs(s) % least.length]!;
      counts[MAP_NAMES.indexOf(map)]!++;
      const seats: [number, number] =
        balance[a]! > balance[b]! || (balance[a] === balance[b] && Math.abs(s) % 2 === 1) ? [b, a] : [a, b];
      balance[seats[0]]!++;
      balance[seats[1]]!--;
      out.push({ game, match_id: `league-${game + 1}-${map}-${s}`, seed: s, map, seats });
    }
  }
  return out;
}

const sameConfig = (a: LeagueConfig, b: LeagueConfig) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The results already in `file`, by game, for a league with `config`; creates the file (its first line is the
 * config) when it does not exist. A last line cut short (the run was killed while writing it) is dropped.
 */
export function openResults(
  file: string,
  config: LeagueConfig,
  plan: LeagueGame[],
): Map<number, LeagueResult> {
  const done = new Map<number, LeagueResult>();
  if (!existsSync(file)) {
    writeFileSync(file, `${JSON.stringify({ type: "league", ...config })}\n`);
    return done;
  }
  const text = readFileSync(file, "utf8");
  const lines = text.split("\n");
  // The piece after the last newline is empty, or a line cut short: either way not a result.
  const complete = lines.slice(0, -1);
  let head: ({ type?: string } & LeagueConfig) | null = null;
  try {
    head = JSON.parse(complete[0] ?? "null");
  } catch {
    head = null;
  }
  if (head?.type !== "league")
    throw new LeagueError(`${file} is not a league results file (its first line is not a league line)`);
  const { type: _, ...theirs } = head;
  if (!sameConfig(theirs as LeagueConfig, config)) {
    throw new LeagueError(
      `${file} holds another league (${JSON.stringify(theirs)}); give another --results file to start this one`,
    );
  }
  for (const [i, line] of complete.slice(1).entries()) {
    let r: LeagueResult;
    try {
      r = JSON.parse(line) as LeagueResult;
    } catch {
      throw new LeagueError(`${file} line ${i + 2} is not valid JSON`);
    }
    const p = plan[r.game];
    if (r.type !== "result" || !p || p.match_id !== r.match_id || p.seats.join() !== r.seats?.join())
      throw new LeagueError(`${file} line ${i + 2} is not a game of this league`);
    done.set(r.game, r);
  }
  // Rewrite without a cut line, so appends start on a line of their own.
  if (!text.endsWith("\n")) writeFileSync(file, `${complete.join("\n")}\n`);
  return done;
}

// ---------------------------------------------------------------- playing on worker threads

export interface LeagueWorkerData {
  arenaSimLeague: true;
  bots: string[];
  cwd: string;
  deadlines: DeadlinesT;
  replays: string | null;
  maxMessageBytes: number;
  quiet: boolean;
}

type ToWorker = { t: "game"; game: LeagueGame } | { t: "close" };
type FromWorker =
  | { t: "ready" }
  | { t: "init_error"; error: string }
  | { t: "result"; result: LeagueResult }
  | { t: "log"; line: string };

/** The body of a league worker thread: the bots' runners, then one game at a time as the main thread sends. */
export async function leagueWorker(
  data: LeagueWorkerData,
  port: { postMessage(m: FromWorker): void; on(e: "message", f: (m: ToWorker) => void): void },
): Promise<void> {
  const ctx: SimContext = {
    cwd: data.cwd,
    log: data.quiet ? null : (line) => port.postMessage({ t: "log", line }),
    maxMessageBytes: data.maxMessageBytes,
  };
  const runners: BotRunner[] = [];
  try {
    for (const [i, spec] of data.bots.entries())
      runners.push(createRunner(parseBotSpec(spec, data.cwd), `#${i + 1}`, ctx));
    await Promise.all(runners.map((r) => r.init()));
  } catch (err) {
    port.postMessage({ t: "init_error", error: errorLine(err) });
    return;
  }
  let queue = Promise.resolve();
  port.on("message", (m) => {
    queue = queue.then(async () => {
      if (m.t === "close") {
        await Promise.all(runners.map((r) => r.close()));
        process.exit(0);
      }
      const g = m.game;
      const seats = g.seats.map((b) => runners[b]!.seat(g.match_id));
      const { match } = await playMatch([seats[0]!, seats[1]!], {
        matchId: g.match_id,
        seed: g.seed,
        map: g.map,
        deadlines: data.deadlines,
      });
      if (data.replays) writeFileSync(join(data.replays, `${g.match_id}.jsonl.gz`), match.replay.gzip());
      const r = match.result!;
      port.postMessage({
        t: "result",
        result: { type: "result", ...g, winner: r.winner, reason: r.reason, ticks: r.finalTick },
      });
    });
  });
  port.postMessage({ t: "ready" });
}

export interface RunLeagueOptions {
  config: LeagueConfig;
  plan: LeagueGame[];
  done: Map<number, LeagueResult>;
  resultsFile: string;
  workers: number;
  /** The script a worker thread runs: the simulator's own entry, which starts leagueWorker in a worker. */
  workerScript: string | URL;
  cwd: string;
  deadlines: DeadlinesT;
  replays: string | null;
  maxMessageBytes: number;
  quiet: boolean;
  log: (line: string) => void;
  onResult?: (r: LeagueResult, done: number, total: number) => void;
}

/** Plays the games not yet in the results file on `workers` threads, appending each result as it comes. */
export async function runLeague(o: RunLeagueOptions): Promise<Map<number, LeagueResult>> {
  const todo = o.plan.filter((g) => !o.done.has(g.game));
  if (o.replays) mkdirSync(o.replays, { recursive: true });
  const results = new Map(o.done);
  if (todo.length === 0) return results;
  const data: LeagueWorkerData = {
    arenaSimLeague: true,
    bots: o.config.bots,
    cwd: o.cwd,
    deadlines: o.deadlines,
    replays: o.replays,
    maxMessageBytes: o.maxMessageBytes,
    quiet: o.quiet,
  };
  let next = 0;
  const count = Math.max(1, Math.min(o.workers, todo.length));
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolveWorker, rejectWorker) => {
          const w = new Worker(o.workerScript, { workerData: data, stdout: false, stderr: false });
          let busy: LeagueGame | null = null;
          let closing = false;
          const feed = () => {
            busy = next < todo.length ? todo[next++]! : null;
            if (busy) w.postMessage({ t: "game", game: busy } satisfies ToWorker);
            else {
              closing = true;
              w.postMessage({ t: "close" } satisfies ToWorker);
            }
          };
          w.on("message", (m: FromWorker) => {
            if (m.t === "log") o.log(m.line);
            else if (m.t === "init_error") {
              closing = true;
              void w.terminate();
              rejectWorker(new LeagueError(`a league worker could not start the bots: ${m.error}`));
            } else if (m.t === "ready") feed();
            else if (m.t === "result") {
              appendFileSync(o.resultsFile, `${JSON.stringify(m.result)}\n`);
              results.set(m.result.game, m.result);
              o.onResult?.(m.result, results.size, o.plan.length);
              feed();
            }
          });
          w.on("error", (err) => rejectWorker(new LeagueError(`a league worker failed: ${errorLine(err)}`)));
          w.on("exit", (code) => {
            if (closing) resolveWorker();
            else
              rejectWorker(
                new LeagueError(
                  `a league worker exited with code ${code}${busy ? ` during ${busy.match_id}` : ""}`,
                ),
              );
          });
        }),
    ),
  );
  return results;
}

// ---------------------------------------------------------------- the table

/** A rated game as the ladder's rating book takes it (server/ratings/book.ts RatedGame). */
export interface LeagueRatedGame {
  a: string;
  b: string;
  score: number;
  map: string;
  aHouse: boolean;
  bHouse: boolean;
}

/** A version's rating as the ladder's book gives it. */
export interface LeagueRating {
  rating: number;
  deviation: number;
  leaderboardScore: number;
  games: number;
  ranked: boolean;
}

/** The ladder's rating code, handed in by the simulator's entry: loads the games and rates each version. */
export type LeagueRatings = (games: LeagueRatedGame[]) => (key: string) => LeagueRating;

export interface LeagueBot {
  spec: string;
  /** The key the book rates it by: its name, made unique within the league. */
  key: string;
  house: boolean;
}

export interface LeagueRow {
  rank: number;
  name: string;
  spec: string;
  house: boolean;
  rating: number;
  rating_deviation: number;
  leaderboard_score: number;
  /** rating - 2 deviations to rating + 2 deviations: where the rating lies, about 95 % sure. */
  interval: [number, number];
  wins: number;
  losses: number;
  draws: number;
  games: number;
  /** Whether the ladder would rank it: at least 30 rated games (qualifying_games). */
  ranked: boolean;
}

/** The games the ladder would rate: every played game but voided and aborted ones. */
export function ratedGames(bots: LeagueBot[], results: Iterable<LeagueResult>): LeagueRatedGame[] {
  const out: LeagueRatedGame[] = [];
  for (const r of results) {
    if (r.reason === "voided" || r.reason === "aborted") continue;
    const a = bots[r.seats[0]]!;
    const b = bots[r.seats[1]]!;
    out.push({
      a: a.key,
      b: b.key,
      score: r.winner === null ? 0.5 : r.winner === 0 ? 1 : 0,
      map: r.map,
      aHouse: a.house,
      bHouse: b.house,
    });
  }
  return out;
}

/** The ladder's table for the league: sorted by leaderboard score, then name, as the ladder sorts. */
export function leagueTable(
  bots: LeagueBot[],
  results: Iterable<LeagueResult>,
  ratings: LeagueRatings,
): LeagueRow[] {
  const list = [...results];
  const rate = ratings(ratedGames(bots, list));
  const rows = bots.map((b, i): Omit<LeagueRow, "rank"> => {
    const r = rate(b.key);
    const rec = { wins: 0, losses: 0, draws: 0 };
    for (const g of list) {
      const f = g.seats.indexOf(i);
      if (f < 0 || g.reason === "voided" || g.reason === "aborted") continue;
      if (g.winner === null) rec.draws++;
      else if (g.winner === f) rec.wins++;
      else rec.losses++;
    }
    return {
      name: b.key,
      spec: b.spec,
      house: b.house,
      rating: Math.round(r.rating),
      rating_deviation: Math.round(r.deviation),
      leaderboard_score: r.leaderboardScore,
      interval: [Math.round(r.rating - 2 * r.deviation), Math.round(r.rating + 2 * r.deviation)],
      ...rec,
      games: r.games,
      ranked: r.ranked,
    };
  });
  rows.sort((a, b) => b.leaderboard_score - a.leaderboard_score || a.name.localeCompare(b.name));
  return rows.map((r, i) => ({ rank: i + 1, ...r }));
}

export function formatTable(rows: LeagueRow[], o: { played: number; total: number; voided: number }): string {
  const head = ["rank", "bot", "rating", "deviation", "score", "95% interval", "W-L-D", "games"];
  const body = rows.map((r) => [
    String(r.rank),
    `${r.name}${r.house ? " (house)" : ""}${r.ranked ? "" : " *"}`,
    String(r.rating),
    `±${r.rating_deviation}`,
    String(r.leaderboard_score),
    `${r.interval[0]} to ${r.interval[1]}`,
    `${r.wins}-${r.losses}-${r.draws}`,
    String(r.games),
  ]);
  const widths = head.map((h, c) => Math.max(h.length, ...body.map((row) => row[c]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((x, c) => (c === 1 ? x.padEnd(widths[c]!) : x.padStart(widths[c]!)))
      .join("  ")
      .trimEnd();
  const notes = [
    `${o.played} of ${o.total} games played${o.voided ? `, ${o.voided} void (not rated)` : ""}`,
    "score = the ladder's leaderboard score, round(rating - 2 * max(deviation, 25)); the table is sorted by it",
  ];
  if (rows.some((r) => !r.ranked))
    notes.push("* fewer than 30 rated games: the ladder would not rank it yet");
  return `${[line(head), ...body.map(line)].join("\n")}\n\n${notes.join("\n")}\n`;
}
