// The dashboard's win-chance heat map (issue 33, part 3) in real headless Chromium against the real server, on
// a seeded ladder (three players of clearly different strength against the house bots, saved through the store
// and recorded in the real rating book, as test/server/insight-display.test.ts does): the chart is a table a
// screen reader reads cell by cell (each cell's accessible name says who beats whom and how likely), every cell
// prints its number and the favourite's cells are coloured apart from the underdog's (colour is never the only
// carrier), a text summary says the surest favourite in words, axe-core finds no serious or critical violation
// in it, and on a phone it scrolls inside its card instead of widening the page. Screenshots at desktop and
// phone width go to test-artifacts/screenshots/.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOUSE_BOTS } from "../../engine/house/index.ts";
import type { BotRow } from "../../server/store/types.ts";
import { CHROMIUM_MISSING, launchBrowser, SHOTS } from "../helpers/browser.ts";
import { playRated } from "../helpers/rated-game.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { skipAllIf } from "../helpers/skips.ts";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

let srv: TestServer;
const houses: BotRow[] = [];
const players = new Map<string, BotRow>();

const play = (x: BotRow, y: BotRow, xScore: 0 | 0.5 | 1) => playRated(srv, x, y, xScore);

describe("the dashboard's heat map in headless Chromium", () => {
  skipAllIf(CHROMIUM_MISSING);
  let browser: Browser;

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
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
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  async function open(width: number): Promise<Page> {
    // bypassCSP: axe-core is injected as an inline script, which the pages' CSP (rightly) refuses.
    const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    page.on("pageerror", (err) => {
      throw new Error(`page error: ${err.message}`);
    });
    await page.goto(`${srv.url}/ladder`);
    return page;
  }

  it("is a table whose cells name the pair and print the chance, coloured by it, with a summary in words", async () => {
    const page = await open(1280);
    const table = page.getByRole("table", {
      name: /Chance that the bot of the row beats the bot of the column/,
    });
    await expect(table.isVisible()).resolves.toBe(true);
    const board = (await srv.get<{ name: string; display_name: string }[]>("/api/leaderboard")).body;
    const top = board.slice(0, 10);
    // One row header per bot and one column header per bot (plus the corner).
    expect(await table.getByRole("rowheader").count()).toBe(top.length);
    expect(await table.getByRole("columnheader").count()).toBe(top.length + 1);
    const ace = top.find((r) => r.name === "ace")!;
    const novice = top.find((r) => r.name === "novice")!;
    const strong = table.getByRole("cell", {
      name: new RegExp(`^${ace.display_name} beats ${novice.display_name}: \\d+ %`),
    });
    const weak = table.getByRole("cell", {
      name: new RegExp(`^${novice.display_name} beats ${ace.display_name}: \\d+ %`),
    });
    const strongText = ((await strong.textContent()) ?? "").trim();
    const weakText = ((await weak.textContent()) ?? "").trim();
    // The number is printed, with the clearly-decided mark: colour is not the only carrier.
    expect(strongText).toMatch(/^\d+\s*▲$/);
    expect(weakText).toMatch(/^\d+\s*▼$/);
    expect(Number.parseInt(strongText, 10) + Number.parseInt(weakText, 10)).toBeGreaterThanOrEqual(99);
    // ... and the colours differ: the favourite's cell is blue, the underdog's orange.
    const bg = (l: typeof strong) => l.evaluate((el) => getComputedStyle(el).backgroundColor);
    const [b1, b2] = [await bg(strong), await bg(weak)];
    const rgb = (s: string) => s.match(/\d+/g)!.slice(0, 3).map(Number);
    expect(rgb(b1)[2]).toBeGreaterThan(rgb(b1)[0]!); // more blue than red
    expect(rgb(b2)[0]).toBeGreaterThan(rgb(b2)[2]!); // more red than blue
    // The text alternative.
    await expect(page.locator("#matchups figcaption").textContent()).resolves.toMatch(
      new RegExp(`${ace.display_name} is the surest favourite: \\d+ % against ${novice.display_name}`),
    );
    await table.scrollIntoViewIfNeeded();
    await page.locator("#matchups").screenshot({ path: join(SHOTS, "insight-matrix-1280.png") });
    await page.context().close();
  });

  it("passes axe-core (no serious or critical violation in the chart) and scrolls inside its card on a phone", async () => {
    for (const width of [1280, 390]) {
      const page = await open(width);
      await page.addScriptTag({ content: AXE });
      const violations = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run(c: unknown, o: unknown): Promise<unknown> } }).axe;
        const r = (await axe.run({ include: [["#matchups"]] }, { resultTypes: ["violations"] })) as {
          violations: { id: string; impact: string }[];
        };
        return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
      });
      expect(violations, `at ${width} px`).toEqual([]);
      // The page never gets wider than the viewport: the matrix scrolls inside its wrapper.
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, `at ${width} px`).toBeLessThanOrEqual(0);
      if (width === 390) {
        await page.locator("#matchups").scrollIntoViewIfNeeded();
        await page.locator("#matchups").screenshot({ path: join(SHOTS, "insight-matrix-390.png") });
      }
      await page.context().close();
    }
  });
});
