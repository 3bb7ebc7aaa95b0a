// Storage: the same suite against embedded PGlite (always, in temp dirs) and against PostgreSQL when
// DATABASE_URL is set (each fresh database is a new schema, selected through the connection's search_path
// and dropped at the end).
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BotStore, NameTakenError } from "../../server/bots/bot-store.ts";
import { loadMigrations, migrate } from "../../server/db/migrate.ts";
import { type DbPlace, openDb } from "../../server/db/open.ts";
import { RatingStore } from "../../server/ratings/rating-store.ts";
import { MatchStore } from "../../server/results/match-store.ts";
import { openStore } from "../../server/store/sql-store.ts";
import type { MatchRecord, Store } from "../../server/store/types.ts";
import { matchRecord, type Seat } from "../helpers/match-records.ts";
import { seedPglite } from "../helpers/pglite-template.ts";
import { DATABASE_URL_MISSING, skipAllIf } from "../helpers/skips.ts";

interface Target {
  driver: "pglite" | "pg";
  /** Why this target cannot run here (its tests are skipped with this reason), or null. */
  missing: string | null;
  /** A place holding an empty database. */
  fresh(): Promise<DbPlace>;
}

const tempDirs: string[] = [];
const schemas: string[] = [];
const rand = () => Math.random().toString(36).slice(2, 10);
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "ladder-store-"));
  tempDirs.push(d);
  return d;
};

// The PGlite places start from a copy of the run's bare template cluster (test/helpers/pglite-template.ts):
// these tests apply the migrations themselves.
const targets: Target[] = [
  { driver: "pglite", missing: null, fresh: async () => ({ dataDir: seedPglite(tempDir(), "cluster") }) },
];
const pgUrl = process.env.DATABASE_URL;
targets.push({
  driver: "pg",
  missing: DATABASE_URL_MISSING,
  async fresh() {
    if (!pgUrl) throw new Error("DATABASE_URL is not set");
    const schema = `test_${rand()}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    await admin.end();
    schemas.push(schema);
    const url = new URL(pgUrl);
    url.searchParams.set("options", `-c search_path=${schema}`);
    return { databaseUrl: url.toString(), dataDir: tempDir() };
  },
});

afterAll(async () => {
  if (pgUrl && schemas.length) {
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await admin.end();
  }
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

const KNOWN = Math.max(...loadMigrations().map((m) => m.version));
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
let counter = 0;
const uniq = (base: string) => `${base}_${++counter}${rand().slice(0, 4)}`;

describe.each(targets)("Db on $driver", (target) => {
  skipAllIf(target.missing);
  it("keeps a transaction whole: other statements wait or see nothing of it", async () => {
    const db = await openDb(await target.fresh());
    try {
      await db.exec("CREATE TABLE t (n integer); CREATE TABLE u (n integer)");
      const failing = db.tx(async (q) => {
        await q.query("INSERT INTO t VALUES (1)");
        await new Promise((r) => setTimeout(r, 50));
        throw new Error("boom");
      });
      const seen = db.query<{ c: number }>("SELECT count(*)::int AS c FROM t");
      await expect(failing).rejects.toThrow("boom");
      expect((await seen)[0].c).toBe(0);
      expect((await db.query<{ c: number }>("SELECT count(*)::int AS c FROM t"))[0].c).toBe(0);
      const n = await db.tx(async (q) => {
        await q.query("INSERT INTO u VALUES ($1), ($2)", [1, 2]);
        return (await q.query<{ c: number }>("SELECT count(*)::int AS c FROM u"))[0].c;
      });
      expect(n).toBe(2);
    } finally {
      await db.close();
    }
  });

  // PGlite only (one connection, so nesting could hang): defined for that driver, not skipped for the other.
  if (target.driver === "pglite")
    it("refuses the outer Db inside its own transaction instead of hanging", async () => {
      const db = await openDb(await target.fresh());
      try {
        await expect(db.tx(() => db.query("SELECT 1"))).rejects.toThrow(/transaction handle/);
        expect(await db.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
      } finally {
        await db.close();
      }
    });
});

describe.each(targets)("Store on $driver", (target) => {
  skipAllIf(target.missing);
  let store: Store;
  let botStore: BotStore;
  let matchStore: MatchStore;
  beforeAll(async () => {
    if (target.missing) return;
    store = await openStore(await target.fresh());
    botStore = new BotStore(store);
    matchStore = new MatchStore(store);
  });
  afterAll(async () => {
    await store?.close();
  });

  describe("migrations", () => {
    it("applies every migration, records each, and reports the schema number", async () => {
      expect(store.driver).toBe(target.driver);
      expect(store.schema).toBe(KNOWN);
      const place = await target.fresh();
      const s = await openStore(place);
      await s.close();
      const again = await openStore(place); // already migrated: nothing to do
      expect(again.schema).toBe(KNOWN);
      await again.close();
      const db = await openDb(place);
      const rows = await db.query<{ version: number }>(
        "SELECT version FROM schema_migrations ORDER BY version",
      );
      await db.close();
      expect(rows.map((r) => r.version)).toEqual(loadMigrations().map((m) => m.version));
    });

    // PostgreSQL only (several connections at once): defined for that driver, not skipped for the other.
    if (target.driver === "pg")
      it("migrates safely when several servers open at once", async () => {
        const place = await target.fresh();
        const stores = await Promise.all([openStore(place), openStore(place), openStore(place)]);
        expect(stores.map((s) => s.schema)).toEqual([KNOWN, KNOWN, KNOWN]);
        await Promise.all(stores.map((s) => s.close()));
      });

    it("fills the stored stats flag of matches stored before it existed (0013)", async () => {
      const place = await target.fresh();
      const db = await openDb(place);
      await migrate(
        db,
        loadMigrations().filter((m) => m.version < 13),
      );
      for (const id of ["with-stats", "without-stats"])
        await db.query(
          `INSERT INTO matches (id, ladder_id, mode, seed, map, ended, final_tick, reason, voided)
           VALUES ($1, 'public', 'ranked', 1, 'arena-21', now(), 10, 'last_standing', false)`,
          [id],
        );
      await db.query(
        `INSERT INTO match_stats (match_id, stats_version, stats) VALUES ('with-stats', 2, '{}'::jsonb)`,
      );
      await db.close();
      const s = await openStore(place);
      try {
        expect((await new MatchStore(s).match("with-stats"))?.has_stats).toBe(true);
        expect((await new MatchStore(s).match("without-stats"))?.has_stats).toBe(false);
      } finally {
        await s.close();
      }
    });

    it("refuses a database migrated by a newer build", async () => {
      const place = await target.fresh();
      await (await openStore(place)).close();
      const db = await openDb(place);
      await db.query("INSERT INTO schema_migrations (version, name) VALUES ($1, 'from_the_future')", [9999]);
      await db.close();
      await expect(openStore(place)).rejects.toThrow(
        `database schema 9999 is newer than this build knows (${KNOWN}); run a newer release or restore a compatible backup`,
      );
    });
  });

  it("keeps registrations, versions, tokens and matches across close and reopen", async () => {
    const place = await target.fresh();
    const s1 = await openStore(place);
    const { bot, token } = await new BotStore(s1).createBot({ name: "Keeper", owner: "alice", house: false });
    await new BotStore(s1).ensureVersion(bot.id, "v1", "first");
    const m = matchRecord(uniq("m"), [
      { id: bot.id, name: "Keeper" },
      { id: "b_other", name: "other" },
    ]);
    await new MatchStore(s1).saveMatch(m);
    await s1.close();

    const s2 = await openStore(place);
    try {
      expect(await new BotStore(s2).botByToken(token!)).toEqual(bot);
      expect((await new BotStore(s2).versions(bot.id)).map((v) => [v.label, v.notes])).toEqual([
        ["v1", "first"],
      ]);
      expect((await new MatchStore(s2).match(m.id))?.bots.map((b) => b.name)).toEqual(["Keeper", "other"]);
      expect(await new MatchStore(s2).matchStats(m.id)).toEqual(m.stats);
    } finally {
      await s2.close();
    }
    // Only the token's sha256 is at rest.
    const db = await openDb(place);
    const rows = await db.query<{ token_hash: string }>("SELECT token_hash FROM bots");
    await db.close();
    expect(rows).toEqual([{ token_hash: createHash("sha256").update(token!).digest("hex") }]);
  });

  describe("bots and tokens", () => {
    it("creates a bot with a one-time token and finds it by token and by name", async () => {
      const name = uniq("Alpha");
      const { bot, token } = await botStore.createBot({ name, owner: "alice", house: false });
      expect(token).toMatch(/^bt_[A-Za-z0-9_-]{32}$/);
      expect(bot).toMatchObject({ name, display_name: name, owner: "alice", house: false, status: "active" });
      expect(bot.id).toMatch(/^b_[A-Za-z0-9_-]{12}$/);
      expect(bot.avatar).toBeNull();
      expect(bot.created).toMatch(ISO);
      expect(await botStore.botByToken(token!)).toEqual(bot);
      expect(await botStore.botByName(name.toUpperCase())).toEqual(bot);
      expect(await botStore.botByToken("bt_nope")).toBeNull();
      expect(await botStore.botByName("nobody_here")).toBeNull();
    });

    it("gives house bots no token and keeps a display name", async () => {
      const name = uniq("house");
      const { bot, token } = await botStore.createBot({
        name,
        owner: "house",
        house: true,
        display_name: "Kiter",
      });
      expect(token).toBeNull();
      expect(bot).toMatchObject({ house: true, display_name: "Kiter" });
    });

    it("rotating a token retires the old one", async () => {
      const { bot, token } = await botStore.createBot({ name: uniq("rot"), owner: "alice", house: false });
      const fresh = await botStore.rotateToken(bot.id);
      expect(fresh).not.toBe(token);
      expect(await botStore.botByToken(token!)).toBeNull();
      expect((await botStore.botByToken(fresh))?.id).toBe(bot.id);
      await expect(botStore.rotateToken("b_missing")).rejects.toThrow(/no bot/);
    });

    it("refuses a taken name in any letter case", async () => {
      const name = uniq("Taken");
      await botStore.createBot({ name, owner: "alice", house: false });
      const err = await botStore
        .createBot({ name: name.toUpperCase(), owner: "bob", house: false })
        .catch((e) => e);
      expect(err).toBeInstanceOf(NameTakenError);
      expect((await botStore.botByName(name))?.owner).toBe("alice");
    });

    it("sets a bot's status", async () => {
      const { bot, token } = await botStore.createBot({ name: uniq("mod"), owner: "alice", house: false });
      await botStore.setBotStatus(bot.id, "suspended");
      expect((await botStore.botByToken(token!))?.status).toBe("suspended");
    });
  });

  describe("versions", () => {
    it("creates a version once and keeps its first notes", async () => {
      const { bot } = await botStore.createBot({ name: uniq("ver"), owner: "alice", house: false });
      const a = await botStore.ensureVersion(bot.id, "v1", "hello");
      expect(a.created).toBe(true);
      expect(a.version).toMatchObject({ bot_id: bot.id, label: "v1", notes: "hello", retired: false });
      expect(a.version.created).toMatch(ISO);
      const b = await botStore.ensureVersion(bot.id, "v1", "other notes");
      expect(b).toEqual({ version: a.version, created: false });
      const c = await botStore.ensureVersion(bot.id, "v2");
      expect(c.version.notes).toBe("");
      expect((await botStore.versions(bot.id)).map((v) => v.label)).toEqual(["v1", "v2"]);
    });

    it("retires a version, and reports an unknown label", async () => {
      const { bot } = await botStore.createBot({ name: uniq("ret"), owner: "alice", house: false });
      await botStore.ensureVersion(bot.id, "v1");
      expect(await botStore.retireVersion(bot.id, "v1")).toBe(true);
      expect(await botStore.retireVersion(bot.id, "v1")).toBe(true);
      expect(await botStore.retireVersion(bot.id, "nope")).toBe(false);
      expect((await botStore.versions(bot.id))[0].retired).toBe(true);
    });
  });

  describe("saving matches", () => {
    const seats = (): [Seat, Seat] => [
      { id: uniq("b"), name: uniq("p") },
      { id: uniq("b"), name: uniq("q") },
    ];

    it("round-trips every field, with timestamps as ISO UTC", async () => {
      const m = matchRecord(uniq("m"), seats(), { replay_file: "replays/x.jsonl.gz", note: "n" });
      await matchStore.saveMatch(m);
      const { stats: _stats, ...rest } = m;
      expect(await matchStore.match(m.id)).toEqual({
        ...rest,
        started: "2024-05-01T10:00:00.000Z",
        replay_trimmed: false,
        has_stats: true,
        pairing: null,
      });
      const bare = matchRecord(uniq("m"), seats(), {
        started: null,
        duration_ms: null,
        stats: null,
        winner_bot_id: null,
      });
      await matchStore.saveMatch(bare);
      expect(await matchStore.match(bare.id)).toMatchObject({
        started: null,
        duration_ms: null,
        has_stats: false,
      });
      expect(await matchStore.match("no_such")).toBeNull();
    });

    it("writes a result once: a second save changes nothing and does not throw", async () => {
      const m = matchRecord(uniq("m"), seats());
      await matchStore.saveMatch(m);
      await matchStore.saveMatch({ ...m, reason: "changed", bots: [...m.bots].reverse(), stats: null });
      const got = await matchStore.match(m.id);
      expect(got?.reason).toBe("last_standing");
      expect(got?.bots.map((b) => b.fighter)).toEqual([0, 1]);
      expect(await matchStore.matchStats(m.id)).toEqual(m.stats);
    });

    it("leaves nothing behind when part of the write fails", async () => {
      const m = matchRecord(uniq("m"), seats());
      const clash = { ...m, bots: m.bots.map((b) => ({ ...b, fighter: 0 })) }; // second child row violates the key
      await expect(matchStore.saveMatch(clash)).rejects.toThrow();
      expect(await matchStore.match(m.id)).toBeNull();
      const unserialisable = { ...m, stats: { ...m.stats!, seed: 1n as unknown as number } };
      await expect(matchStore.saveMatch(unserialisable)).rejects.toThrow();
      expect(await matchStore.match(m.id)).toBeNull();
      await matchStore.saveMatch(m); // and the id is still free
      expect((await matchStore.match(m.id))?.bots).toHaveLength(2);
    });

    it("saves a batch in one statement: each result once, stored ones and repeats skipped", async () => {
      const stored = matchRecord(uniq("m"), seats());
      await matchStore.saveMatch(stored);
      const a = matchRecord(uniq("m"), seats());
      const b = matchRecord(uniq("m"), seats(), { stats: null });
      const c = matchRecord(uniq("m"), seats(), { note: "c" });
      await matchStore.saveMatches([a, { ...stored, reason: "changed" }, b, { ...a, reason: "repeat" }, c]);
      for (const m of [a, b, c]) {
        const got = await matchStore.match(m.id);
        expect(got?.reason).toBe(m.reason);
        expect(got?.bots.map((x) => x.bot_id)).toEqual(m.bots.map((x) => x.bot_id));
        expect(await matchStore.matchStats(m.id)).toEqual(m.stats);
      }
      expect((await matchStore.match(stored.id))?.reason).toBe("last_standing");
      await matchStore.saveMatches([]);
      // A batch with no bot rows and no stats at all is still one valid statement.
      const lone = matchRecord(uniq("m"), seats(), { bots: [], stats: null });
      await matchStore.saveMatches([lone]);
      expect(await matchStore.match(lone.id)).toMatchObject({ id: lone.id, bots: [], has_stats: false });
    });

    it("a batch with one bad result stores none of them", async () => {
      const good = matchRecord(uniq("m"), seats());
      const bad = matchRecord(uniq("m"), seats());
      const clash = { ...bad, bots: bad.bots.map((x) => ({ ...x, fighter: 0 })) };
      await expect(matchStore.saveMatches([good, clash])).rejects.toThrow();
      expect(await matchStore.match(good.id)).toBeNull();
      expect(await matchStore.match(bad.id)).toBeNull();
    });
  });

  describe("reading matches", () => {
    const ladder = uniq("lad");
    const other = uniq("lad");
    const a: Seat = { id: uniq("b"), name: uniq("Ann") };
    const b: Seat = { id: uniq("b"), name: uniq("Ben") };
    const c: Seat = { id: uniq("b"), name: uniq("Cid") };
    const ms: MatchRecord[] = [];
    beforeAll(async () => {
      if (target.missing) return;
      // Register "Ann" under the stored id so the filter goes by id.
      const reg = await botStore.createBot({ name: a.name, owner: "alice", house: false });
      a.id = reg.bot.id;
      const plan: [Seat, Seat, string][] = [
        [a, b, ladder],
        [b, c, ladder],
        [a, c, other],
        [c, a, ladder],
        [a, b, ladder],
      ];
      for (const [x, y, l] of plan) {
        const m = matchRecord(uniq("m"), [x, y], { ladder_id: l });
        ms.push(m);
        await matchStore.saveMatch(m);
      }
    });

    it("lists newest first, filtered by ladder and bot name in any case, up to the limit", async () => {
      const ids = async (q: Parameters<MatchStore["matches"]>[0]) =>
        (await matchStore.matches(q)).map((m) => m.id);
      expect(await ids({ ladder, limit: 500 })).toEqual([ms[4], ms[3], ms[1], ms[0]].map((m) => m.id));
      expect(await ids({ ladder, limit: 2 })).toEqual([ms[4], ms[3]].map((m) => m.id));
      expect(await ids({ botName: a.name.toUpperCase(), limit: 500 })).toEqual(
        [ms[4], ms[3], ms[2], ms[0]].map((m) => m.id),
      );
      expect(await ids({ botName: a.name, ladder: other, limit: 500 })).toEqual([ms[2].id]);
      // Ben is not a registered bot: found by the name stored with each match.
      expect(await ids({ botName: b.name.toLowerCase(), ladder, limit: 1 })).toEqual([ms[4].id]);
      expect((await matchStore.matches({ limit: 3 })).length).toBe(3);
      const [first] = await matchStore.matches({ ladder, limit: 1 });
      expect(first.bots.map((x) => x.name)).toEqual([a.name, b.name]);
      expect(first.has_stats).toBe(true);
    });

    it("follows the registered bot's id, not an old name another bot used", async () => {
      const name = uniq("Dee");
      const impostor = matchRecord(uniq("m"), [
        { id: "b_someone_else", name },
        { id: uniq("b"), name: uniq("x") },
      ]);
      await matchStore.saveMatch(impostor);
      const reg = await botStore.createBot({ name, owner: "alice", house: false });
      expect(await matchStore.matches({ botName: name, limit: 10 })).toEqual([]);
      const own = matchRecord(uniq("m"), [
        { id: reg.bot.id, name },
        { id: uniq("b"), name: uniq("x") },
      ]);
      await matchStore.saveMatch(own);
      expect((await matchStore.matches({ botName: name, limit: 10 })).map((m) => m.id)).toEqual([own.id]);
    });

    it("hides stats of voided matches", async () => {
      const v = matchRecord(uniq("m"), [a, b], { voided: true, winner_bot_id: null, note: "worker crashed" });
      await matchStore.saveMatch(v);
      expect((await matchStore.match(v.id))?.has_stats).toBe(true);
      expect(await matchStore.matchStats(v.id)).toBeNull();
      expect(await matchStore.matchStats(ms[0].id)).toEqual(ms[0].stats);
      expect(await matchStore.matchStats("no_such")).toBeNull();
    });
  });

  describe("per-version summaries", () => {
    it("versionStats: latest matches of that version with current stats, not voided, with the bot's fighter", async () => {
      const me: Seat = { id: uniq("b"), name: uniq("me"), version: "v2" };
      const foe: Seat = { id: uniq("b"), name: uniq("foe") };
      const m1 = matchRecord(uniq("m"), [me, foe]);
      const m2 = matchRecord(uniq("m"), [foe, me]);
      const old = matchRecord(uniq("m"), [me, foe]);
      (old.stats as { stats_version: number }).stats_version = 1;
      const voided = matchRecord(uniq("m"), [me, foe], { voided: true });
      const otherVersion = matchRecord(uniq("m"), [{ ...me, version: "v1" }, foe]);
      const noStats = matchRecord(uniq("m"), [me, foe], { stats: null });
      for (const m of [m1, m2, old, voided, otherVersion, noStats]) await matchStore.saveMatch(m);
      const got = await matchStore.versionStats(me.id, "v2", 500);
      expect(got.map((g) => [g.fighter, g.stats.fighters[g.fighter].name])).toEqual([
        [1, me.name],
        [0, me.name],
      ]);
      expect(got[0].stats).toEqual(m2.stats);
      expect(await matchStore.versionStats(me.id, "v2", 1)).toHaveLength(1);
    });

    it("versionRecords: wins, losses and draws per version over rated, non-voided matches", async () => {
      const suffix = rand();
      const me = (version: string): Seat => ({ id: "b_rec_" + suffix, name: "rec" + suffix, version });
      const foe: Seat = { id: uniq("b"), name: uniq("foe") };
      const saves = [
        matchRecord(uniq("m"), [me("v1"), foe], { winner_bot_id: "b_rec_" + suffix }),
        matchRecord(uniq("m"), [foe, me("v1")], { winner_bot_id: "b_rec_" + suffix }),
        matchRecord(uniq("m"), [foe, me("v1")], { winner_bot_id: foe.id }),
        matchRecord(uniq("m"), [me("v1"), foe], { winner_bot_id: null }),
        matchRecord(uniq("m"), [me("v2"), foe], { winner_bot_id: foe.id }),
        matchRecord(uniq("m"), [me("v2"), foe], { winner_bot_id: null, voided: true }),
        matchRecord(uniq("m"), [me("v2"), foe], { mode: "human" }),
      ];
      for (const m of saves) await matchStore.saveMatch(m);
      const rec = await new RatingStore(store).versionRecords("b_rec_" + suffix);
      expect(Object.fromEntries(rec)).toEqual({
        v1: { wins: 2, losses: 1, draws: 1 },
        v2: { wins: 0, losses: 1, draws: 0 },
      });
      expect((await new RatingStore(store).versionRecords("b_nobody")).size).toBe(0);
    });
  });

  it("trims replays beyond each player's newest, keeping stats for health", async () => {
    const s = await openStore(await target.fresh());
    try {
      const p1: Seat = { id: "b_p1", name: "p1" };
      const p2: Seat = { id: "b_p2", name: "p2" };
      const h1: Seat = { id: "b_h1", name: "h1", house: true };
      const h2: Seat = { id: "b_h2", name: "h2", house: true };
      const plan: [Seat, Seat][] = [
        [p1, h1], // r0: p1's 4th newest replay -> trimmed although h1 is busy
        [p1, h1], // r1: p1's 3rd -> trimmed
        [p1, h1], // r2: p1's 2nd -> kept
        [p2, p1], // r3: newest of both -> kept
        [h1, h2], // r4: house-only, 3rd newest of both house bots -> trimmed
        [h1, h2], // r5: kept
        [h2, h1], // r6: kept
      ];
      const ms: MatchRecord[] = [];
      for (const [i, seats] of plan.entries()) {
        ms.push(matchRecord(uniq("m"), seats, { replay_file: `replays/r${i}.jsonl.gz` }));
      }
      ms.push(matchRecord(uniq("m"), [p1, h1], { replay_file: null })); // no replay: not counted, nothing to trim
      for (const m of ms) await new MatchStore(s).saveMatch(m);

      expect((await new MatchStore(s).trimReplays(2)).sort()).toEqual([
        "replays/r0.jsonl.gz",
        "replays/r1.jsonl.gz",
        "replays/r4.jsonl.gz",
      ]);
      expect(await new MatchStore(s).trimReplays(2)).toEqual([]);
      expect(ms.map((m) => m.id)).toHaveLength(8);
      const trimmed = await Promise.all(
        ms.map(async (m) => (await new MatchStore(s).match(m.id))?.replay_trimmed),
      );
      expect(trimmed).toEqual([true, true, false, false, true, false, false, false]);
      expect(await new MatchStore(s).matchStats(ms[0].id)).toBeNull();
      expect(await new MatchStore(s).matchStats(ms[2].id)).toEqual(ms[2].stats);
      expect((await new MatchStore(s).match(ms[0].id))?.has_stats).toBe(true);
      expect(await new MatchStore(s).versionStats(p1.id, "v1", 500)).toHaveLength(5);
    } finally {
      await s.close();
    }
  });
});
