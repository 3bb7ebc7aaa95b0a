// `npm run bench -- --seed-ladder BOTS:GAMES` (issue 38): a stored ladder history to measure reads on, written
// through the server's own paths: bots and versions by SqlStore.createBot and ensureVersion, results by
// MatchStore.saveMatches (the one insert statement of server/results/match-insert.ts the match runner's results go
// through), so every row, index and migration-filled column is what a live server would have. Each result
// carries a real engine stats record: a small set of matches between the house bots is played with the real
// engine first, and each stored game reuses one of those records (with its own match id and the seats' names
// and versions). Ratings before and after follow an Elo walk over the games (the server's book refits its
// Bradley-Terry ratings from the stored results at start anyway); no replay files are written (replay_file is
// null, as for a match whose replay write failed).
//
// On PGlite the history goes to a data dir (`--data-dir`, default ./data/bench-ladder-BOTS-GAMES); with
// DATABASE_URL it goes to a schema of its own, bench_ladder_BOTS_GAMES, which the URL for the server selects
// with `options=-c search_path=...` (seedPlace returns it). An existing seeded place with the same shape is
// kept: seeding is skipped (`--reseed` starts over).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { HOUSE_BOTS } from "../../engine/house/index.ts";
import type { MatchStatsT } from "../../engine/protocol.ts";
import { MAP_NAMES } from "../../engine/rules.ts";
import { playMatch, strategySeat } from "../../engine/sim/play.ts";
import { BotStore } from "../../server/bots/bot-store.ts";
import { DEFAULT_LADDER } from "../../server/kernel/names.ts";
import { MatchStore } from "../../server/results/match-store.ts";
import { openStore } from "../../server/store/sql-store.ts";
import type { BotRow, MatchRecord } from "../../server/store/types.ts";

export interface SeedShape {
  bots: number;
  games: number;
}

export interface SeedPlace {
  dataDir: string;
  /** The URL the server is to use (with the seed's schema), or undefined on PGlite. */
  databaseUrl: string | undefined;
}

/** Real matches played to take stats from. */
const TEMPLATES = 48;
/** Results stored per statement (the runner's batches are smaller; this only changes the seeding's speed). */
const BATCH = 250;
/** Share of the games a house bot plays in (the house bots fill the ladder's quiet hours). */
const HOUSE_SHARE = 0.15;
/** Player bots per owner handle. */
const BOTS_PER_OWNER = 4;
/** Every n-th player bot has a second version (its newer one plays the later half of its games). */
const TWO_VERSIONS_EVERY = 5;
/** The history spans this many days before now. */
const SPAN_DAYS = 60;

export function parseShape(arg: string | undefined): SeedShape {
  const m = /^(\d+):(\d+)$/.exec(arg ?? "");
  if (!m) throw new Error("--seed-ladder wants BOTS:GAMES, e.g. 2000:100000");
  const shape = { bots: Number(m[1]), games: Number(m[2]) };
  if (shape.bots < 8) throw new Error("at least 8 bots");
  return shape;
}

/** Where a seed of this shape lives: the data dir, and on PostgreSQL the schema's URL. */
export function seedPlace(shape: SeedShape, dataDir?: string): SeedPlace & { schema: string | null } {
  const dir = dataDir ?? join("data", `bench-ladder-${shape.bots}-${shape.games}`);
  const base = process.env.DATABASE_URL;
  if (!base) return { dataDir: dir, databaseUrl: undefined, schema: null };
  const schema = `bench_ladder_${shape.bots}_${shape.games}`;
  const url = new URL(base);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return { dataDir: dir, databaseUrl: url.toString(), schema };
}

/** Deterministic pseudo-random numbers (mulberry32), so two seedings of one shape store the same history. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Template {
  stats: MatchStatsT;
  reason: string;
  finalTick: number;
}

/** Real matches between the house bots, with the engine of the server: their stats, reasons and lengths. */
async function playTemplates(count: number): Promise<Template[]> {
  const strategies = Object.values(HOUSE_BOTS);
  const out: Template[] = [];
  for (let i = 0; i < count; i++) {
    const a = strategies[i % strategies.length]!;
    const b = strategies[(i + 1 + Math.floor(i / strategies.length)) % strategies.length]!;
    const { match, stats } = await playMatch([strategySeat(a), strategySeat(b)], {
      matchId: `seed-${i}`,
      seed: 7_000 + i,
      map: MAP_NAMES[i % MAP_NAMES.length]!,
    });
    const r = match.result!;
    out.push({ stats, reason: r.reason, finalTick: stats.ticks });
  }
  return out;
}

/** The stats record of a stored game: a template's, with this match's id and its seats' names and versions. */
function statsFor(t: Template, id: string, seats: { name: string; version: string }[], swap: boolean) {
  const fighters = swap ? [t.stats.fighters[1]!, t.stats.fighters[0]!] : t.stats.fighters;
  return {
    ...t.stats,
    match_id: id,
    winner: t.stats.winner === null ? null : swap ? 1 - t.stats.winner : t.stats.winner,
    fighters: fighters.map((f, i) => ({ ...f, id: i, name: seats[i]!.name, version: seats[i]!.version })),
  };
}

interface Seeded {
  bot: BotRow;
  versions: string[];
  strength: number;
  house: boolean;
}

async function prepare(place: SeedPlace & { schema: string | null }, reseed: boolean): Promise<boolean> {
  const marker = join(place.dataDir, "seeded.json");
  if (place.schema) {
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    try {
      const done = await c.query(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'seeded'",
        [place.schema],
      );
      if (done.rowCount && !reseed) return false;
      await c.query(`DROP SCHEMA IF EXISTS ${place.schema} CASCADE`);
      await c.query(`CREATE SCHEMA ${place.schema}`);
    } finally {
      await c.end();
    }
    return true;
  }
  if (existsSync(marker) && !reseed) return false;
  rmSync(place.dataDir, { recursive: true, force: true });
  mkdirSync(place.dataDir, { recursive: true });
  return true;
}

/** Seeds the history (unless already there); returns where it is and whether it was written now. */
export async function seedLadder(
  shape: SeedShape,
  o: { dataDir?: string; reseed?: boolean; log?: (line: string) => void } = {},
): Promise<SeedPlace & { written: boolean }> {
  const log = o.log ?? ((l: string) => console.error(l));
  const place = seedPlace(shape, o.dataDir);
  if (!(await prepare(place, o.reseed ?? false))) {
    log(`seed: ${shape.bots} bots / ${shape.games} games already in ${place.schema ?? place.dataDir}`);
    return { dataDir: place.dataDir, databaseUrl: place.databaseUrl, written: false };
  }
  const t0 = performance.now();
  const random = rng(shape.bots * 1_000_003 + shape.games);
  const templates = await playTemplates(TEMPLATES);
  const byWinner = (w: number | null) => templates.filter((t) => t.stats.winner === w);
  const decided = byWinner(0).length > 0 ? [...byWinner(0), ...byWinner(1)] : templates;
  const drawn = byWinner(null);
  log(
    `seed: ${TEMPLATES} real matches played (${drawn.length} draws) in ${Math.round(performance.now() - t0)} ms`,
  );

  const store = await openStore({ dataDir: place.dataDir, databaseUrl: place.databaseUrl });
  const botStore = new BotStore(store);
  const matchStore = new MatchStore(store);
  try {
    const bots: Seeded[] = [];
    for (const s of Object.values(HOUSE_BOTS)) {
      const { bot } = await botStore.createBot({
        name: s.name,
        owner: "house",
        house: true,
        display_name: s.display_name,
      });
      await botStore.ensureVersion(bot.id, s.version);
      bots.push({ bot, versions: [s.version], strength: 0.4 * bots.length - 0.6, house: true });
    }
    const players = shape.bots - bots.length;
    for (let i = 0; i < players; i++) {
      const { bot } = await botStore.createBot({
        name: `seed-bot-${i}`,
        display_name: `Seed bot ${i}`,
        owner: `seed-user-${Math.floor(i / BOTS_PER_OWNER)}`,
        house: false,
      });
      const versions = i % TWO_VERSIONS_EVERY === 0 ? ["v1", "v2"] : ["v1"];
      for (const v of versions) await botStore.ensureVersion(bot.id, v);
      // Strengths on a log-odds scale; a few strong bots, most near the middle.
      bots.push({ bot, versions, strength: (random() + random() + random() - 1.5) * 2, house: false });
    }
    log(`seed: ${shape.bots} bots registered in ${Math.round(performance.now() - t0)} ms`);

    const house = bots.filter((b) => b.house);
    const player = bots.filter((b) => !b.house);
    const elo = new Map<string, number>();
    const now = Date.now();
    const start = now - SPAN_DAYS * 86_400_000;
    let batch: MatchRecord[] = [];
    for (let g = 0; g < shape.games; g++) {
      const a = player[Math.floor(random() * player.length)]!;
      let b =
        random() < HOUSE_SHARE
          ? house[Math.floor(random() * house.length)]!
          : player[Math.floor(random() * player.length)]!;
      if (b === a) b = player[(player.indexOf(a) + 1) % player.length]!;
      const seats = random() < 0.5 ? [a, b] : [b, a];
      // The later half of the history is played by the newer version, where there is one.
      const late = g > shape.games / 2;
      const versions = seats.map((s) => (late ? s.versions.at(-1)! : s.versions[0]!));
      const pA = 1 / (1 + Math.exp(seats[1]!.strength - seats[0]!.strength));
      const draw = drawn.length > 0 && random() < 0.02;
      const winner = draw ? null : random() < pA ? 0 : 1;
      const t = draw ? drawn[g % drawn.length]! : decided[g % decided.length]!;
      // A template won by the other seat is used with its fighters swapped.
      const swap = winner !== null && t.stats.winner !== winner;
      const id = `m${(start + g).toString(36)}${g.toString(16).padStart(8, "0")}`;
      const keys = seats.map((s, i) => `${s.bot.id}@${versions[i]}`);
      const before = keys.map((k) => elo.get(k) ?? 1500);
      const expected = 1 / (1 + 10 ** ((before[1]! - before[0]!) / 400));
      const score = winner === null ? 0.5 : winner === 0 ? 1 : 0;
      const after = [before[0]! + 16 * (score - expected), before[1]! - 16 * (score - expected)];
      for (const [i, k] of keys.entries()) elo.set(k, after[i]!);
      const ended = start + Math.floor(((g + 1) / shape.games) * (now - start - 60_000));
      const durationMs = 2_000 + t.finalTick * 20;
      batch.push({
        id,
        ladder_id: DEFAULT_LADDER,
        mode: "ranked",
        seed: (g * 2_654_435_761) >>> 1,
        map: t.stats.map,
        started: new Date(ended - durationMs).toISOString(),
        ended: new Date(ended).toISOString(),
        duration_ms: durationMs,
        final_tick: t.finalTick,
        reason: t.reason,
        winner_bot_id: winner === null ? null : seats[winner]!.bot.id,
        voided: false,
        note: null,
        bots: seats.map((s, i) => ({
          fighter: i,
          bot_id: s.bot.id,
          name: s.bot.name,
          display_name: s.bot.display_name,
          version: versions[i]!,
          house: s.house,
          avatar: null,
          rating_before: Math.round(before[i]!),
          rating_after: Math.round(after[i]!),
        })),
        stats: statsFor(
          t,
          id,
          seats.map((s, i) => ({ name: s.bot.name, version: versions[i]! })),
          swap,
        ) as MatchStatsT,
        replay_file: null,
      });
      if (batch.length === BATCH || g === shape.games - 1) {
        await matchStore.saveMatches(batch);
        batch = [];
        if ((g + 1) % 10_000 < BATCH)
          log(`seed: ${g + 1} games stored (${Math.round(performance.now() - t0)} ms)`);
      }
    }
    // The marker that the seed is complete (an interrupted seeding is started over).
    if (store.driver === "pg") await store.db.exec("CREATE TABLE seeded (at timestamptz DEFAULT now())");
    else
      writeFileSync(
        join(place.dataDir, "seeded.json"),
        JSON.stringify({ ...shape, at: new Date().toISOString() }),
      );
    log(`seed: done in ${Math.round(performance.now() - t0)} ms (${store.driver})`);
  } finally {
    await store.close();
  }
  return { dataDir: place.dataDir, databaseUrl: place.databaseUrl, written: true };
}

/** The shape a PGlite seed dir says it holds, if any. */
export function seededShape(dataDir: string): SeedShape | null {
  const marker = join(dataDir, "seeded.json");
  return existsSync(marker) ? (JSON.parse(readFileSync(marker, "utf8")) as SeedShape) : null;
}
