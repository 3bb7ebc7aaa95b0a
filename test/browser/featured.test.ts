// The home page's featured match in real Chromium against the real server: on a fresh server (no match ever
// played) it plays the bundled replay the simulator recorded at build time; when matches start it follows
// the featured one live, tick by tick, with the site's one viewer, and switches to the next match being played
// when that one ends; with nothing left being played it shows the match that just ended, replayed at watching
// speed while it is on air ("Just played"), which the dashboard's "Being played now" lists too, marked so.
import { gunzipSync } from "node:zlib";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_MISSING, launchBrowser } from "../helpers/browser.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";
import { skipAllIf } from "../helpers/skips.ts";

type Msg = { type: string; [k: string]: unknown };
interface Featured {
  kind: string;
  match_id: string | null;
  label: string;
}
type Win = { __featured: { featured: Featured; switches: number }; __viewer: ViewerState };
interface ViewerState {
  status: string;
  frames: unknown[];
  frame: number;
  tick: number | null;
  playing: boolean;
}

describe("the home page's featured match", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let browser: Browser;
  let page: Page;
  const bots: BotClient[] = [];

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    srv = await startServer({ tickMs: 3000, startupMs: 2000 });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const b of bots) b.close();
    await browser?.close();
    await srv?.stop();
  });

  const featured = () => page.evaluate(() => (window as unknown as Win).__featured.featured);
  const viewer = () =>
    page.evaluate(() => {
      const v = (window as unknown as Win).__viewer;
      return { status: v.status, frames: v.frames.length, frame: v.frame, tick: v.tick, playing: v.playing };
    });

  it("on a fresh server plays the bundled replay recorded by the simulator", async () => {
    const res = await fetch(`${srv.url}/featured/showcase.jsonl.gz`);
    expect(res.status).toBe(200);
    const lines = gunzipSync(Buffer.from(await res.arrayBuffer()))
      .toString("utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Msg);
    expect(lines[0]!.type).toBe("header");
    const fighters = (lines[0]!.fighters as { name: string }[]).map((f) => f.name);
    expect(fighters.every((n) => ["ts-starter", "brawler", "kiter", "champion"].includes(n))).toBe(true);
    const ticks = lines.filter((l) => l.type === "tick").length;

    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (err) => {
      throw new Error(`page error on /: ${err.message}`);
    });
    await page.goto(`${srv.url}/?poll=300`);
    expect(await featured()).toMatchObject({ kind: "bundled", match_id: null });
    expect(await page.locator("#featured-label").textContent()).toContain("recorded in the simulator");
    await page.waitForFunction(() => (window as unknown as Win).__viewer.status === "ready");
    expect((await viewer()).frames).toBe(ticks);
    // It plays: the frame moves on by itself.
    const first = (await viewer()).frame;
    await page.waitForFunction((f) => (window as unknown as Win).__viewer.frame > f + 5, first, {
      timeout: 10_000,
    });
    // The board's text alternative is the current tick in words.
    expect(await page.locator("#board").getAttribute("aria-label")).toMatch(/^Tick \d+\. .+ hp/);
  });

  it("follows the featured match live and switches to the next one when it ends", async () => {
    /** Per bot, how long it waits before answering each observation (ms). */
    const delay = new Map<string, number>();
    async function startMatch(name: string, owner: string): Promise<{ id: string; bot: BotClient }> {
      const bot = new BotClient(srv.wsUrl, await srv.register(name, owner));
      bots.push(bot);
      await bot.open();
      delay.set(name, 80);
      const hello = await bot.queueForMatch();
      bot.autoplay((o: Msg) => {
        const turn = { type: "turn", tick: o.tick, move: (o.moves as { dir: string }[])[0]?.dir };
        setTimeout(() => bot.send(turn), delay.get(name));
        return undefined;
      });
      bot.send({ type: "ready" });
      return { id: hello.match_id as string, bot };
    }
    // One after the other, so each meets a house bot rather than the other player.
    const a = await startMatch("alpha-bot", "alice");
    const b = await startMatch("beta-bot", "bob");
    const ids = new Map([
      [a.id, { name: "alpha-bot", bot: a.bot }],
      [b.id, { name: "beta-bot", bot: b.bot }],
    ]);

    // The page switches from the bundled replay to a live match without a reload.
    await page.waitForFunction(
      (ids) => {
        const f = (window as unknown as Win).__featured.featured;
        return f.kind === "live" && ids.includes(f.match_id ?? "");
      },
      [...ids.keys()],
      { timeout: 15_000 },
    );
    const x = (await featured()).match_id!;
    const y = x === a.id ? b.id : a.id;
    // The other match now runs slowly, so it is still being played when the featured one ends.
    delay.set(ids.get(y)!.name, 600);
    expect(await page.locator("#featured-label").textContent()).toContain("Live");

    // Live: the board draws new ticks as they are played.
    await page.waitForFunction(() => (window as unknown as Win).__viewer.frames.length >= 3, null, {
      timeout: 15_000,
    });
    const t0 = (await viewer()).tick!;
    await page.waitForFunction((t) => ((window as unknown as Win).__viewer.tick ?? -1) > t + 2, t0, {
      timeout: 15_000,
    });
    expect((await viewer()).status).toBe("live");

    // The featured match ends (its bot now answers at once); the page moves to the one still being played.
    delay.set(ids.get(x)!.name, 0);
    await ids.get(x)!.bot.next("end", undefined, 60_000);
    await page.waitForFunction(
      (y) => {
        const f = (window as unknown as Win).__featured.featured;
        return f.kind === "live" && f.match_id === y;
      },
      y,
      { timeout: 15_000 },
    );
    expect(await page.locator("#viewer").getAttribute("data-match")).toBe(y);
    await page.waitForFunction(() => (window as unknown as Win).__viewer.frames.length >= 2, null, {
      timeout: 15_000,
    });
    const t1 = (await viewer()).tick!;
    await page.waitForFunction((t) => ((window as unknown as Win).__viewer.tick ?? -1) > t, t1, {
      timeout: 15_000,
    });

    // Nothing left being played: the match that just ended, replayed at watching speed while it is on air.
    delay.set(ids.get(y)!.name, 0);
    await ids.get(y)!.bot.next("end", undefined, 90_000);
    await page.waitForFunction(() => (window as unknown as Win).__featured.featured.kind === "paced", null, {
      timeout: 15_000,
    });
    const f = await featured();
    expect([x, y]).toContain(f.match_id);
    expect(await page.locator("#featured-label").textContent()).toBe(
      "Just played: the replay at watching speed",
    );
    // The dashboard lists it under "Being played now", marked as a replay at watching pace, with its viewer.
    const board = await browser.newPage();
    await board.goto(`${srv.url}/ladder`);
    const item = board.locator(`#live-matches li[data-paced][data-match="${f.match_id}"]`);
    await item.waitFor();
    expect(await item.locator(".badge.paced").textContent()).toBe("replay at watching pace");
    expect(await item.textContent()).toMatch(/tick \d+ of \d+/);
    expect(await item.locator("a.watch").getAttribute("href")).toBe(`/view/${f.match_id}`);
    await board.close();
    await page.waitForFunction(() => (window as unknown as Win).__viewer.status === "ready", null, {
      timeout: 15_000,
    });
    expect(await page.evaluate(() => (window as unknown as Win).__featured.switches)).toBeGreaterThanOrEqual(
      3,
    );
    expect(await page.evaluate(() => performance.getEntriesByType("navigation").length)).toBe(1);
    await page.close();
  }, 180_000);
});
