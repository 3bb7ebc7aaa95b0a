// The settlement phase in headless Chromium (issue 34, part 4): the ladder page of a settling ladder shows the
// phase notice ("Settling: versions frozen, N of M extra games played"); once a settlement has ended, the ladder
// page links its final standings, and the final standings page renders every ranked bot with its rank
// interval, the settled top K marked; the staff screen (/admin/settlement) lists each ladder's phase, schedules
// a settlement from its form, changes it and cancels it before it begins.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BotRow } from "../../server/store/types.ts";
import { contextFor, watch } from "../helpers/account-pages.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { HAVE_CHROMIUM, launchBrowser } from "../helpers/browser.ts";
import { ladderDef } from "../helpers/ladders.ts";
import { playRated } from "../helpers/rated-game.ts";
import type { TestServer } from "../helpers/server.ts";

const DESKTOP = { width: 1280, height: 900 };
const NAMES = ["fin-a", "fin-b", "fin-c"];

describe.skipIf(!HAVE_CHROMIUM)("the settlement phase in headless Chromium", () => {
  let srv: TestServer;
  let browser: Browser;
  let root: SignedIn;

  const admin = (path: string, body: unknown) => call(srv.url, "POST", path, { token: root.access, body });

  beforeAll(async () => {
    [srv, browser] = await Promise.all([
      startAccountServer(
        { adminEmails: ["root@settle-web.test"] },
        {
          manifest: {
            version: 1,
            ladders: [
              ladderDef("public"),
              ladderDef("season", { name: "Season", house_bots: false }),
              ladderDef("spring", { name: "Spring", house_bots: false }),
            ],
          },
        },
      ),
      launchBrowser(),
    ]);
    root = await signUp(srv, "root@settle-web.test", "root");
    const rows: BotRow[] = [];
    for (const [i, name] of NAMES.entries()) {
      const owner = await signUp(srv, `o${i}@settle-web.test`, `o${i}`);
      const made = await call(srv.url, "POST", "/api/account/bots", { token: owner.access, body: { name } });
      expect(made.status).toBe(201);
      const row = (await srv.app.ctx.botStore.botByName(name))!;
      await srv.app.ctx.botStore.ensureVersion(row.id, "v1");
      rows.push(row);
    }
    // Twenty games per pair on both ladders: every version ranked (30), in name order.
    for (const ladder of ["season", "spring"])
      for (let i = 0; i < rows.length; i++)
        for (let j = i + 1; j < rows.length; j++)
          for (let g = 0; g < 20; g++) await playRated(srv, rows[i]!, rows[j]!, g < 13 ? 1 : 0, ladder);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  async function open(path: string): Promise<Page> {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    page.on("pageerror", (err) => {
      throw err;
    });
    await page.goto(`${srv.url}${path}`);
    return page;
  }

  it("shows the phase on the ladder page while settling", async () => {
    const made = await admin("/api/admin/ladders/season/settlement", {
      top_k: 2,
      game_budget: 4,
      duration_s: 3600,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const page = await open("/ladder?ladder=season");
    const notice = page.getByRole("region", { name: "Settlement" });
    await notice.waitFor({ state: "visible" });
    expect(await notice.textContent()).toContain("Settling: versions frozen, 0 of 4 extra games played");
    expect(await notice.getAttribute("data-state")).toBe("settling");
    // The ladder page itself is intact beneath it.
    await page.locator("#leaderboard").waitFor({ state: "visible" });
    // Another ladder shows nothing.
    const other = await open("/ladder?ladder=spring");
    await other.locator("#leaderboard").waitFor({ state: "visible" });
    expect(await other.locator("#settlement-notice").count()).toBe(0);
  });

  it("links the final standings, which render with intervals and the settled top K", async () => {
    // A one-second settlement nobody plays in (no bot is connected): it ends by its time and publishes.
    const made = await admin("/api/admin/ladders/spring/settlement", {
      top_k: 2,
      game_budget: 2,
      duration_s: 1,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    await expect
      .poll(async () => (await srv.get<{ state: string }>("/api/ladders/spring/settlement")).body.state, {
        timeout: 30_000,
        interval: 250,
      })
      .toBe("final");
    const page = await open("/ladder?ladder=spring");
    const link = page.locator("#final-standings-link");
    await link.waitFor({ state: "visible" });
    await link.click();
    await page.waitForURL(`${srv.url}/ladders/spring/final`);
    expect(await page.locator("h1").textContent()).toBe("Final standings");
    const rows = page.locator("#final-standings tbody tr");
    expect(await rows.count()).toBe(3);
    const first = await rows.nth(0).textContent();
    expect(first).toContain("fin-a");
    expect(first).toContain("top 2");
    expect(await rows.nth(2).textContent()).not.toContain("top 2");
    expect(await page.locator("#final-facts").textContent()).toContain("played 0 extra rated games");
    // Each row's rank interval is shown (a range, not a dash).
    for (let i = 0; i < 3; i++)
      expect(await rows.nth(i).locator("td").nth(4).textContent()).toMatch(/\d+–\d+/);
  });

  it("the staff screen lists each ladder's phase and schedules a settlement from its form", async () => {
    const page = watch(await (await contextFor(browser, root)).newPage());
    // The admin console's navigation leads to it (and to the tournaments' screen).
    await page.goto(`${srv.url}/admin`);
    const nav = page.locator("nav.console-nav");
    await nav.locator("a", { hasText: "Settlement" }).waitFor({ state: "attached" });
    expect(await nav.locator("a", { hasText: "Tournaments" }).getAttribute("href")).toBe(
      "/admin/tournaments",
    );
    expect(await nav.locator("a", { hasText: "Settlement" }).getAttribute("href")).toBe("/admin/settlement");
    await page.goto(`${srv.url}/admin/settlement`);
    const row = (id: string) => page.locator(`#settlement-ladders tr[data-ladder="${id}"]`);
    // The two settlements above: one settling, one published.
    expect(await row("season").textContent()).toContain("settling");
    expect(await row("spring").locator("a").getAttribute("href")).toBe("/ladders/spring/final");
    expect(await row("public").textContent()).toContain("none");
    // Schedule one on the public ladder (it never closes, so it needs a length) to start in ten minutes.
    await page.selectOption("select[name=ladder]", "public");
    await page.fill("input[name=top_k]", "3");
    await page.fill("input[name=game_budget]", "12");
    await page.fill("input[name=starts_in]", "10");
    await page.fill("input[name=duration]", "30");
    await Promise.all([page.waitForEvent("load"), page.click("#settlement-form button[type=submit]")]);
    expect(await row("public").textContent()).toContain("scheduled");
    const made = (
      await srv.get<{ state: string; top_k: number; game_budget: number }>("/api/ladders/public/settlement")
    ).body;
    expect(made).toMatchObject({ state: "scheduled", top_k: 3, game_budget: 12 });
    // A second one on the same ladder is refused, and the form says why.
    await page.click("#settlement-form button[type=submit]");
    await expect
      .poll(async () => (await page.locator("#settlement-form-status").textContent()) ?? "", {
        timeout: 10_000,
      })
      .toMatch(/settlement/);
    // Changed before it begins, from its row: the form takes its values and replaces its schedule.
    await row("public").locator("button[data-edit]").click();
    expect(await page.locator("#settlement-form-mode").isVisible()).toBe(true);
    expect(await page.inputValue("input[name=game_budget]")).toBe("12");
    expect(await page.locator("#settlement-form-submit").textContent()).toBe("Save the change");
    await page.fill("input[name=top_k]", "5");
    await page.fill("input[name=starts_in]", "10");
    await page.fill("input[name=duration]", "45");
    await Promise.all([page.waitForEvent("load"), page.click("#settlement-form button[type=submit]")]);
    expect(await row("public").textContent()).toContain("top 5, 12 games");
    const changed = (
      await srv.get<{ id: string; top_k: number; starts_at: string; ends_at: string }>(
        "/api/ladders/public/settlement",
      )
    ).body;
    expect(changed).toMatchObject({ top_k: 5 });
    expect(Date.parse(changed.ends_at) - Date.parse(changed.starts_at)).toBe(45 * 60_000);
    // Cancelled before it begins, from its row: the ladder has none again.
    await Promise.all([page.waitForEvent("load"), row("public").locator("button[data-cancel]").click()]);
    expect(await row("public").textContent()).toContain("none");
    expect((await srv.get("/api/ladders/public/settlement")).status).toBe(404);
  });
});
