// Start-up from the rating book's snapshot (issue 38, server/ratings/book-start.ts): a current snapshot plus the
// results stored after it gives the same book as reading every result, and a stale snapshot falls back to the
// full rebuild. On PGlite always and on PostgreSQL when DATABASE_URL is set.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAP_NAMES } from "../../engine/rules.ts";
import { BotStore } from "../../server/bots/bot-store.ts";
import { RatingBook, ratedGame, versionKey } from "../../server/ratings/book.ts";
import { startBook } from "../../server/ratings/book-start.ts";
import { RatingStore } from "../../server/ratings/rating-store.ts";
import { MatchStore } from "../../server/results/match-store.ts";
import { openStore } from "../../server/store/sql-store.ts";
import type { BotRow, MatchRecord, Store } from "../../server/store/types.ts";
import { seedPglite } from "../helpers/pglite-template.ts";
import { freshDatabaseUrl } from "../helpers/server.ts";
import { DATABASE_URL_MISSING, skipAllIf } from "../helpers/skips.ts";

const drivers = ["pglite", "pg"];

describe.each(drivers)("rating book snapshot on %s", (driver) => {
  const missing = driver === "pg" ? DATABASE_URL_MISSING : null;
  skipAllIf(missing);
  let store: Store;
  let botStore: BotStore;
  let matchStore: MatchStore;
  let ratings: RatingStore;
  let dir: string;
  let drop = async () => {};
  const bots: BotRow[] = [];
  let n = 0;

  // Deterministic games: every pair of bots, two versions each, on every map, the winner by a fixed rule with
  // draws, so that the fit has real differences to find.
  const games = (count: number): MatchRecord[] =>
    Array.from({ length: count }, () => {
      const k = n++;
      const x = bots[k % bots.length]!;
      const y = bots[(k * 7 + 1 + Math.floor(k / bots.length)) % bots.length]!;
      const [p, q] = x.id === y.id ? [x, bots[(k + 1) % bots.length]!] : [x, y];
      const vp = `v${1 + (k % 2)}`;
      const vq = `v${1 + (Math.floor(k / 3) % 2)}`;
      const roll = (k * 2654435761) % 97;
      const winner = roll < 8 ? null : roll < 40 + 5 * bots.indexOf(p) ? p.id : q.id;
      const t = new Date(Date.UTC(2026, 0, 1) + k * 1000).toISOString();
      return {
        id: `m${k}`,
        ladder_id: "public",
        mode: "ranked",
        seed: k,
        map: MAP_NAMES[k % MAP_NAMES.length]!,
        started: t,
        ended: t,
        duration_ms: 10,
        final_tick: 50,
        reason: winner === null ? "timeout_draw" : "last_standing",
        winner_bot_id: winner,
        voided: false,
        note: null,
        bots: [
          [p, vp],
          [q, vq],
        ].map(([bot, version], fighter) => ({
          fighter,
          bot_id: (bot as BotRow).id,
          name: (bot as BotRow).name,
          display_name: (bot as BotRow).display_name,
          version: version as string,
          house: (bot as BotRow).house,
          avatar: null,
          rating_before: 1500,
          rating_after: 1500,
        })),
        stats: null,
        replay_file: null,
      };
    });

  /** The book the server built before snapshots: every stored result, one cold fit. */
  const fullBook = async () => {
    const book = new RatingBook();
    book.load((await ratings.ratedResults("public")).map(ratedGame));
    return book;
  };

  const expectSameBook = (got: RatingBook, want: RatingBook) => {
    for (const x of bots)
      for (const v of ["v1", "v2"]) {
        const key = versionKey(x.id, v);
        const [g, w] = [got.get(key), want.get(key)];
        expect(g.games).toBe(w.games);
        // The same optimum from a warm start: the fit stops within 0.002 rating points of it either way.
        expect(Math.abs(g.rating - w.rating)).toBeLessThan(0.005);
        expect(Math.abs(g.deviation - w.deviation)).toBeLessThan(0.005);
        for (const y of bots)
          for (const u of ["v1", "v2"]) {
            const other = versionKey(y.id, u);
            expect(got.facts(key, other).games).toBe(want.facts(key, other).games);
            expect(got.facts(key, other).score).toBe(want.facts(key, other).score);
            expect([...got.facts(key, other).mapGames]).toEqual([...want.facts(key, other).mapGames]);
          }
      }
  };

  beforeAll(async () => {
    if (missing) return;
    dir = mkdtempSync(join(tmpdir(), "rating-snap-"));
    if (driver === "pg") {
      const db = await freshDatabaseUrl();
      drop = db.drop;
      store = await openStore({ databaseUrl: db.url!, dataDir: dir });
    } else store = await openStore({ dataDir: seedPglite(dir) });
    ratings = new RatingStore(store);
    botStore = new BotStore(store);
    matchStore = new MatchStore(store);
    for (const [i, name] of ["alpha", "beta", "gamma", "delta", "house-x"].entries())
      bots.push((await botStore.createBot({ name, owner: `o${i}`, house: name.startsWith("house") })).bot);
  });
  afterAll(async () => {
    if (missing) return;
    await store.close();
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("builds in full and saves a snapshot, then starts from it plus the results stored after it", async () => {
    await matchStore.saveMatches(games(400));
    expect(await ratings.ratingSnapshot("public")).toBeNull();
    const first = new RatingBook();
    expect(await startBook(first, ratings, "public")).toEqual({ from: "full", stale: false, results: 400 });
    const snap = await ratings.ratingSnapshot("public");
    expect(snap?.results).toBe(400);
    expectSameBook(first, await fullBook());

    await matchStore.saveMatches(games(60));
    const second = new RatingBook();
    expect(await startBook(second, ratings, "public")).toEqual({ from: "snapshot", tail: 60 });
    expectSameBook(second, await fullBook());
    // A short tail leaves the snapshot as it was (it is rewritten from SNAPSHOT_AFTER results on).
    expect((await ratings.ratingSnapshot("public"))?.results).toBe(400);
  });

  it("falls back to the full rebuild on a stale snapshot, with the same ratings, and replaces it", async () => {
    const current = await ratings.ratingSnapshot("public");
    expect(current).not.toBeNull();
    // A snapshot that claims one result more than the database has up to its last match (as after results were
    // deleted or the database restored from an older dump): its book would give other ratings.
    const partial = new RatingBook();
    partial.load((await ratings.ratedResults("public")).slice(0, 100).map(ratedGame));
    await ratings.saveRatingSnapshot("public", {
      ...current!,
      results: current!.results + 1,
      book: partial.snapshot(),
    });
    const book = new RatingBook();
    expect(await startBook(book, ratings, "public")).toEqual({ from: "full", stale: true, results: 460 });
    expectSameBook(book, await fullBook());
    expect((await ratings.ratingSnapshot("public"))?.results).toBe(460);
    // Another format is stale too, even with the right count.
    const now = (await ratings.ratingSnapshot("public"))!;
    await ratings.saveRatingSnapshot("public", {
      ...now,
      book: now.book.replace('"format":1', '"format":0'),
    });
    const again = new RatingBook();
    expect(await startBook(again, ratings, "public")).toEqual({ from: "full", stale: true, results: 460 });
    expectSameBook(again, await fullBook());
  });

  it("the restored book, unfitted further, equals the book it was taken from", async () => {
    const want = await fullBook();
    const restored = new RatingBook();
    expect(restored.restore(want.snapshot())).toBe(true);
    restored.load([]);
    expectSameBook(restored, want);
    expect(restored.snapshot()).toBe(want.snapshot());
  });
});
