// The embeddable viewer (issue 35, server/replay-share/embed.ts) in real headless Chromium: a page of ANOTHER
// origin (a second small HTTP server on its own port) puts /embed/<id>#t=N in an <iframe>; the frame loads,
// opens the replay at tick N and plays it there. The same page also frames a normal page of the site
// (/match/<id>), which the browser refuses (frame-ancestors 'none'), and the headers say why.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Frame } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_MISSING, launchBrowser } from "../helpers/browser.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";
import { skipAllIf } from "../helpers/skips.ts";

interface ViewerState {
  status: string;
  tick: number | null;
  playing: boolean;
  frames: unknown[];
}

describe("the embed page in a frame of another origin", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let blog: Server;
  let blogUrl = "";
  let browser: Browser;
  let matchId = "";

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    srv = await startServer({ tickMs: 200, startupMs: 1000 });
    browser = await launchBrowser();
    // One real ladder match, so the embed shows a stored replay.
    const bot = new BotClient(srv.wsUrl, await srv.register("embed-bot"));
    await bot.open();
    const hello = await bot.queueForMatch();
    matchId = hello.match_id as string;
    const since = bot.received.length;
    const stop = bot.autoplay((o) => ({
      type: "turn",
      tick: o.tick,
      move: (o.moves as { dir: string }[])[0]?.dir,
    }));
    bot.send({ type: "ready" });
    await bot.next("end", undefined, 120_000, since);
    stop();
    bot.close();
    // "A blog": another origin (same host, another port) whose page frames the ladder's embed and a normal page.
    blog = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><title>My blog</title><h1>Look at this game</h1>
<iframe id="embed" src="${srv.url}/embed/${matchId}#t=5" width="640" height="760"></iframe>
<iframe id="normal" src="${srv.url}/match/${matchId}" width="640" height="400"></iframe>`);
    });
    await new Promise<void>((r) => blog.listen(0, "127.0.0.1", r));
    blogUrl = `http://127.0.0.1:${(blog.address() as AddressInfo).port}/post`;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => (blog ? blog.close(r) : r(undefined)));
    await srv?.stop();
  });

  it("plays the replay inside the other origin's frame; a normal page refuses to be framed", async () => {
    // The headers first: the embed's own policy allows any framer, a normal page's refuses every one.
    const embed = await fetch(`${srv.url}/embed/${matchId}`);
    expect(embed.status).toBe(200);
    expect(embed.headers.get("content-security-policy")).toContain("frame-ancestors *");
    expect(embed.headers.get("x-frame-options")).toBeNull();
    const normal = await fetch(`${srv.url}/match/${matchId}`);
    expect(normal.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect((await fetch(`${srv.url}/embed/no-such-match`)).status).toBe(404);

    const page = await browser.newPage({ viewport: { width: 1300, height: 1300 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const refusals: string[] = [];
    page.on("console", (m) => {
      if (/frame-ancestors/.test(m.text())) refusals.push(m.text());
    });
    await page.goto(blogUrl);
    expect(new URL(page.url()).origin).not.toBe(new URL(srv.url).origin);

    const frameOf = async (src: string): Promise<Frame> => {
      await expect
        .poll(() => page.frames().some((f) => f.url().startsWith(src)), { timeout: 15_000 })
        .toBe(true);
      return page.frames().find((f) => f.url().startsWith(src))!;
    };
    const frame = await frameOf(`${srv.url}/embed/${matchId}`);
    const state = () =>
      frame.evaluate(() => {
        const v = (window as unknown as { __viewer?: ViewerState }).__viewer;
        return v ? { status: v.status, tick: v.tick, playing: v.playing, frames: v.frames.length } : null;
      });
    await expect.poll(async () => (await state())?.status, { timeout: 15_000 }).toBe("ready");
    // Opened at the tick the link asks for, paused there.
    expect(await state()).toMatchObject({ tick: 5, playing: false });
    expect(await frame.locator("#board").getAttribute("data-tick")).toBe("5");
    // Play inside the frame: the board moves on.
    await frame.locator("#btn-play").click();
    await expect.poll(async () => (await state())!.tick!, { timeout: 10_000 }).toBeGreaterThan(6);
    expect(await frame.locator("#embed-open").getAttribute("href")).toBe(`/view/${matchId}`);
    expect(await frame.locator("#embed-open").getAttribute("target")).toBe("_blank");

    // The normal page was refused: its frame holds no page of the site (Chromium shows its own error page).
    const normalFrame = page.frames().find((f) => f !== page.mainFrame() && f !== frame)!;
    await expect
      .poll(async () =>
        normalFrame.evaluate(() => document.querySelector("main, header.site") === null).catch(() => true),
      )
      .toBe(true);
    expect(normalFrame.url()).not.toContain("/match/");
    expect(refusals.join("\n")).toContain("frame-ancestors 'none'");
    expect(errors).toEqual([]);
    await page.screenshot({ path: "test-artifacts/screenshots/embed-in-blog.png" });
    await page.close();
  }, 120_000);
});
