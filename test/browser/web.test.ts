// The web pages in real headless Chromium against the real server: the ladder dashboard shows a live match
// appear and finish without a reload, tables sort by heading, the replay viewer follows a live match and
// plays a stored replay to its last frame, which must equal the replay's final state line. Screenshots of
// every page at desktop and phone width go to test-artifacts/screenshots/ for a reviewer to look at.
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_MISSING, launchBrowser, SHOTS } from "../helpers/browser.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";
import { skipAllIf } from "../helpers/skips.ts";

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

type Msg = { type: string; [k: string]: unknown };

describe("web pages in headless Chromium", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let browser: Browser;
  let bot: BotClient;
  let matchId = "";

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    // A long tick deadline so the bot can hold its answers while the pages look at the running match.
    srv = await startServer({ tickMs: 3000, startupMs: 1000 });
    browser = await launchBrowser();
    bot = new BotClient(srv.wsUrl, await srv.register("web-bot", "webtester"));
    await bot.open();
  });
  afterAll(async () => {
    bot?.close();
    await browser?.close();
    await srv?.stop();
  });

  async function open(path: string, size = DESKTOP): Promise<Page> {
    const page = await browser.newPage({ viewport: size });
    page.on("pageerror", (err) => {
      throw new Error(`page error on ${path}: ${err.message}`);
    });
    await page.goto(`${srv.url}${path}`);
    return page;
  }

  it("the dashboard shows a live match appear and finish without a reload, and the viewer follows it", async () => {
    const ladder = await open("/ladder?poll=250");
    expect(await ladder.locator("#live-empty").count()).toBe(1);

    // The bot holds its answers until released, so the match is visibly running for as long as needed.
    let release: () => void = () => {};
    const released = new Promise<void>((r) => {
      release = r;
    });
    const hello = await bot.queueForMatch();
    matchId = hello.match_id as string;
    const stop = bot.autoplay((o: Msg) => {
      const turn = { type: "turn", tick: o.tick, move: (o.moves as { dir: string }[])[0]?.dir };
      // Once released, a little slower than instant, so the match runs long enough to be watched tick by tick.
      void released.then(() => setTimeout(() => bot.send(turn), 40));
      return undefined;
    });
    const since = bot.received.length;
    bot.send({ type: "ready" });

    const liveRow = ladder.locator(`#live-matches li[data-match="${matchId}"]`);
    await liveRow.waitFor({ state: "visible", timeout: 10_000 });
    expect((await liveRow.textContent())?.toLowerCase()).toContain("web-bot");

    // The viewer opened while the match runs follows it live.
    const viewer = await open(`/view/${matchId}`);
    await viewer.waitForSelector('#viewer[data-state="live"]', { timeout: 10_000 });

    release();
    // Ticks arrive while the match runs: the live board draws each new one.
    await viewer.waitForFunction(
      () => {
        const v = (window as unknown as { __viewer: { status: string; frames: unknown[]; frame: number } })
          .__viewer;
        return v.status === "live" && v.frames.length >= 3 && v.frame === v.frames.length - 1;
      },
      null,
      { timeout: 20_000 },
    );
    await viewer.screenshot({ path: join(SHOTS, "view-live-desktop.png") });
    await bot.next("end", undefined, 60_000, since);
    stop();

    // No longer running: listed under recent matches, announced to screen readers; no reload. While its replay
    // lasts at watching speed it stays under "Being played now", marked as a replay at watching pace.
    await ladder
      .locator(`#live-matches li[data-match="${matchId}"]:not([data-paced])`)
      .waitFor({ state: "detached", timeout: 10_000 });
    await ladder
      .locator(`#live-matches li[data-match="${matchId}"][data-paced] .badge.paced`)
      .waitFor({ state: "visible", timeout: 10_000 });
    await ladder
      .locator(`#recent tr[data-match="${matchId}"]`)
      .waitFor({ state: "visible", timeout: 10_000 });
    expect(await ladder.locator("#live-announcer").textContent()).toContain("finished");
    expect(await ladder.evaluate(() => performance.getEntriesByType("navigation").length)).toBe(1);

    // The viewer loads the replay once the match is over and plays it.
    await viewer.waitForFunction(
      () => (window as unknown as { __viewer: { status: string } }).__viewer.status === "ready",
      null,
      {
        timeout: 15_000,
      },
    );
    expect(
      await viewer.evaluate(
        () => (window as unknown as { __viewer: { frames: unknown[] } }).__viewer.frames.length,
      ),
    ).toBeGreaterThan(0);
    await ladder.close();
    await viewer.close();
  });

  it("sorts a table by its column headings, both ways, from the keyboard too", async () => {
    const page = await open("/ladder");
    const names = () => page.locator("#online tbody tr td:first-child a").allTextContents();
    const heading = page.locator("#online thead th").first();
    const before = await names();
    expect(before.length).toBeGreaterThanOrEqual(4);
    await heading.locator("button").click();
    expect(await heading.getAttribute("aria-sort")).toBe("ascending");
    const asc = await names();
    expect(asc).toEqual([...before].sort((a, b) => a.localeCompare(b)));
    await heading.locator("button").focus();
    await page.keyboard.press("Enter");
    expect(await heading.getAttribute("aria-sort")).toBe("descending");
    expect(await names()).toEqual([...asc].reverse());
    await page.close();
  });

  it("the viewer plays a real replay to the end and its last frame is the replay's final state", async () => {
    expect(matchId).not.toBe("");
    const res = await fetch(`${srv.url}/replays/${matchId}.jsonl.gz`);
    expect(res.status).toBe(200);
    const lines = gunzipSync(Buffer.from(await res.arrayBuffer()))
      .toString("utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Msg);
    const ticks = lines.filter((l) => l.type === "tick");
    const last = ticks[ticks.length - 1]!;
    const end = lines[lines.length - 1]!;
    expect(end.type).toBe("end");

    const page = await open(`/view/${matchId}`);
    await page.waitForFunction(
      () => (window as unknown as { __viewer: { status: string } }).__viewer.status === "ready",
    );
    // Keyboard only: `]` three times is 8x, Space plays.
    await page.locator("body").press("]");
    await page.locator("body").press("]");
    await page.locator("body").press("]");
    expect(await page.locator("#speed").inputValue()).toBe("8");
    await page.locator("body").press(" ");
    await page.waitForFunction(
      () => {
        const v = (window as unknown as { __viewer: { atEnd: boolean; playing: boolean } }).__viewer;
        return v.atEnd && !v.playing;
      },
      null,
      { timeout: 30_000 },
    );
    const shown = await page.evaluate(() => {
      const v = (window as unknown as { __viewer: { state: unknown; tick: number; frames: unknown[] } })
        .__viewer;
      return { state: v.state, tick: v.tick, frames: v.frames.length };
    });
    expect(shown.frames).toBe(ticks.length);
    expect(shown.tick).toBe(last.tick);
    expect(shown.state).toEqual(last.state);
    expect(await page.locator("#board").getAttribute("data-tick")).toBe(String(last.tick));
    expect(await page.locator("#viewer-status").textContent()).toContain(
      String(end.reason).replace(/_/g, " "),
    );

    // Scrub and step: the frame follows the controls.
    await page.locator("#btn-start").click();
    expect(await page.locator("#board").getAttribute("data-frame")).toBe("0");
    await page.locator("#btn-step").click();
    expect(await page.locator("#board").getAttribute("data-frame")).toBe("1");
    // The slider is keyboard-driven like any range input.
    await page.locator("#scrub").press("End");
    expect(await page.locator("#board").getAttribute("data-frame")).toBe(String(ticks.length - 1));
    await page.locator("#scrub").press("ArrowLeft");
    expect(await page.locator("#board").getAttribute("data-frame")).toBe(String(ticks.length - 2));
    await page.close();
  });

  it("a missing bot or match is a 404 page with X-Robots-Tag: noindex", async () => {
    for (const path of ["/bot/no-such-bot", "/match/no-such-match", "/view/no-such-match"]) {
      const res = await fetch(`${srv.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("x-robots-tag"), path).toBe("noindex");
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    }
    const res = await fetch(`${srv.url}/assets/..%2Fpackage.json`);
    expect(res.status).toBe(404);
  });

  it("first paint of /ladder needs only a few small requests", async () => {
    const page = await browser.newPage({ viewport: DESKTOP });
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await page.goto(`${srv.url}/ladder`, { waitUntil: "load" });
    const atLoad = [...requests];
    // The HTML, one stylesheet, one script and the icon; the live updates start after.
    expect(atLoad.length).toBeLessThanOrEqual(4);
    const sizes = await page.evaluate(() =>
      performance.getEntriesByType("resource").map((e) => (e as PerformanceResourceTiming).encodedBodySize),
    );
    expect(Math.max(...sizes)).toBeLessThan(40_000);
    await page.close();
  });

  it("every page renders at desktop and phone width without sideways scrolling (screenshots saved)", async () => {
    const pages: [string, string][] = [
      ["home", "/"],
      ["ladder", "/ladder"],
      ["create-bot", "/create-bot"],
      ["bot", "/bot/web-bot"],
      ["match", `/match/${matchId}`],
      ["user", "/user/webtester"],
      ["view", `/view/${matchId}`],
      ["not-found", "/bot/no-such-bot"],
    ];
    for (const [name, path] of pages) {
      for (const [label, size] of [
        ["desktop", DESKTOP],
        ["phone", PHONE],
      ] as const) {
        const page = await open(path, size);
        if (name === "view") {
          await page.waitForFunction(
            () => (window as unknown as { __viewer: { status: string } }).__viewer.status === "ready",
          );
          // A frame from the middle of the match shows more than the spawn positions.
          await page.evaluate(() => {
            const v = (window as unknown as { __viewer: { seek(f: number): void; frames: unknown[] } })
              .__viewer;
            v.seek(Math.floor(v.frames.length * 0.6));
          });
        }
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${path} at ${label} width scrolls sideways`).toBeLessThanOrEqual(0);
        expect(await page.locator("h1").count(), path).toBeGreaterThan(0);
        await page.screenshot({ path: join(SHOTS, `${name}-${label}.png`), fullPage: true });
        await page.close();
      }
    }
  }, 180_000); // sixteen full-page renders and screenshots
});
