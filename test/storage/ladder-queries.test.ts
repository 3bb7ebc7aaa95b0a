// The competitive core's queries: rated results, seats, rating history, quota counts and the audit log, on
// PGlite always and on PostgreSQL when DATABASE_URL is set.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditStore } from "../../server/admin/audit-store.ts";
import { BotStore } from "../../server/bots/bot-store.ts";
import { RatingStore } from "../../server/ratings/rating-store.ts";
import { MatchStore } from "../../server/results/match-store.ts";
import { openStore } from "../../server/store/sql-store.ts";
import type { BotRow, MatchRecord, Store } from "../../server/store/types.ts";
import { seedPglite } from "../helpers/pglite-template.ts";
import { freshDatabaseUrl } from "../helpers/server.ts";
import { DATABASE_URL_MISSING, skipAllIf } from "../helpers/skips.ts";

// The PostgreSQL variant is always listed: skipped, with its reason, when DATABASE_URL is not set.
const drivers = ["pglite", "pg"];

describe.each(drivers)("ladder queries on %s", (driver) => {
  const missing = driver === "pg" ? DATABASE_URL_MISSING : null;
  skipAllIf(missing);
  let store: Store;
  let botStore: BotStore;
  let matchStore: MatchStore;
  let ratings: RatingStore;
  let dir: string;
  let drop = async () => {};
  let a: BotRow;
  let b: BotRow;
  let h: BotRow;

  const match = (id: string, fighters: [BotRow, string][], o: Partial<MatchRecord> = {}): MatchRecord => ({
    id,
    ladder_id: "public",
    mode: "ranked",
    seed: 1,
    map: "arena-21",
    started: new Date().toISOString(),
    ended: new Date().toISOString(),
    duration_ms: 10,
    final_tick: 50,
    reason: "last_standing",
    winner_bot_id: fighters[0]![0].id,
    voided: false,
    note: null,
    bots: fighters.map(([bot, version], fighter) => ({
      fighter,
      bot_id: bot.id,
      name: bot.name,
      display_name: bot.display_name,
      version,
      house: bot.house,
      avatar: null,
      rating_before: 1500,
      rating_after: fighter === 0 ? 1510 : 1490,
    })),
    stats: null,
    replay_file: null,
    ...o,
  });

  beforeAll(async () => {
    if (missing) return;
    dir = mkdtempSync(join(tmpdir(), "ladder-q-"));
    if (driver === "pg") {
      const db = await freshDatabaseUrl();
      drop = db.drop;
      store = await openStore({ databaseUrl: db.url!, dataDir: dir });
    } else store = await openStore({ dataDir: seedPglite(dir) });
    ratings = new RatingStore(store);
    botStore = new BotStore(store);
    matchStore = new MatchStore(store);
    a = (await botStore.createBot({ name: "alpha", owner: "ann", house: false })).bot;
    b = (await botStore.createBot({ name: "beta", owner: "bob", house: false })).bot;
    h = (await botStore.createBot({ name: "house-x", owner: "house", house: true })).bot;
    await matchStore.saveMatch(
      match("m1", [
        [a, "v1"],
        [h, "1"],
      ]),
    );
    await matchStore.saveMatch(
      match(
        "m2",
        [
          [b, "v1"],
          [a, "v2"],
        ],
        { winner_bot_id: null, reason: "timeout_draw" },
      ),
    );
    await matchStore.saveMatch(
      match(
        "m3",
        [
          [a, "v2"],
          [b, "v1"],
        ],
        { voided: true, reason: "voided", winner_bot_id: null },
      ),
    );
    await matchStore.saveMatch(
      match(
        "m4",
        [
          [a, "v2"],
          [b, "v1"],
        ],
        { mode: "human" },
      ),
    );
  });
  afterAll(async () => {
    if (missing) return;
    await store.close();
    await drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists rated results only, oldest first, with both sides", async () => {
    const r = await ratings.ratedResults("public");
    expect(r.map((x) => x.match_id)).toEqual(["m1", "m2"]);
    expect(r[0]!.seq).toBeLessThan(r[1]!.seq!);
    expect(r[0]).toEqual({
      match_id: "m1",
      seq: r[0]!.seq,
      map: "arena-21",
      winner: a.id,
      bots: [
        { bot_id: a.id, version: "v1", house: false },
        { bot_id: h.id, version: "1", house: true },
      ],
    });
    expect(r[1]!.winner).toBeNull();
    // After an order number: only the later results (the rating snapshot's tail, server/ratings/book-start.ts).
    expect((await ratings.ratedResults("public", r[0]!.seq)).map((x) => x.match_id)).toEqual(["m2"]);
    expect(await ratings.countRatedResults("public", r[0]!.seq!)).toBe(1);
    expect(await ratings.countRatedResults("public", r[1]!.seq!)).toBe(2);
  });

  it("finds bots, counts active ones and seat balance", async () => {
    expect((await botStore.botById(a.id))?.name).toBe("alpha");
    expect(await botStore.botById("nope")).toBeNull();
    // Ordered by creation time, then id: bots made in the same millisecond may come in either order.
    expect((await botStore.allBots()).map((x) => x.name).sort()).toEqual(["alpha", "beta", "house-x"]);
    expect(await botStore.countActiveBots("ann")).toBe(1);
    const seats = await matchStore.seatBalance();
    expect(seats.get(a.id)).toBe(2); // fighter 0 in m1, m3, m4; fighter 1 in m2
    expect(seats.get(b.id)).toBe(-1); // fighter 0 in m2; fighter 1 in m3, m4
  });

  it("gives the last rated play per version and the rating history with opponents", async () => {
    const last = await ratings.lastRatedPlay("public");
    expect(last.get(JSON.stringify([a.id, "v2"]))).toBeGreaterThan(last.get(JSON.stringify([a.id, "v1"]))!);
    const points = await ratings.ratingPoints(a.id, "public", null);
    expect(points.map((p) => [p.match_id, p.version, p.rating_after, p.opponent.name])).toEqual([
      ["m1", "v1", 1510, "house-x"],
      ["m2", "v2", 1490, "beta"],
    ]);
    expect(await ratings.ratingPoints(a.id, "public", new Date(Date.now() + 60_000).toISOString())).toEqual(
      [],
    );
  });

  it("counts recent starts per bot and owner, and versions created", async () => {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const s = await matchStore.startsSince(since);
    expect(s.byBot.get(a.id)).toBe(4);
    expect(s.byOwner.get("bob")).toBe(3);
    expect(s.byBot.has(h.id)).toBe(false);
    await botStore.ensureVersion(a.id, "v1");
    await botStore.ensureVersion(a.id, "v2");
    expect(await botStore.versionsCreatedSince(a.id, since)).toBe(2);
  });

  it("gives a version's latest ratings, oldest first, from rated games only (sparklines)", async () => {
    expect(await ratings.ratingTail(a.id, "v1", "public", 30)).toEqual([1510]);
    // m3 (voided) and m4 (human) have a's v2 too, but are not rated games.
    expect(await ratings.ratingTail(a.id, "v2", "public", 30)).toEqual([1490]);
    expect(await ratings.ratingTail(a.id, "v2", "elsewhere", 30)).toEqual([]);
    // Only the tail: the newest `limit` games, in play order. On a ladder of its own, so the tests above keep
    // their counts.
    for (const [i, seat] of [0, 1, 0].entries())
      await matchStore.saveMatch(
        match(
          `tail${i}`,
          seat === 0
            ? [
                [b, "v7"],
                [h, "1"],
              ]
            : [
                [h, "1"],
                [b, "v7"],
              ],
          { ladder_id: "tail" },
        ),
      );
    expect(await ratings.ratingTail(b.id, "v7", "tail", 2)).toEqual([1490, 1510]);
  });

  it("keeps an audit log, newest first, filterable by kind", async () => {
    const log = new AuditStore(store.db);
    await log.audit("registration", "alpha", { owner: "ann" });
    await log.audit("throttle", "alpha", { reason: "hourly_quota" });
    const all = await log.auditEntries(null, 10);
    expect(all.map((e) => e.kind)).toEqual(["throttle", "registration"]);
    const reg = await log.auditEntries("registration", 10);
    expect(reg).toHaveLength(1);
    expect(reg[0]).toMatchObject({ subject: "alpha", detail: { owner: "ann" } });
  });
});
