// The matchups of a ladder's top versions (issue 33, part 3): each leaderboard row's rank interval among all
// ranked versions, and for each pair of the top N the chance that the row beats the column, with its
// interval. Reads the ladder's leaderboard and rating book; the numbers come from uncertainty.ts. One answer
// is kept per ladder until its leaderboard (ratings and rows) changes: the rank simulation ranks every
// ranked version, a few hundred milliseconds at 2,000 of them (run in slices, so sockets are served in
// between), and a page may ask many times between games. Asks that arrive while one is being computed wait
// for it rather than starting their own.
import type { BotDirectory } from "../bots/directory.ts";
import type { LadderRuntime } from "../ladders/runtime.ts";
import { versionKey } from "../ratings/book.ts";
import type { LeaderboardRow } from "../ratings/leaderboard.ts";
import type { LadderReads } from "../reads/reads.ts";
import {
  CONFIDENCE,
  DRAWS,
  type Method,
  methodOf,
  type RatingsInput,
  rankIntervalsInSlices,
  type WinChance,
  winChance,
} from "./uncertainty.ts";

export interface MatchupVersion {
  rank: number;
  name: string;
  display_name: string;
  version: string;
  house: boolean;
  rating: number;
  rating_deviation: number;
  rank_low: number;
  rank_high: number;
}

export interface Matchups {
  ladder: string;
  /** Ranked versions on the leaderboard (the ranks' range). */
  ranked: number;
  confidence: number;
  method: Method;
  draws: number;
  versions: MatchupVersion[];
  /** wins[i][j]: the chance that versions[i] beats versions[j]; null on the diagonal. */
  wins: (WinChance | null)[][];
}

export interface MatchupDeps {
  ladders: { require(id: string | undefined): LadderRuntime };
  reads: Pick<LadderReads, "leaderboard">;
  botDirectory: Pick<BotDirectory, "snapshot">;
}

/** The most rows a matchups answer holds (the route's limit on `top`). */
export const MAX_TOP = 50;

const round = (x: number, places: number) => Number(x.toFixed(places));

export class MatchupService {
  private readonly cache = new Map<string, { key: string; answer: Promise<Matchups> }>();

  constructor(private readonly d: MatchupDeps) {}

  async matchups(ladderId: string, top: number): Promise<Matchups> {
    const ladder = this.d.ladders.require(ladderId);
    const rows = await this.d.reads.leaderboard(ladder.id);
    const dir = await this.d.botDirectory.snapshot();
    const idOf = new Map(dir.bots.map((b) => [b.name, b.id]));
    const keys = rows.map((r) => versionKey(idOf.get(r.name) ?? r.name, r.version));
    // Rows, names and exact ratings identify the answer: a rated game moves ratings, a new version or a
    // retirement moves rows, a rename changes what the answer shows.
    const key = keys
      .map((k, i) => `${k}:${ladder.ratings.ratingOf(k)}:${rows[i]!.name}:${rows[i]!.display_name}`)
      .join("\n");
    let hit = this.cache.get(ladder.id);
    if (hit?.key !== key) {
      // Computed for the largest top once, so asks for different N share it.
      const answer = this.compute(ladder, rows, keys, MAX_TOP);
      hit = { key, answer };
      this.cache.set(ladder.id, hit);
      // A failed computation is not kept: the next ask tries again.
      answer.catch(() => {
        if (this.cache.get(ladder.id)?.answer === answer) this.cache.delete(ladder.id);
      });
    }
    const all = await hit.answer;
    return {
      ...all,
      versions: all.versions.slice(0, top),
      wins: all.wins.slice(0, top).map((r) => r.slice(0, top)),
    };
  }

  private async compute(
    ladder: LadderRuntime,
    rows: readonly LeaderboardRow[],
    keys: readonly string[],
    top: number,
  ): Promise<Matchups> {
    const book = ladder.ratings;
    const fitted = keys.map((k) => book.get(k));
    const input: RatingsInput = {
      rating: fitted.map((f) => f.rating),
      deviation: fitted.map((f) => f.deviation),
      covariance: book.covariance(keys),
    };
    const shown = Array.from({ length: Math.min(top, rows.length) }, (_, i) => i);
    const intervals = await rankIntervalsInSlices(input, { only: shown });
    const answer: Matchups = {
      ladder: ladder.id,
      ranked: rows.length,
      confidence: CONFIDENCE,
      method: methodOf(input),
      draws: DRAWS,
      versions: shown.map((i) => {
        const r = rows[i]!;
        return {
          rank: r.rank,
          name: r.name,
          display_name: r.display_name,
          version: r.version,
          house: r.house,
          rating: r.rating,
          rating_deviation: r.rating_deviation,
          rank_low: intervals[i]!.low,
          rank_high: intervals[i]!.high,
        };
      }),
      wins: shown.map((a) =>
        shown.map((b) => {
          if (a === b) return null;
          const w = winChance(input, a, b);
          return { p: round(w.p, 4), low: round(w.low, 4), high: round(w.high, 4) };
        }),
      ),
    };
    return answer;
  }
}
