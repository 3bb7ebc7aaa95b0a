// Competitive-core benchmarks (issue 4): the Bradley-Terry refit after one more game and a from-scratch fit
// with 2,000 versions and 100,000 games, and one matchmaker pass over 1,000 queued bots. All three use the
// real code paths: RatingBook.load / RatingBook.record, and Matchmaker.pass over a Lobby of fake
// participants whose facts come from the same loaded RatingBook. Figures are medians of several runs (the
// machine may be shared), reported in ms with the target as a ceiling.
//
//   npx tsx test/bench/ladder-bench.ts [--quick]
import { pathToFileURL } from "node:url";
import pino from "pino";
import { MAP_NAMES } from "../../engine/rules.ts";
import { testConfig } from "../../server/config.ts";
import { DEFAULT_LADDER } from "../../server/kernel/names.ts";
import { defaultLimits } from "../../server/kernel/settings.ts";
import { Lobby, type Participant } from "../../server/lobby/lobby.ts";
import { Matchmaker, type StartPlan } from "../../server/matchmaker/matchmaker.ts";
import type { QuotaCounts } from "../../server/matchmaker/quotas.ts";
import { type RatedGame, RatingBook, versionKey } from "../../server/ratings/book.ts";
import { expectedScore } from "../../server/ratings/bradley-terry.ts";
import type { BotRow } from "../../server/store/types.ts";
import { prng } from "../helpers/prng.ts";
import type { BenchLine } from "./engine-bench.ts";

export interface LadderBenchLine extends BenchLine {
  /** The target is a ceiling: the ratio to target is target / value. */
  lowerIsBetter?: boolean;
}

/** mulberry32: a small seeded PRNG so every run benchmarks the same ladder. */
export function normal(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

export interface BenchVersion {
  bot: BotRow;
  label: string;
  key: string;
  truth: number;
}

export interface BenchLadder {
  versions: BenchVersion[];
  houses: BenchVersion[];
  games: RatedGame[];
  /** Draws one more game the way the ladder plays them. */
  nextGame(): RatedGame;
}

const HOUSES = 4;

/**
 * A ladder shaped like a busy live one: 4 house bots and player bots with one or two versions each, true
 * strengths spread with sd 300, games mostly between versions close in rating (the matchmaker's window),
 * some against house bots and some discovery games against anyone; results drawn from the BT model with
 * 10 % draws. About two thirds of the games are between a pair that never met before, so the fit sees
 * tens of thousands of distinct pairs.
 */
export function benchLadder(versionCount: number, gameCount: number, seed = 1): BenchLadder {
  const rand = prng(seed);
  const created = new Date(0).toISOString();
  const bot = (i: number, house: boolean): BotRow => ({
    id: `${house ? "h" : "b"}${i}`,
    name: `${house ? "house" : "bot"}-${i}`,
    display_name: `${house ? "House" : "Bot"} ${i}`,
    owner: house ? "house" : `owner-${i % Math.ceil(versionCount / 5)}`,
    house,
    status: "active",
    avatar: null,
    created,
    account_id: null,
  });
  const houses: BenchVersion[] = [];
  for (let i = 0; i < HOUSES; i++) {
    const b = bot(i, true);
    houses.push({ bot: b, label: "1", key: versionKey(b.id, "1"), truth: 1200 + 200 * i });
  }
  const versions: BenchVersion[] = [...houses];
  for (let i = 0; versions.length < versionCount; i++) {
    const b = bot(i, false);
    const base = 1500 + 300 * normal(rand);
    const count = 1 + Math.floor(rand() * 2);
    for (let v = 0; v < count && versions.length < versionCount; v++) {
      const label = `v${v + 1}`;
      versions.push({
        bot: b,
        label,
        key: versionKey(b.id, label),
        truth: base + 60 * v + 40 * normal(rand),
      });
    }
  }
  const players = versions.filter((v) => !v.bot.house).sort((x, y) => x.truth - y.truth);
  const play = (a: BenchVersion, b: BenchVersion): RatedGame => {
    const r = rand();
    const p = expectedScore(a.truth, b.truth);
    // 10 % draws, the rest split by the BT probability.
    const score = r < 0.1 ? 0.5 : r < 0.1 + 0.9 * p ? 1 : 0;
    return {
      a: a.key,
      b: b.key,
      score,
      map: MAP_NAMES[Math.floor(rand() * MAP_NAMES.length)]!,
      aHouse: a.bot.house,
      bHouse: b.bot.house,
    };
  };
  const nextGame = (): RatedGame => {
    const i = Math.floor(rand() * players.length);
    const a = players[i]!;
    const kind = rand();
    if (kind < 0.15) return play(a, houses[Math.floor(rand() * HOUSES)]!);
    if (kind < 0.3) {
      const b = players[Math.floor(rand() * players.length)]!;
      if (b.bot.id !== a.bot.id) return play(a, b);
    }
    for (;;) {
      const j = Math.min(players.length - 1, Math.max(0, i + Math.round(40 * normal(rand))));
      const b = players[j]!;
      if (b.bot.id !== a.bot.id && b.bot.owner !== a.bot.owner) return play(a, b);
    }
  };
  const games = Array.from({ length: gameCount }, nextGame);
  return { versions, houses, games, nextGame };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const silent = pino({ level: "silent" });

/** A Matchmaker over `queued` waiting player bots (plus the house bots), with realistic facts. */
export function benchMatchmaker(ladder: BenchLadder, book: RatingBook, queued: number, seed = 2) {
  const rand = prng(seed);
  const now = 10_000_000;
  const lobby = new Lobby();
  // One queued version per bot, chosen among the ladder's player bots.
  const byBot = new Map<string, BenchVersion>();
  for (const v of ladder.versions) if (!v.bot.house) byBot.set(v.bot.id, v);
  const chosen = [...byBot.values()].slice(0, queued);
  const participants: Participant[] = [];
  for (const v of [...ladder.houses, ...chosen]) {
    const p = lobby.join(v.bot, null);
    p.state = "waiting";
    p.version = v.label;
    // Waits up to 90 s (a tenth of the queue past the 60 s priority mark), some recent games, and a few
    // opponents met moments ago (rematch hold).
    p.queuedAt = now - Math.floor(rand() * (rand() < 0.1 ? 90_000 : 40_000));
    p.lastStartAt = now - 60_000;
    p.starts = Array.from({ length: Math.floor(rand() * 8) }, () => now - Math.floor(rand() * 3_000_000));
    participants.push(p);
  }
  for (let k = 0; k < queued / 2; k++) {
    const a = chosen[Math.floor(rand() * chosen.length)]!;
    const b = chosen[Math.floor(rand() * chosen.length)]!;
    lobby.get(a.bot.id)!.lastMet.set(b.bot.id, now - Math.floor(rand() * 20_000));
  }
  // The house bots are hosted: waiting, with no socket but a strategy (only its truthiness matters here).
  for (const h of ladder.houses) lobby.get(h.bot.id)!.house = { version: "1" } as Participant["house"];
  const quotas = {
    refresh: async () => {},
    botLastHour: () => 0,
    ownerLastDay: () => 0,
  } as unknown as QuotaCounts;
  const plans: StartPlan[] = [];
  const limits = defaultLimits(
    testConfig({ maxConcurrent: 100_000, ownerConcurrency: 100_000, matchIntervalMs: 300 }),
  );
  const mm = new Matchmaker({
    ladderId: DEFAULT_LADDER,
    lobby,
    limits: () => limits,
    serverCapacity: () => limits.maxConcurrentMatches,
    runningOnLadder: () => 0,
    accepting: () => true,
    log: silent,
    ratings: book,
    quotas,
    seatBalance: new Map(),
    running: () => 0,
    runningForOwner: () => 0,
    start: (plan) => plans.push(plan),
    audit: () => {},
    houseWaitMs: 2_000,
  });
  return { mm, now, plans, participants };
}

function timeMs(body: () => void): number {
  const t0 = performance.now();
  body();
  return performance.now() - t0;
}

export async function ladderBench(quick = false): Promise<LadderBenchLine[]> {
  const VERSIONS = 2_000;
  const GAMES = 100_000;
  const reps = quick ? 3 : 7;
  const ladder = benchLadder(VERSIONS, GAMES);

  // The server's own book: loaded once at start-up (the first from-scratch fit), then refitted after
  // each game. Timed first, while the heap holds only this book, as a live server's does.
  const scratch: number[] = [];
  const book = new RatingBook();
  scratch.push(timeMs(() => book.load(ladder.games)));

  // One more game: aggregate it and refit from the previous fit (what the runner does after each game).
  // A live server refits after every game, so the code is warm: a few untimed rounds first.
  for (let r = 0; r < 3; r++) book.record(ladder.nextGame());
  const refit: number[] = [];
  for (let r = 0; r < (quick ? 5 : 21); r++) {
    const g = ladder.nextGame();
    // The deviations too (the leaderboard's first read after the game), which the refit itself defers.
    refit.push(timeMs(() => book.record(g) && book.get(g.a).deviation));
  }

  // A matchmaker pass over 1,000 queued bots and the 4 house bots.
  const { mm, now, plans } = benchMatchmaker(ladder, book, 1_000);
  const pass: number[] = [];
  let started = 0;
  // The server runs a pass every 250 ms: warm up likewise before timing.
  for (let r = 0; r < 3; r++) mm.pass(now - 1 - r);
  for (let r = 0; r < (quick ? 5 : 15); r++) {
    plans.length = 0;
    pass.push(timeMs(() => mm.pass(now + r)));
    started = plans.length;
  }

  // From scratch: aggregate the 100,000 games into pairs and fit with no warm start (a start-up).
  for (let r = 1; r < reps; r++) {
    const b = new RatingBook();
    scratch.push(timeMs(() => b.load(ladder.games)));
  }

  return [
    {
      name: `BT refit after one more game (${VERSIONS.toLocaleString("en-US")} versions, ${GAMES.toLocaleString("en-US")} games)`,
      value: median(refit),
      unit: "ms",
      target: 20,
      lowerIsBetter: true,
    },
    {
      name: `BT fit from scratch, same ladder (aggregation + fit)`,
      value: median(scratch),
      unit: "ms",
      target: 1_000,
      lowerIsBetter: true,
    },
    {
      name: `matchmaker pass over 1,000 queued bots (${started} starts planned)`,
      value: median(pass),
      unit: "ms",
      target: 50,
      lowerIsBetter: true,
    },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const l of await ladderBench(process.argv.includes("--quick")))
    console.log(`${l.name}: ${l.value.toFixed(2)} ${l.unit} (target ≤ ${l.target} ${l.unit})`);
}
