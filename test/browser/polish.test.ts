// The small things a first visitor saw (issue 37, item 9), each checked in real Chromium at phone (390 px) and
// desktop (1280 px) width on a seeded ladder (test/helpers/site-world.ts): the "open" badge on /account is
// readable, /ladder keeps names whole and says when a table scrolls sideways, the announcement's Dismiss is a
// button like the others, the viewer counts ticks as the match page does, the event page says its kind in
// words and one clock, the admin overview names the admin and shows each heading once, and the site's
// navigation keeps its links on one line.
import type { Browser, Page } from "playwright-core";
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

/** WCAG contrast of an element's text against the first opaque background behind it. */
function contrastOf(page: Page, selector: string): Promise<number> {
  return page
    .locator(selector)
    .first()
    .evaluate((node) => {
      const rgb = (s: string) => (s.match(/[\d.]+/g) ?? []).map(Number);
      const lum = ([r, g, b]: number[]) => {
        const c = [r!, g!, b!].map((v) => {
          const x = v / 255;
          return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
        });
        return 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;
      };
      const fg = rgb(getComputedStyle(node).color);
      let bg = [255, 255, 255];
      for (let n: Element | null = node; n; n = n.parentElement) {
        const c = rgb(getComputedStyle(n).backgroundColor);
        if (c.length >= 3 && (c.length === 3 || c[3]! > 0.9)) {
          bg = c.slice(0, 3);
          break;
        }
      }
      const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
      return (a! + 0.05) / (b! + 0.05);
    });
}

describe("first-visit polish at phone and desktop width", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let browser: Browser;
  let world: SiteWorld;
  let root: SignedIn;
  let ada: SignedIn;

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    [srv, browser] = await Promise.all([
      // Anonymous registration: the seeded ladder registers its player bots without accounts.
      startAccountServer({ adminEmails: ["root@example.com"], anonymousDev: true }),
      launchBrowser(),
    ]);
    world = await seedSite(srv);
    root = await signUp(srv, "root@example.com");
    ada = await signUp(srv, "ada@example.com", "ada-reader");
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  for (const viewport of WIDTHS) {
    const w = viewport.width;

    it(`${w} px: the ladder's "open" badge on /account is readable (contrast at least 4.5:1)`, async () => {
      const context = await contextFor(browser, ada, viewport);
      const page = watch(await context.newPage());
      await page.goto(`${srv.url}/account`);
      const badge = page.locator("#ladder-list .badge.phase-open").first();
      await badge.waitFor();
      expect(await badge.textContent()).toBe("open");
      expect(await contrastOf(page, "#ladder-list .badge.phase-open")).toBeGreaterThanOrEqual(4.5);
      await context.close();
    });

    it(`${w} px: /ladder keeps names whole and says so when a table scrolls sideways`, async () => {
      const page = watch(await browser.newPage({ viewport }));
      await page.goto(`${srv.url}/ladder`);
      const long = page.locator("table.data a", { hasText: PLAYERS[2].name }).first();
      await long.waitFor();
      // One line box per shown name: a name is never broken, not even at its hyphens.
      const lines = await page
        .locator("table.data a.name")
        .evaluateAll((links) =>
          links
            .map((a) => ({ name: a.textContent, boxes: a.getClientRects().length }))
            .filter((l) => l.boxes > 0),
        );
      expect(lines.map((l) => l.name)).toContain(PLAYERS[2].name);
      expect(lines.filter((l) => l.boxes !== 1)).toEqual([]);
      // Every table that overflows its box has a visible hint above it; one that fits has none.
      const wraps = await page.locator(".table-wrap").evaluateAll((ws) =>
        ws.map((wrap) => {
          const hint = wrap.previousElementSibling;
          const shown = hint?.classList.contains("scroll-hint") && !(hint as HTMLElement).hidden;
          return { over: wrap.scrollWidth > wrap.clientWidth + 1, hint: Boolean(shown) };
        }),
      );
      expect(wraps.length).toBeGreaterThan(0);
      for (const x of wraps) expect(x.hint).toBe(x.over);
      if (w === 390) expect(wraps.some((x) => x.over)).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1)).toBe(
        false,
      );
      await page.close();
    });

    it(`${w} px: the site's navigation keeps its links on one line`, async () => {
      const page = watch(await browser.newPage({ viewport }));
      await page.goto(`${srv.url}/`);
      const tops = await page
        .locator("header.site nav ul li")
        .evaluateAll((items) => items.map((li) => Math.round(li.getBoundingClientRect().top)));
      expect(tops.length).toBeGreaterThan(3);
      expect(new Set(tops).size).toBe(1);
      await page.close();
    });

    it(`${w} px: the announcement's Dismiss is styled as a button`, async () => {
      const made = await call(srv.url, "POST", "/api/admin/announcements/preview", {
        token: root.access,
        body: { title: `Notice ${w}`, body: "Hello.", in_game: true, email: false },
      });
      await call(srv.url, "POST", `/api/admin/announcements/${String(made.body.id)}/publish`, {
        token: root.access,
      });
      const page = watch(await browser.newPage({ viewport }));
      await page.goto(`${srv.url}/ladder`);
      const dismiss = page.getByRole("button", { name: `Dismiss the announcement: Notice ${w}` });
      await dismiss.waitFor({ timeout: 10_000 });
      const look = await dismiss.evaluate((b) => {
        const s = getComputedStyle(b);
        return { radius: s.borderTopLeftRadius, minHeight: s.minHeight, cls: b.className };
      });
      expect(look.cls.split(" ")).toContain("button");
      expect(look.radius).toBe("8px");
      expect(look.minHeight).toBe("44px");
      await page.close();
    });

    it(`${w} px: the viewer counts ticks as the match page does`, async () => {
      const page = watch(await browser.newPage({ viewport }));
      const match = await srv.get<{ final_tick: number }>(`/api/matches/${world.matchId}`);
      const n = match.body.final_tick;
      await page.goto(`${srv.url}/view/${world.matchId}`);
      await page.locator("#tick-out", { hasText: "/" }).waitFor();
      await page.keyboard.press("End");
      await page.locator("#tick-out", { hasText: `tick ${n} / ${n}` }).waitFor();
      await page.keyboard.press("Home");
      await page.locator("#tick-out", { hasText: `tick 1 / ${n}` }).waitFor();
      await page.goto(`${srv.url}/match/${world.matchId}`);
      expect(await page.locator("main").textContent()).toContain(String(n));
      await page.close();
    });

    it(`${w} px: the event page says its kind in words and shows one clock (24-hour) in both columns`, async () => {
      const context = await browser.newContext({ viewport, locale: "en-US", timezoneId: "America/New_York" });
      const page = watch(await context.newPage());
      await page.goto(`${srv.url}/events/practice`);
      const main = (await page.locator("main").textContent()) ?? "";
      expect(main).not.toMatch(/\bprecon\b/);
      expect(main).toContain("Pre-conference event");
      const cells = await page.locator(".schedule td").allTextContents();
      const times = cells.filter((c) => /\d:\d\d/.test(c));
      expect(times.length).toBeGreaterThan(0);
      for (const t of times) expect(t, t).not.toMatch(/\b(AM|PM)\b/i);
      await context.close();
    });

    it(`${w} px: the admin overview names the admin, not an id, and shows each heading once`, async () => {
      const context = await contextFor(browser, root, viewport);
      const page = watch(await context.newPage());
      await page.goto(`${srv.url}/admin`);
      await page.locator("#overview dl").waitFor();
      const you = await page
        .locator("#overview dt", { hasText: "You" })
        .locator("xpath=following-sibling::dd")
        .textContent();
      expect(you).toContain("root@example.com");
      expect(you).not.toContain(root.id);
      // The moderation list is named once: by its heading, not again by a hidden caption.
      const section = page.locator("section", { has: page.locator("#h-moderate") });
      expect(((await section.textContent()) ?? "").split("Suspended and banned bots").length - 1).toBe(1);
      const headings = (
        await page.locator("#admin-console").locator("h2:visible, h3:visible").allTextContents()
      ).map((h) => h.trim().replace(/\s+/g, " "));
      expect(headings.filter((h, i) => headings.indexOf(h) !== i)).toEqual([]);
      await context.close();
    });
  }
});
