// Human play in real headless Chromium: a signed-in person opens /play, picks a house bot and plays the game
// to the end with the keyboard at desktop width, and with touch only (the move pad and taps on the board) on a
// phone-sized touch screen; the result is said once and the game is stored as an unrated `human` match. A move
// into a wall is refused in words, and nothing covers the board's bottom row.
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
    // Turns of 5 s instead of 2 min: a test that stalls still ends its game (the page does not rely on it).
    srv = await startAccountServer({}, { humanTickMs: 5_000 });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  /** A page on the server's origin carrying a signed-in session, as the account page leaves it. */
  async function signedInPage(email: string, handle: string, width: number, touch = false): Promise<Page> {
    const who = await signUp(srv, email, handle);
    const page = touch
      ? await browser.newPage({ viewport: { width, height: 844 }, hasTouch: true, isMobile: true })
      : await browser.newPage({ viewport: { width, height: 900 } });
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
    await expectResultOnce(page);
    const end = await page.evaluate(
      () => (window as unknown as { __play: { end: { match_id: string } } }).__play.end,
    );
    const stored = await srv.get<{ mode: string; bots: { name: string }[] }>(`/api/matches/${end.match_id}`);
    expect(stored.body.mode).toBe("human");
    expect(stored.body.bots.map((b) => b.name)).toContain("player");
    expect(await page.locator("#watch").getAttribute("href")).toBe(`/view/${end.match_id}`);
    await page.close();
  }, 120_000);

  it("orders the opponents weakest first and says 'Pick an opponent' once", async () => {
    const page = await signedInPage("picker@example.com", "picker", 1280);
    await page.waitForSelector('#play[data-state="choose"]');
    const names = await page
      .locator("button[data-opponent]")
      .evaluateAll((bs) => bs.map((b) => (b as HTMLElement).dataset.opponent));
    expect(names).toEqual(["kiter", "brawler", "ts-starter", "champion"]);
    // The rendered text on purpose: hidden sections do not count, only what a person sees.
    // biome-ignore lint/performance/useDomNodeTextContent: what is shown, not the DOM's text, is under test
    const text = (await page.locator("#play").innerText()).match(/Pick an opponent/g) ?? [];
    expect(text.length).toBe(1);
    await page.close();
  });

  it("a move into a wall on the desktop is refused in words, with the status line and the whole board in view", async () => {
    const page = await signedInPage("walls@example.com", "waller", 1280);
    await page.waitForSelector('#play[data-state="choose"]');
    await page.locator('button[data-opponent="kiter"]').click();
    await page.waitForFunction(() => (window as unknown as { __play: { obs: unknown } }).__play.obs !== null);
    await expectBoardUncovered(page);
    // Walk toward the nearer top or bottom edge until the next step is not on offer (a wall or the edge).
    type Obs = { tick: number; self: { y: number }; moves: { dir: string }[] };
    const obs = () => page.evaluate(() => (window as unknown as { __play: { obs: Obs } }).__play.obs);
    const start = await obs();
    const dir = start.self.y < 10 ? "N" : "S";
    const key = dir === "N" ? "ArrowUp" : "ArrowDown";
    const word = dir === "N" ? "north" : "south";
    for (let o = start; o.moves.some((m) => m.dir === dir); o = await obs()) {
      await page.keyboard.press(key);
      await page.waitForFunction(
        (t) => ((window as unknown as { __play: { obs: { tick: number } } }).__play.obs?.tick ?? -1) > t,
        o.tick,
      );
      expect(o.tick).toBeLessThan(25);
    }
    const sentBefore = await page.evaluate(
      () => (window as unknown as { __play: { sent: number } }).__play.sent,
    );
    await page.keyboard.press(key);
    const said = page.locator("#play-status");
    await said.filter({ hasText: word }).waitFor();
    expect(await said.textContent()).toMatch(new RegExp(`^(A wall blocks the way|You cannot move) ${word}`));
    expect(await said.getAttribute("data-kind")).toBe("warn");
    // Nothing was sent for this tick: the player can still choose another move.
    expect(await page.evaluate(() => (window as unknown as { __play: { sent: number } }).__play.sent)).toBe(
      sentBefore,
    );
    const box = await said.boundingBox();
    expect(box && box.y >= 0 && box.y + box.height <= 900).toBe(true);
    await page.screenshot({ path: join(SHOTS, "play-wall-desktop.png") });
    await page.close();
  }, 60_000);

  it("plays a whole game on a phone-sized touch screen with the move pad and taps on the board", async () => {
    const page = await signedInPage("thumbs@example.com", "thumbs", 390, true);
    await page.waitForSelector('#play[data-state="choose"]');
    await page.locator('button[data-opponent="kiter"]').tap();
    await page.waitForFunction(() => (window as unknown as { __play: { obs: unknown } }).__play.obs !== null);
    await expectBoardUncovered(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1)).toBe(
      false,
    );
    await page.screenshot({ path: join(SHOTS, "play-touch-phone.png") });
    let taps = 0;
    let boardTaps = 0;
    let padTaps = 0;
    for (;;) {
      const g = await page.evaluate(() => {
        const p = (
          window as unknown as {
            __play: {
              state: string;
              sent: number;
              hello: { map: { width: number } } | null;
              obs: {
                tick: number;
                self: { x: number; y: number; cooldowns?: Record<string, number> };
                moves: { dir: string; tile: [number, number] }[];
                opponents: {
                  x: number;
                  y: number;
                  visible: boolean;
                  alive: boolean;
                  last_seen?: { tile: [number, number] };
                }[];
              } | null;
            };
          }
        ).__play;
        return { state: p.state, sent: p.sent, obs: p.obs, width: p.hello?.map.width ?? 21 };
      });
      if (g.state === "over") break;
      const o = g.obs;
      if (o && g.sent !== o.tick) {
        const them = o.opponents[0];
        if (them?.visible && them.alive && (o.self.cooldowns?.ranged ?? 0) === 0 && taps % 2 === 0) {
          // Tap the opponent's tile on the board: a ranged shot at it.
          const box = (await page.locator("#board").boundingBox())!;
          const t = box.width / g.width;
          await page.touchscreen.tap(box.x + (them.x + 0.5) * t, box.y + (them.y + 0.5) * t);
          boardTaps++;
        } else {
          // Toward the opponent (or where it was last seen, or the middle) with the pad.
          const goal = them?.visible ? [them.x, them.y] : (them?.last_seen?.tile ?? [10, 10]);
          const dist = (m: { tile: [number, number] }) =>
            Math.max(Math.abs(m.tile[0] - goal[0]!), Math.abs(m.tile[1] - goal[1]!));
          const best = [...o.moves].sort((a, b) => dist(a) - dist(b))[0];
          if (best) await page.locator(`.pad-button[data-dir="${best.dir}"]`).tap();
          else await page.locator(".pad-button.stay").tap();
          padTaps++;
        }
        taps++;
      }
      await page.waitForFunction(
        (t) => {
          const p = (window as unknown as { __play: { state: string; obs: { tick: number } | null } }).__play;
          return p.state === "over" || (p.obs?.tick ?? -1) > t;
        },
        o?.tick ?? -1,
        { timeout: 15_000 },
      );
      expect(taps).toBeLessThan(1000);
    }
    expect(padTaps).toBeGreaterThan(0);
    expect(boardTaps).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, "play-over-phone.png") });
    await expectResultOnce(page);
    const end = await page.evaluate(
      () => (window as unknown as { __play: { end: { match_id: string } } }).__play.end,
    );
    const stored = await srv.get<{ mode: string; bots: { name: string }[] }>(`/api/matches/${end.match_id}`);
    expect(stored.body.mode).toBe("human");
    expect(stored.body.bots.map((b) => b.name)).toContain("thumbs");
    await page.close();
  }, 180_000);

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

  /** The result is said once, in the heading that takes focus; the status line is empty. */
  async function expectResultOnce(page: Page) {
    const title = await page.locator("#over-title").textContent();
    expect(title).toMatch(/^(You won!|You lost|A draw)$/);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("over-title");
    // biome-ignore lint/performance/useDomNodeTextContent: what is shown, not the DOM's text, is under test
    const said = (await page.locator("main").innerText()).split(title!).length - 1;
    expect(said).toBe(1);
    expect(await page.locator("#play-status").textContent()).toBe("");
    expect(await page.locator("#result").textContent()).toMatch(/ at tick \d+\.$/);
  }

  /** Every tile of the board's bottom row is in the window and is the board itself at its centre. */
  async function expectBoardUncovered(page: Page) {
    const covered = await page.evaluate(() => {
      const board = document.getElementById("board")!;
      const r = board.getBoundingClientRect();
      const n = (window as unknown as { __play: { hello: { map: { width: number } } } }).__play.hello.map
        .width;
      const t = r.width / n;
      const bad: string[] = [];
      for (let x = 0; x < n; x++) {
        const cx = r.left + (x + 0.5) * t;
        const cy = r.bottom - t / 2;
        if (cy > window.innerHeight || cy < 0) bad.push(`${x}: out of view`);
        else if (document.elementFromPoint(cx, cy) !== board) bad.push(`${x}: covered`);
      }
      const s = document.getElementById("play-status")!.getBoundingClientRect();
      if (s.top < -1 || s.bottom > r.top + 1)
        bad.push(`status line not in view above the board (${s.top}-${s.bottom}, board from ${r.top})`);
      return bad;
    });
    expect(covered).toEqual([]);
  }
});
