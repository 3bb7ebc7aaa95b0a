// What the leaderboard, the bot page and the dashboard show of rank uncertainty (issue 33, part 3): each
// leaderboard row's 95 % rank interval, a bot's chance to beat its ten nearest rivals, and the top of the
// ladder's win-chance matrix for the heat map. The numbers come from uncertainty.ts, like the matchups route's.
//
// Cost. Win chances are closed form: a handful of them per page is nothing. Rank intervals of the whole
// leaderboard are a simulation over every ranked version (about a second at 2,000 of them, docs/performance.md),
// and the leaderboard changes after every rated game, so they are never computed on the game's path (the refit
// is untouched) and never more often than the ladder can afford: when the board changed, a computation that
// took under FRESH_MS last time is simply redone and awaited (small ladders always show the current fit);
// a longer one is started in the background, in slices that let sockets be served, at most once per
// COST_FACTOR times its own duration (so it uses at most about 1/COST_FACTOR of one core whatever the game
// rate), and meanwhile the previous answer is shown. A row that has no interval yet (a version ranked since)
// shows none.
import type { BotDirectory } from "../bots/directory.ts";
import type { LadderRuntime } from "../ladders/runtime.ts";
import { versionKey } from "../ratings/book.ts";
import type { LeaderboardRow } from "../ratings/leaderboard.ts";
import type { LadderReads } from "../reads/reads.ts";
import {
  type RankInterval,
  type RatingsInput,
  rankIntervalsInSlices,
  type WinChance,
  winChance,
} from "./uncertainty.ts";

/** A computation faster than this is redone whenever the board changed, and awaited. */
export const FRESH_MS = 50;
/** Otherwise the next starts no sooner than this many times the last one's duration after it ended. */
export const COST_FACTOR = 20;
/** Rivals the bot page shows. */
export const RIVALS = 10;
/** Rows of the dashboard's heat map. */
export const HEATMAP_TOP = 10;

export interface BoardDeps {
  ladders: { require(id: string | undefined): LadderRuntime };
  reads: Pick<LadderReads, "leaderboard">;
  botDirectory: Pick<BotDirectory, "snapshot">;
}

/** A leaderboard row's place in the rating book. */
interface Board {
  ladder: LadderRuntime;
  rows: LeaderboardRow[];
  keys: string[];
  /** Identifies the fit and the rows: changes after each rated game, new ranked version or rename. */
  signature: string;
}

interface Kept {
  signature: string;
  /** By `name\tversion`. */
  intervals: Map<string, RankInterval>;
  /** performance.now() when it ended, and how long it took. */
  endedAt: number;
  costMs: number;
}

export interface Rival {
  rank: number;
  name: string;
  display_name: string;
  version: string;
  rating: number;
  rating_deviation: number;
  /** The bot's chance to beat this rival, with its interval. */
  win: WinChance;
}

/** A leaderboard row with its 95 % rank interval (null until computed). */
export type RankedRow = LeaderboardRow & { rank_low: number | null; rank_high: number | null };

export interface Heatmap {
  rows: RankedRow[];
  /** wins[i][j]: the chance that rows[i] beats rows[j]; null on the diagonal. */
  wins: (WinChance | null)[][];
}

const rowKey = (r: Pick<LeaderboardRow, "name" | "version">) => `${r.name}\t${r.version}`;

export class BoardInsight {
  private readonly kept = new Map<string, Kept>();
  /**
   * Each leaderboard answer's keys and signature, by the answer's identity: the reads hand back the same frozen
   * array until a result, a bot change or who is online changes it (server/ratings/leaderboard.ts), so a page
   * view does not rebuild 2,000 keys and a 2,000-line signature (issue 38).
   */
  private readonly boards = new WeakMap<readonly LeaderboardRow[], Board>();
  /** Each kept board's rivals answers by bot name (a bot page asks for the same ones until the board changes). */
  private readonly rivalsOf = new WeakMap<
    Board,
    Map<string, { row: LeaderboardRow; rivals: Rival[] } | null>
  >();
  private readonly running = new Map<string, Promise<Kept>>();
  /** rankedRows' answer by the board it ranks, with the intervals' computation it took them from. */
  private readonly ranked = new WeakMap<
    readonly LeaderboardRow[],
    { intervalSet: object | null; rows: readonly RankedRow[] }
  >();
  /** heatmap's answer by the board, with the intervals' computation and the size it was made for. */
  private readonly heatmaps = new WeakMap<
    readonly LeaderboardRow[],
    { intervalSet: object | null; top: number; map: Heatmap }
  >();

  constructor(private readonly d: BoardDeps) {}

  private async board(ladderId: string | undefined): Promise<Board> {
    const ladder = this.d.ladders.require(ladderId);
    const [rows, dir] = await Promise.all([
      this.d.reads.leaderboard(ladder.id),
      this.d.botDirectory.snapshot(),
    ]);
    const known = this.boards.get(rows);
    if (known && known.ladder === ladder) return known;
    const idOf = new Map(dir.bots.map((b) => [b.name, b.id]));
    const keys = rows.map((r) => versionKey(idOf.get(r.name) ?? r.name, r.version));
    const signature = keys.map((k, i) => `${k}:${ladder.ratings.ratingOf(k)}:${rows[i]!.name}`).join("\n");
    const board = { ladder, rows, keys, signature };
    if (Object.isFrozen(rows)) this.boards.set(rows, board);
    return board;
  }

  private input(b: Board): RatingsInput {
    const fitted = b.keys.map((k) => b.ladder.ratings.get(k));
    return {
      rating: fitted.map((f) => f.rating),
      deviation: fitted.map((f) => f.deviation),
      covariance: b.ladder.ratings.covariance(b.keys),
    };
  }

  /** Each leaderboard row's 95 % rank interval, by `name\tversion` (see the header for when it is fresh). */
  async intervals(ladderId: string | undefined): Promise<
    Board & {
      of(r: Pick<LeaderboardRow, "name" | "version">): RankInterval | null;
      /** The intervals' identity: the same object until they are recomputed (null: none yet). */
      intervalSet: object | null;
    }
  > {
    const b = await this.board(ladderId);
    const id = b.ladder.id;
    let k = this.kept.get(id);
    if (k?.signature !== b.signature) {
      const fresh = !k || k.costMs < FRESH_MS;
      const due = !k || performance.now() - k.endedAt >= COST_FACTOR * k.costMs;
      if (fresh) k = await this.compute(b);
      else if (due && !this.running.has(id)) void this.compute(b).catch(() => undefined);
    }
    const got = k;
    return { ...b, intervalSet: got?.intervals ?? null, of: (r) => got?.intervals.get(rowKey(r)) ?? null };
  }

  /**
   * The leaderboard with each row's rank interval (GET /api/leaderboard): frozen, and the same array while
   * the board and its intervals are the same, so its 2,000 rows are not mapped (nor serialised) per request.
   */
  async rankedRows(ladderId: string | undefined): Promise<readonly RankedRow[]> {
    const b = await this.intervals(ladderId);
    const kept = this.ranked.get(b.rows);
    if (kept && kept.intervalSet === b.intervalSet) return kept.rows;
    const rows = Object.freeze(
      b.rows.map((r) => {
        const i = b.of(r);
        return { ...r, rank_low: i?.low ?? null, rank_high: i?.high ?? null };
      }),
    );
    if (Object.isFrozen(b.rows)) this.ranked.set(b.rows, { intervalSet: b.intervalSet, rows });
    return rows;
  }

  /** One computation per ladder at a time; a second ask for the same board waits for it. */
  private compute(b: Board): Promise<Kept> {
    const id = b.ladder.id;
    const already = this.running.get(id);
    if (already) return already;
    const run = (async () => {
      const t0 = performance.now();
      const found = await rankIntervalsInSlices(this.input(b));
      const endedAt = performance.now();
      const k: Kept = {
        signature: b.signature,
        intervals: new Map(b.rows.map((r, i) => [rowKey(r), found[i]!])),
        endedAt,
        costMs: endedAt - t0,
      };
      this.kept.set(id, k);
      return k;
    })().finally(() => this.running.delete(id));
    this.running.set(id, run);
    return run;
  }

  /**
   * The bot's ranked version's chance to beat the RIVALS ranked versions nearest it in rating, nearest first,
   * and its own row; null when the bot has no ranked version on the ladder.
   */
  async rivals(
    ladderId: string | undefined,
    name: string,
  ): Promise<{ row: LeaderboardRow; rivals: Rival[] } | null> {
    const b = await this.board(ladderId);
    let kept = this.rivalsOf.get(b);
    if (kept?.has(name)) return kept.get(name)!;
    const answer = this.nearest(b, name);
    if (this.boards.get(b.rows) === b) {
      if (!kept || kept.size >= 256) {
        kept = new Map();
        this.rivalsOf.set(b, kept);
      }
      kept.set(name, answer);
    }
    return answer;
  }

  private nearest(b: Board, name: string): { row: LeaderboardRow; rivals: Rival[] } | null {
    const me = b.rows.findIndex((r) => r.name === name);
    if (me < 0) return null;
    const book = b.ladder.ratings;
    const rating = (i: number) => book.ratingOf(b.keys[i]!);
    const near = b.rows
      .map((_, i) => i)
      .filter((i) => i !== me)
      .sort((x, y) => Math.abs(rating(x) - rating(me)) - Math.abs(rating(y) - rating(me)) || x - y)
      .slice(0, RIVALS);
    const sub = [me, ...near];
    const input = this.input({ ...b, keys: sub.map((i) => b.keys[i]!), rows: sub.map((i) => b.rows[i]!) });
    return {
      row: b.rows[me]!,
      rivals: near.map((i, n) => {
        const r = b.rows[i]!;
        return {
          rank: r.rank,
          name: r.name,
          display_name: r.display_name,
          version: r.version,
          rating: r.rating,
          rating_deviation: r.rating_deviation,
          win: winChance(input, 0, n + 1),
        };
      }),
    };
  }

  /** The top `top` rows and the chance that each beats each other: the dashboard's heat map. */
  async heatmap(ladderId: string | undefined, top = HEATMAP_TOP): Promise<Heatmap> {
    const b = await this.intervals(ladderId);
    const kept = this.heatmaps.get(b.rows);
    if (kept && kept.intervalSet === b.intervalSet && kept.top === top) return kept.map;
    const map = this.heatmapOf(b, top);
    if (Object.isFrozen(b.rows)) this.heatmaps.set(b.rows, { intervalSet: b.intervalSet, top, map });
    return map;
  }

  private heatmapOf(b: Board & { of(r: LeaderboardRow): RankInterval | null }, top: number): Heatmap {
    const n = Math.min(top, b.rows.length);
    const keys = b.keys.slice(0, n);
    const rows = b.rows.slice(0, n);
    const input = this.input({ ...b, keys, rows });
    return {
      rows: rows.map((r) => {
        const i = b.of(r);
        return { ...r, rank_low: i?.low ?? null, rank_high: i?.high ?? null };
      }),
      wins: rows.map((_, a) => rows.map((_, c) => (a === c ? null : winChance(input, a, c)))),
    };
  }
}
