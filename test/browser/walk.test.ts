// What a first walk through the site found beyond issue 37's list (newcomer, spectator on a phone, operator),
// each checked in real Chromium at phone (390 px) and desktop (1280 px) width on the seeded ladder of
// test/helpers/site-world.ts: the rating chart's labels stay readable on a phone, the viewer's copy buttons
// look like the other buttons, the viewer says one tick number everywhere a person reads or hears it, the
// admin overview names an admin without a handle by email, /ladder's phase hint does not repeat the badge, the
// viewer's Speed menu looks like its buttons, the sign-in page's answers and password reset show on a phone, and
// the account page opened at another address than the server's says where signing in works.
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

    it(`${w} px: the viewer's Speed menu and file picker are styled like the playback buttons`, async () => {
      const page = watch(await browser.newPage({ viewport }));
      await page.goto(`${srv.url}/view/${world.matchId}`);
      const look = (selector: string) =>
        page.locator(selector).evaluate((e) => {
          const s = getComputedStyle(e);
          return {
            radius: s.borderTopLeftRadius,
            border: s.borderTopColor,
            background: s.backgroundColor,
            color: s.color,
            minHeight: s.minHeight,
          };
        });
      // It was the browser's bare menu: square, grey, unlike every control around it.
      expect(await look("#speed")).toEqual(await look("#btn-step"));
      // So was the file picker's "Choose File" button.
      const picker = await page.locator("#replay-file").evaluate((e) => {
        const s = getComputedStyle(e, "::file-selector-button");
        return { radius: s.borderTopLeftRadius, border: s.borderTopColor, background: s.backgroundColor };
      });
      const { radius, border, background } = await look("#btn-step");
      expect(picker).toEqual({ radius, border, background });
      await page.close();
    });

    it(`${w} px: the sign-in page answers a sign-up where it is seen, and resets a password in the sign-in card`, async () => {
      const page = watch(await browser.newPage({ viewport }));
      await page.goto(`${srv.url}/account`);
      await page.locator("#signup-email").fill(`walker${w}@example.com`);
      await page.locator("#signup-password").fill("short");
      await page.getByRole("button", { name: "Create account" }).click();
      const status = page.locator("#account-status");
      await status.filter({ hasText: "Use a password of at least 8 characters." }).waitFor();
      // On a phone the sign-up form is a screen below the status line: the answer is scrolled into view.
      const seen = () =>
        status.evaluate((s) => {
          const r = s.getBoundingClientRect();
          return r.top >= 0 && r.bottom <= innerHeight;
        });
      expect(await seen()).toBe(true);
      await page.locator("#signup-password").fill("a long enough password");
      await page.getByRole("button", { name: "Create account" }).click();
      await status.filter({ hasText: "Almost done" }).waitFor();
      expect(await seen()).toBe(true);
      // "Forgot your password?" opens its form inside the sign-in card, above "Create an account" (it came
      // after that card, out of sight on a phone).
      await page.getByRole("button", { name: "Forgot your password?" }).click();
      const recover = page.locator("#recover");
      await recover.waitFor();
      expect(await recover.evaluate((r) => r.closest("section")?.getAttribute("aria-labelledby"))).toBe(
        "h-signin",
      );
      const top = async (sel: string) => (await page.locator(sel).boundingBox())?.y ?? Number.NaN;
      if (w === 390) expect(await top("#recover-email")).toBeLessThan(await top("#h-signup"));
      await page.close();
    });

    it(`${w} px: the account page opened at another address than the server's says where sign-in works`, async () => {
      const page = watch(await browser.newPage({ viewport }));
      // The server's own address is 127.0.0.1; a newcomer types localhost. Sign-up was refused by the page's
      // security policy there, without a word on the page.
      const other = srv.url.replace("127.0.0.1", "localhost");
      await page.goto(`${other}/account`);
      await page.locator("#signup-email").fill(`elsewhere${w}@example.com`);
      await page.locator("#signup-password").fill("a long enough password");
      await page.getByRole("button", { name: "Create account" }).click();
      await page
        .locator("#account-status")
        .filter({ hasText: "Not sent: this page is not at the server's own address (see the note above)." })
        .waitFor();
      const notice = page.locator("#other-address");
      await notice.waitFor();
      expect(await notice.textContent()).toBe(
        `This server's address is ${srv.url}, not ${other}: signing up, signing in and the emailed links work only there. Open ${srv.url}/account.`,
      );
      expect(await notice.getByRole("link").getAttribute("href")).toBe(`${srv.url}/account`);
      await page.close();
      // At its own address the page says nothing of the kind.
      const own = watch(await browser.newPage({ viewport }));
      await own.goto(`${srv.url}/account`);
      await own.locator("#signed-out").waitFor();
      expect(await own.locator("#other-address").isHidden()).toBe(true);
      await own.close();
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
