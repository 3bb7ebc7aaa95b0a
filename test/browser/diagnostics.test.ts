// The owner's diagnostics panel on the match page (issue 33, part 2) in real headless Chromium: a bot that sends
// an unknown direction and an unknown attack every tick, and answers one tick late, plays a house bot over a
// real WebSocket; its owner, signed in, opens the match page and the panel lists the refused parts, the missed
// deadline with how late the reply came, and the reply-time histogram, and passes axe-core. Another signed-in
// account and a signed-out visitor see no panel. The panel's screenshot is written for docs/insights.md
// (docs/images/diagnostics-panel.png when DOCS_SHOTS=1, else test-artifacts/screenshots/).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watch } from "../helpers/account-pages.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { CHROMIUM_MISSING, launchBrowser, SHOTS } from "../helpers/browser.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";
import { skipAllIf } from "../helpers/skips.ts";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const LATE_TICK = 3;

describe("the diagnostics panel in headless Chromium", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let browser: Browser;
  let ada: SignedIn;
  let bea: SignedIn;
  let matchId = "";
  let ticks = 0;

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    const launched = launchBrowser();
    launched.catch(() => {}); // awaited below
    srv = await startAccountServer({ tickMs: 200, startupMs: 1000 });
    ada = await signUp(srv, "owner@example.test", "owner");
    bea = await signUp(srv, "other@example.test", "other");
    const made = await call(srv.url, "POST", "/api/account/bots", {
      token: ada.access,
      body: { name: "broken" },
    });
    const bot = new BotClient(srv.wsUrl, made.body.token as string);
    await bot.open();
    matchId = (await bot.queueForMatch("v1")).match_id as string;
    const since = bot.received.length;
    const broken = (tick: number) => ({
      type: "turn",
      tick,
      move: "sideways",
      attack: { name: "laser", target: [0, 0] },
    });
    const stop = bot.autoplay((o) => {
      const tick = o.tick as number;
      if (tick === LATE_TICK) return undefined;
      if (tick === LATE_TICK + 1) bot.send(broken(LATE_TICK));
      return broken(tick);
    });
    bot.send({ type: "ready" });
    const end = await bot.next("end", undefined, 120_000, since);
    stop();
    bot.ws.close();
    ticks = (end.stats as { ticks: number }).ticks;
    browser = await launched;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  /**
   * The match page as `who` sees it (null: signed out), once its diagnostics script has finished. The session
   * is stored as the account page stores it; bypassCSP lets a test inject axe-core as an inline script.
   */
  async function matchPage(who: SignedIn | null, bypassCSP = false): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, bypassCSP });
    if (who) {
      const exp = JSON.parse(Buffer.from(who.access.split(".")[1]!, "base64url").toString()).exp as number;
      await context.addInitScript(
        (s) => localStorage.setItem("arena.session", s),
        JSON.stringify({ access_token: who.access, refresh_token: who.refresh, expires_at: exp }),
      );
    }
    const page = watch(await context.newPage());
    await page.goto(`${srv.url}/match/${matchId}`);
    await page.waitForFunction(
      () => (window as unknown as { __diagnostics?: { done?: string } }).__diagnostics?.done,
    );
    return page;
  }

  it("shows the owner the refused parts, the late reply and the reply times", async () => {
    const page = await matchPage(ada);
    expect(
      await page.evaluate(
        () => (window as unknown as { __diagnostics: { done: string } }).__diagnostics.done,
      ),
    ).toBe("drawn");
    const panel = page.locator("#diagnostics");
    await expect.poll(() => panel.isVisible()).toBe(true);
    const bot = panel.locator('[data-bot="broken"]');
    expect(await bot.locator(".lead-figures").textContent()).toBe(
      `${ticks} turns: ${ticks} lost (1 idle, ${ticks - 1} refused). Refused parts: schema ${ticks - 1}, unknown_attack ${ticks - 1}.`,
    );
    const refusals = bot.locator("table", { has: page.locator("caption", { hasText: "Refused parts" }) });
    const rows = await refusals.locator("tbody tr").allTextContents();
    expect(rows).toEqual([
      `0–${LATE_TICK - 1}moveschema${LATE_TICK}`,
      `0–${LATE_TICK - 1}attackunknown_attack${LATE_TICK}`,
      `${LATE_TICK + 1}–${ticks - 1}moveschema${ticks - LATE_TICK - 1}`,
      `${LATE_TICK + 1}–${ticks - 1}attackunknown_attack${ticks - LATE_TICK - 1}`,
    ]);
    const misses = bot.locator("table", { has: page.locator("caption", { hasText: "Deadlines missed" }) });
    const miss = await misses.locator("tbody tr td").allTextContents();
    expect(miss[0]).toBe(String(LATE_TICK));
    expect(miss[1]).toBe("200 ms");
    expect(miss[2]).toMatch(/^\d+ ms late$/);
    expect(await bot.locator(".histogram li").count()).toBe(11);
    const counts = (await bot.locator(".histogram .count").allTextContents()).map(Number);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(ticks - 1);
    await panel.screenshot({
      path: process.env.DOCS_SHOTS
        ? "docs/images/diagnostics-panel.png"
        : join(SHOTS, "diagnostics-panel.png"),
    });
    await page.context().close();
  });

  it("passes axe-core with the panel drawn", async () => {
    const page = await matchPage(ada, true);
    await page.addScriptTag({ content: AXE });
    const found = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(c: unknown, o: unknown): Promise<unknown> } }).axe;
      const r = (await axe.run("#diagnostics", { resultTypes: ["violations"] })) as {
        violations: { id: string; impact: string }[];
      };
      return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id);
    });
    expect(found).toEqual([]);
    await page.context().close();
  });

  it("shows nothing to another account or a signed-out visitor", async () => {
    for (const who of [bea, null]) {
      const page = await matchPage(who);
      expect(
        await page.evaluate(
          () => (window as unknown as { __diagnostics: { done: string } }).__diagnostics.done,
        ),
      ).toBe("none");
      expect(await page.locator("#diagnostics").isVisible()).toBe(false);
      expect(await page.locator("#diagnostics .diagnostics-body").innerHTML()).toBe("");
      await page.context().close();
    }
  });
});
