// Open data (issue 35, server/opendata/): the daily dumps of a ladder's rated results, served at /data. Rated
// games are stored over three days (with a voided and a human game that must stay out), the dump job writes
// the days that are over, a "crash" (a day's file lost, a half-written file left) and a restart on the same
// database and data dir write the missing days again byte for byte, and then the round trip: the served dumps,
// downloaded as a reader would, refitted by scripts/fit-ratings.mjs (standalone, run with node), give the
// served leaderboard's scores within one point. Also GET /api, llms.txt and the sitemap name the address.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUSE_BOTS } from "../../engine/house/index.ts";
import { MAP_NAMES } from "../../engine/rules.ts";
import type { OpenDataServices } from "../../server/opendata/routes.ts";
import type { BotRow, MatchRecord } from "../../server/store/types.ts";
import { prng } from "../helpers/prng.ts";
import { freshDatabaseUrl, startServer, type TestServer } from "../helpers/server.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const DAYS = ["2026-11-20", "2026-11-21", "2026-11-22"];
const tmp = mkdtempSync(join(tmpdir(), "open-data-"));
const dataDir = join(tmp, "data");
let db: Awaited<ReturnType<typeof freshDatabaseUrl>>;
let srv: TestServer;

const start = () => startServer({ dataDir, ...(db.url ? { databaseUrl: db.url } : {}) });
const openData = (): OpenDataServices => srv.app.ctx.openData;
const file = (day: string) => join(dataDir, "open-data", "public", `${day}.jsonl.gz`);
const lines = (path: string) =>
  gunzipSync(readFileSync(path))
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map(
      (l) => JSON.parse(l) as { match_id: string; time: string; result: string; seats: { bot: string }[] },
    );

/** Every stored rated game's id and day, for checking the files hold exactly those. */
const rated = new Map<string, string>();

beforeAll(async () => {
  mkdirSync(dataDir, { recursive: true });
  db = await freshDatabaseUrl();
  srv = await start();
  const { botStore, matchStore } = srv.app.ctx;
  const bots: { row: BotRow; version: string; strength: number }[] = [];
  for (const h of Object.values(HOUSE_BOTS))
    bots.push({ row: (await botStore.botByName(h.name))!, version: h.version, strength: 0 });
  const rnd = prng(35);
  for (const [name, strength] of [
    ["strong", 300],
    ["steady", 80],
    ["weak", -250],
  ] as const) {
    await srv.register(name, `${name}-owner`);
    const row = (await botStore.botByName(name))!;
    for (const v of ["v1", "v2"]) await botStore.ensureVersion(row.id, v);
    bots.push({ row, version: "v1", strength });
  }
  const ms: MatchRecord[] = [];
  const n = 420;
  for (let g = 0; g < n; g++) {
    const a = bots[Math.floor(rnd() * bots.length)]!;
    let b = bots[Math.floor(rnd() * bots.length)]!;
    while (b === a) b = bots[Math.floor(rnd() * bots.length)]!;
    // The players move to v2 for the last third: the board shows each bot at the version that played last.
    const version = (x: typeof a) => (x.row.house ? x.version : g > (2 * n) / 3 ? "v2" : "v1");
    const p = 1 / (1 + 10 ** ((b.strength - a.strength) / 400));
    const u = rnd();
    const winner = u < 0.06 ? null : u < 0.06 + 0.94 * p ? a : b;
    // Spread over the three days, the first game a little after midnight, one just before the next midnight.
    const ended = new Date(Date.parse(`${DAYS[0]}T00:00:05Z`) + Math.floor((g * 3 * 86_400_000) / n));
    const m: MatchRecord = {
      id: `od-${g}`,
      ladder_id: "public",
      mode: "ranked",
      seed: g,
      map: MAP_NAMES[g % MAP_NAMES.length]!,
      started: ended.toISOString(),
      ended: ended.toISOString(),
      duration_ms: 900,
      final_tick: 80,
      reason: winner ? "last_standing" : "timeout_draw",
      winner_bot_id: winner?.row.id ?? null,
      voided: g % 97 === 50,
      note: null,
      bots: [a, b].map((x, i) => ({
        fighter: i,
        bot_id: x.row.id,
        name: x.row.name,
        display_name: x.row.display_name,
        version: version(x),
        house: x.row.house,
        avatar: null,
        rating_before: null,
        rating_after: null,
      })),
      stats: null,
      replay_file: null,
    };
    if (!m.voided) rated.set(m.id, ended.toISOString().slice(0, 10));
    ms.push(m);
  }
  for (let i = 0; i < ms.length; i += 100) await matchStore.saveMatches(ms.slice(i, i + 100));
  // Restart, so the ladder's rating book is loaded from the stored results (as after any restart).
  await srv.app.close();
  srv = await start();
}, 180_000);

afterAll(async () => {
  await srv?.app.close();
  await db?.drop();
  rmSync(tmp, { recursive: true, force: true });
});

describe("open data dumps", () => {
  let firstD2: Buffer;

  it("writes each day that is over, with exactly its rated games, and serves them with an index", async () => {
    // At noon of the third day the first two are over (plus the grace); the third is not.
    await openData().catchUp(Date.parse(`${DAYS[2]}T12:00:00Z`));
    for (const day of DAYS.slice(0, 2)) {
      const got = lines(file(day));
      const want = [...rated].filter(([, d]) => d === day).map(([id]) => id);
      expect(got.map((l) => l.match_id).sort()).toEqual(want.sort());
      // Oldest first, all of that day.
      expect(got.map((l) => l.time)).toEqual([...got.map((l) => l.time)].sort());
      for (const l of got) expect(l.time.slice(0, 10)).toBe(day);
    }
    expect(lines(file(DAYS[0]!))[0]).toMatchObject({
      ladder_id: "public",
      seats: [{ fighter: 0 }, { fighter: 1 }],
    });
    firstD2 = readFileSync(file(DAYS[1]!));
    const index = await srv.get<{ files: { date: string; url: string; bytes: number }[] }>("/data/public");
    expect(index.status).toBe(200);
    expect(index.body.files.slice(0, 2).map((f) => f.date)).toEqual(DAYS.slice(0, 2));
    const res = await fetch(`${srv.url}/data/public/${DAYS[0]}.jsonl.gz`);
    expect(res.headers.get("content-type")).toBe("application/gzip");
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(file(DAYS[0]!)))).toBe(true);
    expect((await srv.get("/data/public/2026-11-01.jsonl.gz")).body).toMatchObject({ code: "no_dump" });
    expect((await srv.get("/data/nowhere")).body).toMatchObject({ code: "unknown_ladder" });
    const slash = await fetch(`${srv.url}/data/public/`, { redirect: "manual" });
    expect(slash.headers.get("location")).toBe("/data/public");
  }, 60_000);

  it("after a crash and a restart, writes the missing days again (the same bytes)", async () => {
    unlinkSync(file(DAYS[1]!));
    writeFileSync(`${file(DAYS[1]!)}.tmp`, "half a file");
    await srv.app.close();
    srv = await start();
    expect(existsSync(`${file(DAYS[1]!)}.tmp`)).toBe(false);
    await openData().catchUp(Date.parse("2026-11-23T00:20:00Z"));
    expect(readFileSync(file(DAYS[1]!)).equals(firstD2)).toBe(true);
    expect(lines(file(DAYS[2]!)).length).toBe([...rated.values()].filter((d) => d === DAYS[2]).length);
  }, 60_000);

  it("round trip: fit-ratings.mjs on the served dumps gives the served leaderboard within one point", async () => {
    const index = await srv.get<{ files: { date: string; url: string }[] }>("/data/public");
    const dir = join(tmp, "downloaded");
    mkdirSync(dir, { recursive: true });
    for (const f of index.body.files) {
      const res = await fetch(new URL(new URL(f.url).pathname, srv.url));
      writeFileSync(join(dir, `${f.date}.jsonl.gz`), Buffer.from(await res.arrayBuffer()));
    }
    const run = spawnSync(
      process.execPath,
      [join(ROOT, "scripts", "fit-ratings.mjs"), "--json", "--ladder", "public", dir],
      { encoding: "utf8" },
    );
    expect(run.status, run.stderr).toBe(0);
    const fit = JSON.parse(run.stdout).ladders.public as {
      games: number;
      leaderboard: { bot: string; version: string; leaderboard_score: number }[];
    };
    expect(fit.games).toBe(rated.size);
    const served = (
      await srv.get<{ name: string; version: string; leaderboard_score: number }[]>("/api/leaderboard")
    ).body;
    expect(served.length).toBeGreaterThan(5);
    expect(fit.leaderboard.map((r) => `${r.bot}@${r.version}`).sort()).toEqual(
      served.map((r) => `${r.name}@${r.version}`).sort(),
    );
    for (const row of served) {
      const mine = fit.leaderboard.find((r) => r.bot === row.name)!;
      expect(Math.abs(mine.leaderboard_score - row.leaderboard_score), row.name).toBeLessThanOrEqual(1);
    }
  }, 60_000);

  it("is named in GET /api, llms.txt and the sitemap", async () => {
    const api = await srv.get<{ open_data?: { index: string; ladder: string } }>("/api");
    expect(api.body.open_data?.index).toMatch(/\/data$/);
    const llms = await (await fetch(`${srv.url}/llms.txt`)).text();
    expect(llms).toContain("/data/public");
    const sitemap = await (await fetch(`${srv.url}/sitemap.xml`)).text();
    expect(sitemap).toContain("/data/public</loc>");
  });
});
