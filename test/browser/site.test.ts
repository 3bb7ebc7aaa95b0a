// Every public page as a first-time visitor sees it, in real Chromium at 390, 1280 and 1920 px (and 1024 for
// the tables), on a fixed ladder (test/helpers/site-world.ts) with the page clock fixed, so each run shows the
// same pages: nothing is wider than the viewport or cut by its card (a table fits its card from 1024 px up and
// scrolls inside it on a phone); the first screen matches its committed baseline (test/helpers/visual.ts:
// pixelmatch, tolerance stated there; `npm run test:baselines` regenerates them); axe-core, injected into
// the page, finds no serious or critical violation; the keyboard reaches every control.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_MISSING, launchBrowser, SHOTS } from "../helpers/browser.ts";
import { startServer, type TestServer } from "../helpers/server.ts";
import { NOW, PLAYERS, type SiteWorld, seedSite } from "../helpers/site-world.ts";
import { skipAllIf } from "../helpers/skips.ts";
import { MAX_DIFF_RATIO, matchesBaseline, UPDATING } from "../helpers/visual.ts";

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const WIDTHS = [390, 1280, 1920] as const;
/** Pages open at once (see eachPage). */
const PARALLEL = 4;
const HEIGHT = { 390: 844, 1024: 768, 1280: 900, 1920: 1080 } as const;

interface Overflow {
  what: string;
  width: number;
  limit: number;
}

describe("every page at phone, laptop and wide-screen widths", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let browser: Browser;
  let world: SiteWorld;

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    // Chromium starts while the server starts and the ladder is seeded: neither needs the other.
    const launched = launchBrowser();
    launched.catch(() => {}); // awaited below
    srv = await startServer();
    world = await seedSite(srv);
    browser = await launched;
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  const pages = () =>
    [
      ["home", "/"],
      ["ladder", "/ladder"],
      ["create-bot", "/create-bot"],
      ["starters", "/starters"],
      ["guide", "/guide"],
      ["bot", `/bot/${PLAYERS[0].name}`],
      ["match", `/match/${world.matchId}`],
      ["view", `/view/${world.matchId}`],
      ["account", "/account"],
    ] as const;

  async function open(path: string, width: number): Promise<{ page: Page; context: BrowserContext }> {
    // bypassCSP: the test injects axe-core as an inline script, which the pages' CSP (rightly) refuses.
    const context = await browser.newContext({
      viewport: { width, height: HEIGHT[width as keyof typeof HEIGHT] ?? 900 },
      bypassCSP: true,
      reducedMotion: "reduce",
    });
    const page = await context.newPage();
    page.on("pageerror", (err) => {
      throw new Error(`page error on ${path}: ${err.message}`);
    });
    await page.clock.setFixedTime(NOW);
    await page.goto(`${srv.url}${path}`);
    await page.waitForLoadState("networkidle");
    if (path.startsWith("/view/") || path === "/") {
      await page.waitForFunction(() => {
        const v = (window as unknown as { __viewer?: { status: string } }).__viewer;
        return v?.status === "ready";
      });
      // A fixed frame of the replay, not wherever playback happened to be.
      await page.evaluate(() => {
        const v = (window as unknown as { __viewer: { pause(): void; seek(f: number): void } }).__viewer;
        v.pause();
        v.seek(40);
      });
    }
    return { page, context };
  }

  /**
   * `check` on every item, at most PARALLEL pages open at once (each in its own browser context), results in
   * the items' order. Part of a page's time is waiting rather than computing (500 ms for the network to go quiet,
   * the replay loading), so a few pages at once overlap those waits. Widths, pages and checks are unchanged.
   */
  async function eachPage<T, R>(items: readonly T[], check: (item: T) => Promise<R>): Promise<R[]> {
    const out: R[] = new Array(items.length);
    let next = 0;
    const lane = async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await check(items[i]!);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, items.length) }, lane));
    return out;
  }

  /** Elements wider than the viewport, and tables wider than their card (`cardTables`: from 1024 px). */
  function overflows(page: Page, cardTables: boolean): Promise<Overflow[]> {
    return page.evaluate((cardTables) => {
      const out: { what: string; width: number; limit: number }[] = [];
      const vw = document.documentElement.clientWidth;
      const name = (el: Element) =>
        `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${el.className && typeof el.className === "string" ? `.${el.className.split(" ")[0]}` : ""}`;
      if (document.documentElement.scrollWidth > vw)
        out.push({ what: "page scrolls sideways", width: document.documentElement.scrollWidth, limit: vw });
      for (const el of Array.from(document.querySelectorAll("body *"))) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) continue;
        // Inside a box that scrolls sideways, an element may extend past the viewport: it is reached by scrolling.
        let scroller = el.parentElement;
        let inScroller = false;
        while (scroller && scroller !== document.body) {
          const s = getComputedStyle(scroller);
          if (s.overflowX === "auto" || s.overflowX === "scroll" || s.overflowX === "hidden") {
            inScroller = true;
            break;
          }
          scroller = scroller.parentElement;
        }
        if (!inScroller && (r.right > vw + 1 || r.left < -1))
          out.push({ what: name(el), width: Math.round(r.right), limit: vw });
      }
      if (cardTables)
        for (const wrap of Array.from(document.querySelectorAll(".table-wrap, .table-scroll, pre"))) {
          if (wrap.tagName === "PRE") continue; // code blocks scroll by design
          if (wrap.scrollWidth > wrap.clientWidth + 1)
            out.push({ what: `${name(wrap)} cut`, width: wrap.scrollWidth, limit: wrap.clientWidth });
        }
      return out;
    }, cardTables);
  }

  async function axeViolations(page: Page): Promise<string[]> {
    await page.addScriptTag({ content: AXE });
    const result = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(o: unknown): Promise<unknown> } }).axe;
      const r = (await axe.run({ resultTypes: ["violations"] })) as {
        violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
      };
      return r.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        where: v.nodes.map((n) => n.target[0]),
      }));
    });
    return result
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.impact} ${v.id} at ${v.where.slice(0, 3).join(", ")}`);
  }

  /** Parts that change between runs whatever the data: the port in printed addresses, registration times. */
  function masks(page: Page): Locator[] {
    return [page.locator("code", { hasText: "://" }), page.locator("time")];
  }

  it("fixed data: the upset's forecast is below 25 %", () => {
    expect(world.upsetForecast).toBeLessThan(0.25);
  });

  for (const width of WIDTHS) {
    it(`at ${width} px: fits, matches its baseline, passes axe-core`, async () => {
      const results = await eachPage(pages(), async ([name, path]) => {
        const problems: string[] = [];
        const visuals: string[] = [];
        const { page, context } = await open(path, width);
        for (const o of await overflows(page, width >= 1024))
          problems.push(`${path}: ${o.what} reaches ${o.width} px of ${o.limit}`);
        const v = await matchesBaseline(page, `${name}-${width}`, masks(page));
        if (v.diffRatio > MAX_DIFF_RATIO)
          visuals.push(`${path}: ${(v.diffRatio * 100).toFixed(2)} % of pixels differ from the baseline`);
        for (const a of await axeViolations(page)) problems.push(`${path}: ${a}`);
        // The whole page for a reviewer to look at (test-artifacts/, ignored by git).
        await page.screenshot({ path: join(SHOTS, `site-${name}-${width}.png`), fullPage: true });
        await context.close();
        return { problems, visuals };
      });
      const problems = results.flatMap((r) => r.problems);
      const visuals = results.flatMap((r) => r.visuals);
      expect(problems).toEqual([]);
      if (!UPDATING) expect(visuals).toEqual([]);
    }, 180_000);
  }

  it("at 1024 px every table fits its card", async () => {
    const paths = ["/ladder", `/bot/${PLAYERS[0].name}`, `/match/${world.matchId}`, "/guide/api"];
    const found = await eachPage(paths, async (path) => {
      const { page, context } = await open(path, 1024);
      const problems = (await overflows(page, true)).map((o) => `${path}: ${o.what} ${o.width} > ${o.limit}`);
      await context.close();
      return problems;
    });
    expect(found.flat()).toEqual([]);
  }, 60_000);

  it("on a phone a wide table scrolls inside its card, not the page", async () => {
    const perPage = await eachPage(["/ladder", `/bot/${PLAYERS[0].name}`, "/guide/spec"], async (path) => {
      let scrolling = 0;
      const { page, context } = await open(path, 390);
      const boxes = await page.evaluate(() =>
        Array.from(document.querySelectorAll("table")).map((t) => {
          const box = t.closest(".table-wrap, .table-scroll") as HTMLElement | null;
          return box
            ? { overflow: getComputedStyle(box).overflowX, scrolls: box.scrollWidth > box.clientWidth }
            : null;
        }),
      );
      expect(boxes.length, path).toBeGreaterThan(0);
      for (const b of boxes) {
        expect(b, `${path}: a table outside a scroll box`).not.toBeNull();
        expect(b!.overflow, path).toBe("auto");
        if (b!.scrolls) scrolling++;
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
      await context.close();
      return scrolling;
    });
    const scrolling = perPage.reduce((a, b) => a + b, 0);
    // At least one table is wider than a phone: it scrolls in its box, and the page above does not.
    expect(scrolling).toBeGreaterThan(0);
  }, 60_000);

  it("the keyboard reaches every control, in order, with a visible focus", async () => {
    await eachPage(["/", "/ladder", `/view/${world.matchId}`], async (path) => {
      const { page, context } = await open(path, 1280);
      const controls = await page.evaluate(() =>
        Array.from(document.querySelectorAll("a[href], button, input, select, textarea, [tabindex]"))
          .filter((el) => {
            const r = el.getBoundingClientRect();
            const s = getComputedStyle(el);
            return (
              r.width > 0 &&
              r.height > 0 &&
              s.visibility !== "hidden" &&
              el.getAttribute("tabindex") !== "-1" &&
              !(el as HTMLButtonElement).disabled
            );
          })
          .map((el, i) => {
            el.setAttribute("data-kbd", String(i));
            return i;
          }),
      );
      const reached = new Set<string>();
      let unfocused = 0;
      for (let i = 0; i < controls.length + 5; i++) {
        await page.keyboard.press("Tab");
        const at = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          if (!el || el === document.body) return null;
          const s = getComputedStyle(el);
          return { id: el.dataset.kbd ?? null, outline: s.outlineStyle !== "none" || s.boxShadow !== "none" };
        });
        if (at?.id) reached.add(at.id);
        if (at && !at.outline) unfocused++;
      }
      const missed = controls.map(String).filter((c) => !reached.has(c));
      const names = await Promise.all(
        missed
          .slice(0, 5)
          .map((id) => page.locator(`[data-kbd="${id}"]`).evaluate((el) => el.outerHTML.slice(0, 80))),
      );
      expect(names, `${path}: not reachable by Tab`).toEqual([]);
      expect(unfocused, `${path}: controls without a visible focus`).toBe(0);
      await context.close();
    });
  }, 120_000);
});
