// What the pages and the leaderboard show of rank uncertainty (issue 33, part 3) on the real server, with the
// same seeded ladder as insight-matchups.test.ts (three players of clearly different strength against the house
// bots, results saved through the store and recorded in the real rating book): each leaderboard row's 95 % rank
// interval in GET /api/leaderboard and on the dashboard, the heat map of win chances on the dashboard, and a bot
// page's rank interval and rivals. Checked against the matchups route (the same simulation) and the plain
// logistic of the book's ratings (an independent computation).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUSE_BOTS } from "../../engine/house/index.ts";
import { Matchups } from "../../server/insight/schemas.ts";
import { versionKey } from "../../server/ratings/book.ts";
import type { BotRow } from "../../server/store/types.ts";
import { playRated } from "../helpers/rated-game.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
const houses: BotRow[] = [];
const players = new Map<string, BotRow>();

const play = (x: BotRow, y: BotRow, xScore: 0 | 0.5 | 1) => playRated(srv, x, y, xScore);

const page = (path: string) => fetch(`${srv.url}${path}`).then((r) => r.text());
const decode = (s: string) =>
  s
    .replace(/&amp;/g, "&")
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');

beforeAll(async () => {
  srv = await startServer();
  for (const s of Object.values(HOUSE_BOTS)) houses.push((await srv.app.ctx.botStore.botByName(s.name))!);
  for (const [name, wins] of [
    ["ace", 19],
    ["middling", 10],
    ["novice", 1],
  ] as const) {
    await srv.register(name, `${name}-owner`);
    const bot = (await srv.app.ctx.botStore.botByName(name))!;
    players.set(name, bot);
    for (let g = 0; g < 40; g++) await play(bot, houses[g % houses.length]!, g % 20 < wins ? 1 : 0);
  }
}, 120_000);

afterAll(async () => {
  await srv?.stop();
});

type Row = { name: string; version: string; rank: number; rank_low: number | null; rank_high: number | null };

/** The book's rating of a leaderboard row. */
function rating(name: string, version: string): number {
  const bot = name in HOUSE_BOTS ? houses.find((h) => h.name === name)! : players.get(name)!;
  return srv.app.ctx.ladders.main.ratings.get(versionKey(bot.id, version)).rating;
}
const logistic = (a: number, b: number) => 1 / (1 + 10 ** ((b - a) / 400));

describe("rank intervals on the leaderboard", () => {
  it("gives each row of GET /api/leaderboard its interval: the matchups route's, holding the rank", async () => {
    const board = (await srv.get<Row[]>("/api/leaderboard")).body;
    const m = Matchups.parse((await srv.get("/api/ladders/public/matchups?top=50")).body);
    expect(board.length).toBe(m.ranked);
    board.forEach((r, i) => {
      expect(r.rank_low, r.name).not.toBeNull();
      expect(r.rank_low!).toBeLessThanOrEqual(r.rank);
      expect(r.rank_high!).toBeGreaterThanOrEqual(r.rank);
      // The same simulation (fixed seed, same fit): the same interval as the matchups route's.
      expect([r.rank_low, r.rank_high]).toEqual([m.versions[i]!.rank_low, m.versions[i]!.rank_high]);
    });
    expect(board[0]).toMatchObject({ name: "ace", rank_low: 1, rank_high: 1 });
    expect(board.at(-1)).toMatchObject({ name: "novice" });
    expect(board.at(-1)!.rank_low).toBe(board.length);
  });

  it("shows the interval in the dashboard's leaderboard", async () => {
    const html = await page("/ladder");
    // Under each rank, in its own column: "1" then "1" for the sure leader.
    expect(html).toMatch(
      /<td class="num" data-sort="1">1<span class="rank-range" title="95 % interval of the rank: 1 to 1"><span class="visually-hidden">, 95 % interval <\/span>1<\/span><\/td>/,
    );
    const board = (await srv.get<Row[]>("/api/leaderboard")).body;
    for (const r of board)
      expect(html).toContain(`title="95 % interval of the rank: ${r.rank_low} to ${r.rank_high}"`);
  });
});

describe("the dashboard's heat map", () => {
  it("is a table of the top rows whose every cell prints the row's chance to beat the column", async () => {
    const html = decode(await page("/ladder"));
    const board = (await srv.get<(Row & { display_name: string })[]>("/api/leaderboard")).body;
    expect(html).toContain('<table class="heatmap-table" id="matchup-matrix">');
    expect(html).toMatch(/<caption>Chance that the bot of the row beats the bot of the column/);
    const top = board.slice(0, 10);
    for (const a of top)
      for (const b of top) {
        if (a === b) continue;
        const p = Math.round(logistic(rating(a.name, a.version), rating(b.name, b.version)) * 100);
        const label = new RegExp(
          `aria-label="${a.display_name} beats ${b.display_name}: ${p} % \\(95 % interval \\d+ to \\d+ %\\)">${p}<`,
        );
        expect(html, `${a.name} v ${b.name}`).toMatch(label);
      }
    // The summary in words: the surest favourite is the ace against the novice.
    const surest = /([\w-]+) is the surest favourite: (\d+) % against ([\w-]+)\./.exec(html);
    const [ace, novice] = [board[0]!, board.at(-1)!];
    expect(surest?.slice(1)).toEqual([
      ace.display_name,
      String(Math.round(logistic(rating(ace.name, ace.version), rating(novice.name, novice.version)) * 100)),
      novice.display_name,
    ]);
    expect(html).toContain('<h2 id="h-matrix">Who beats whom</h2>');
  });

  it("is in the dashboard's live sections, re-rendered with the others", async () => {
    const r = await srv.get<{ sections: Record<string, string> }>("/ladder/sections");
    expect(r.body.sections.matrix).toContain('id="matchup-matrix"');
  });
});

describe("the bot page", () => {
  it("shows the ranked version's rank interval and its chance to beat its nearest rivals", async () => {
    const html = decode(await page("/bot/middling"));
    const board = (await srv.get<Row[]>("/api/leaderboard")).body;
    const me = board.find((r) => r.name === "middling")!;
    expect(html).toContain(
      `with 95 % confidence its rank is between <strong>${me.rank_low}</strong> and <strong>${me.rank_high}</strong> of ${board.length}`,
    );
    expect(html).toContain('id="rivals"');
    const others = board.filter((r) => r.name !== "middling");
    const mine = rating("middling", me.version);
    // Nearest by rating first, at most ten.
    const near = [...others]
      .sort((x, y) => Math.abs(rating(x.name, x.version) - mine) - Math.abs(rating(y.name, y.version) - mine))
      .slice(0, 10);
    const rows = [...html.matchAll(/<tr>\s*<td><a class="name" href="\/bot\/([^"?]+)[^"]*">/g)].map(
      (x) => x[1],
    );
    const inRivals = rows.slice(-near.length);
    expect(inRivals).toEqual(near.map((r) => r.name));
    for (const r of near) {
      const p = Math.round(logistic(mine, rating(r.name, r.version)) * 100);
      expect(html).toMatch(new RegExp(`data-sort="${"[0-9.e-]+"}">${p} %`));
    }
  });

  it("shows no rivals section for a bot without a ranked version", async () => {
    await srv.register("newcomer", "newcomer-owner");
    const html = await page("/bot/newcomer");
    expect(html).not.toContain('id="rivals"');
  });
});
