// Human play in real headless Chromium: a signed-in person opens /play, picks a house bot and plays the game
// to the end with the keyboard; the result is shown and the game is stored as an unrated `human` match.
// Screenshots of /play (picker, board, result) at desktop and phone width go to test-artifacts/screenshots/.
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUp, startAccountServer } from "../helpers/accounts.ts";
import { CHROMIUM_MISSING, launchBrowser, SHOTS } from "../helpers/browser.ts";
import type { TestServer } from "../helpers/server.ts";
import { skipAllIf } from "../helpers/skips.ts";

describe("human play in headless Chromium", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    srv = await startAccountServer();
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  /** A page on the server's origin carrying a signed-in session, as the account page leaves it. */
  async function signedInPage(email: string, handle: string, width: number): Promise<Page> {
    const who = await signUp(srv, email, handle);
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    page.on("pageerror", (err) => {
      throw new Error(`page error: ${err.message}`);
    });
    await page.goto(`${srv.url}/play`);
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    await page.evaluate((s) => localStorage.setItem("arena.session", JSON.stringify(s)), {
      access_token: who.access,
      refresh_token: who.refresh,
      expires_at: expiresAt,
    });
    await page.reload();
    return page;
  }

  it("a signed-out visitor is sent to sign in", async () => {
    const page = await browser.newPage();
    await page.goto(`${srv.url}/play`);
    await page.waitForSelector('#play[data-state="signed-out"]');
    expect(await page.locator("#signin-needed a").getAttribute("href")).toBe("/account");
    await page.screenshot({ path: join(SHOTS, "play-signed-out-desktop.png") });
    await page.close();
  });

  it("plays a whole game against a house bot with the keyboard", async () => {
    const page = await signedInPage("player@example.com", "player", 1280);
    await page.waitForSelector('#play[data-state="choose"]');
    await page.screenshot({ path: join(SHOTS, "play-choose-desktop.png") });
    // Pick Kiter from the keyboard.
    await page.locator('button[data-opponent="kiter"]').focus();
    await page.keyboard.press("Enter");
    await page.waitForSelector('#play[data-state="playing"]', { timeout: 15_000 });

    // One key per tick: walk toward the opponent with auto-fire on, staying put (Space) when blocked.
    const keys = ["ArrowUp", "ArrowLeft", "ArrowDown", "ArrowRight", "Space"];
    let presses = 0;
    for (;;) {
      const state = await page.evaluate(() => {
        const g = (
          window as unknown as { __play: { state: string; obs: { tick: number } | null; sent: number } }
        ).__play;
        return { state: g.state, tick: g.obs?.tick ?? -1, sent: g.sent };
      });
      if (state.state === "over") break;
      if (state.tick >= 0 && state.sent !== state.tick) {
        if (presses === 3) await page.screenshot({ path: join(SHOTS, "play-board-desktop.png") });
        await page.keyboard.press(keys[presses % keys.length]!);
        presses++;
        // A move the board does not allow is refused locally; Space always makes a turn.
        const sent = await page.evaluate(
          () => (window as unknown as { __play: { sent: number } }).__play.sent,
        );
        if (sent !== state.tick) await page.keyboard.press("Space");
      }
      await page.waitForFunction(
        (t) => {
          const g = (window as unknown as { __play: { state: string; obs: { tick: number } | null } }).__play;
          return g.state === "over" || (g.obs?.tick ?? -1) > t;
        },
        state.tick,
        { timeout: 15_000 },
      );
      expect(presses).toBeLessThan(1000);
    }
    await page.screenshot({ path: join(SHOTS, "play-over-desktop.png") });
    const result = await page.locator("#result").textContent();
    expect(result).toMatch(/You won|You lost|A draw/);
    const end = await page.evaluate(
      () => (window as unknown as { __play: { end: { match_id: string } } }).__play.end,
    );
    const stored = await srv.get<{ mode: string; bots: { name: string }[] }>(`/api/matches/${end.match_id}`);
    expect(stored.body.mode).toBe("human");
    expect(stored.body.bots.map((b) => b.name)).toContain("player");
    expect(await page.locator("#watch").getAttribute("href")).toBe(`/view/${end.match_id}`);
    await page.close();
  }, 120_000);

  it("renders on a phone without sideways scrolling", async () => {
    const page = await signedInPage("phone@example.com", "phoner", 390);
    await page.waitForSelector('#play[data-state="choose"]');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1);
    expect(overflow).toBe(false);
    await page.screenshot({ path: join(SHOTS, "play-choose-phone.png"), fullPage: true });
    await page.locator('button[data-opponent="brawler"]').click();
    await page.waitForSelector('#play[data-state="playing"]', { timeout: 15_000 });
    await page.waitForFunction(() => (window as unknown as { __play: { obs: unknown } }).__play.obs !== null);
    expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1)).toBe(
      false,
    );
    await page.screenshot({ path: join(SHOTS, "play-board-phone.png"), fullPage: true });
    await page.close();
  }, 60_000);
});
