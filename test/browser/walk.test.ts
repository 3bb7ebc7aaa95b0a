// What a first walk through the site found beyond issue 37's list (newcomer, spectator on a phone, operator),
// each checked in real Chromium at phone (390 px) and desktop (1280 px) width on the seeded ladder of
// test/helpers/site-world.ts: the rating chart's labels stay readable on a phone, the viewer's copy buttons
// look like the other buttons, the viewer says one tick number everywhere a person reads or hears it, the
// admin overview names an admin without a handle by email, and /ladder's phase hint does not repeat the badge.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contextFor, watch } from "../helpers/account-pages.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { CHROMIUM_MISSING, launchBrowser } from "../helpers/browser.ts";
import type { TestServer } from "../helpers/server.ts";
import { PLAYERS, type SiteWorld, seedSite } from "../helpers/site-world.ts";
import { skipAllIf } from "../helpers/skips.ts";

const WIDTHS = [
  { width: 390, height: 844 },
  { width: 1280, height: 900 },
] as const;

describe("a first walk through the site, at phone and desktop width", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let browser: Browser;
  let world: SiteWorld;
  let root: SignedIn;

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    [srv, browser] = await Promise.all([
      startAccountServer({ adminEmails: ["root@example.com"], anonymousDev: true }),
      launchBrowser(),
    ]);
    world = await seedSite(srv);
    root = await signUp(srv, "root@example.com"); // an admin by the configured list, with no handle yet
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  for (const viewport of WIDTHS) {
    const w = viewport.width;

    it(`${w} px: the bot page's rating chart shows its numbers and labels at a readable size`, async () => {
      const page = watch(await browser.newPage({ viewport }));
      await page.goto(`${srv.url}/bot/${PLAYERS[0].name}`);
      const charts = page.locator("figure.chart svg:visible");
      expect(await charts.count()).toBe(1); // one drawing shown at a time
      const sizes = await charts.evaluate((svg) =>
        Array.from(svg.querySelectorAll("text"), (t) => ({
          text: t.textContent,
          height: t.getBoundingClientRect().height,
        })),
      );
      expect(sizes.map((s) => s.text)).toContain("first game");
      // 12 px text measures about 14 px tall; a 900-unit drawing squeezed into a phone's column made it 5.
      for (const s of sizes) expect(s.height, `${s.text}`).toBeGreaterThanOrEqual(11);
      const svgWidth = await charts.evaluate((svg) => svg.getBoundingClientRect().width);
      const column = await page.locator("main").evaluate((m) => m.clientWidth);
      expect(svgWidth).toBeLessThanOrEqual(column);
      // The drawing's text alternative is there once, for the drawing shown.
      expect(await charts.getAttribute("role")).toBe("img");
      await page.close();
    });

    it(`${w} px: the viewer's copy buttons are styled like its other buttons`, async () => {
      const page = watch(await browser.newPage({ viewport }));
      await page.goto(`${srv.url}/view/${world.matchId}`);
      for (const name of ["Copy link to this tick", "Copy command"]) {
        const look = await page.getByRole("button", { name }).evaluate((b) => {
          const s = getComputedStyle(b);
          return { radius: s.borderTopLeftRadius, minHeight: s.minHeight };
        });
        expect(look, name).toEqual({ radius: "8px", minHeight: "44px" });
      }
      await page.close();
    });

    it(`${w} px: the viewer says the counter's tick number in the scrubber's value and the board's words`, async () => {
      const page = watch(await browser.newPage({ viewport }));
      const match = await srv.get<{ final_tick: number }>(`/api/matches/${world.matchId}`);
      const n = match.body.final_tick;
      await page.goto(`${srv.url}/view/${world.matchId}`);
      await page.locator("#tick-out", { hasText: "/" }).waitFor();
      await page.keyboard.press("End");
      await page.locator("#tick-out", { hasText: `tick ${n} / ${n}` }).waitFor();
      expect(await page.locator("#scrub").getAttribute("aria-valuetext")).toBe(`tick ${n} of ${n}`);
      expect(await page.locator("#board-summary").textContent()).toMatch(new RegExp(`^Tick ${n}\\. `));
      await page.keyboard.press("Home");
      await page.locator("#tick-out", { hasText: `tick 1 / ${n}` }).waitFor();
      expect(await page.locator("#scrub").getAttribute("aria-valuetext")).toBe(`tick 1 of ${n}`);
      expect(await page.locator("#board-summary").textContent()).toMatch(/^Tick 1\. /);
      // The address and the simulator keep the engine's count from 0: the first frame is #t=0 and --tick 0.
      expect(await page.locator("#fork-cmd").textContent()).toContain("--tick 0 ");
      await page.close();
    });

    it(`${w} px: the admin overview names an admin who has no handle yet by email`, async () => {
      const context = await contextFor(browser, root, viewport);
      const page = watch(await context.newPage());
      await page.goto(`${srv.url}/admin`);
      const item = page.locator("#admin-list li").first();
      await item.waitFor();
      const text = (await item.textContent()) ?? "";
      expect(text).toContain("root@example.com");
      expect(text).not.toContain("no handle");
      // The address is the browser's own (its session's), never sent by the server: the overview has none.
      const overview = await call(srv.url, "GET", "/api/admin/overview", { token: root.access });
      expect(JSON.stringify(overview.body)).not.toContain("@example.com");
      await context.close();
    });

    it(`${w} px: /ladder's phase hint adds to the badge instead of repeating it`, async () => {
      const page = watch(await browser.newPage({ viewport }));
      await page.goto(`${srv.url}/ladder`);
      const badge = ((await page.locator("#ladder-phase").textContent()) ?? "").trim();
      const hint = ((await page.locator("#ladder-hint").textContent()) ?? "").trim();
      expect(badge).toBe("open");
      expect(hint.replace(/\W+$/, "").toLowerCase()).not.toBe(badge);
      expect(hint).toBe("No closing date.");
      await page.close();
    });
  }
});
