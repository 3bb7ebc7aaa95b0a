// The tournament pages in headless Chromium (issue 34, part 3): an admin schedules a round-robin from the staff
// screen, lands on its page, and the page follows it live (without a reload) from the start to the final
// standings while two bots play and a third, connected but never queueing, forfeits; then the finished page at
// 390 px wide fits the screen with its standings and rounds.
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contextFor, watch } from "../helpers/account-pages.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { HAVE_CHROMIUM, launchBrowser, SHOTS } from "../helpers/browser.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

type Msg = { type: string; [k: string]: unknown };

describe.skipIf(!HAVE_CHROMIUM)("tournament pages in headless Chromium", () => {
  let srv: TestServer;
  let browser: Browser;
  let root: SignedIn;
  const bots: BotClient[] = [];
  let tournamentUrl = "";

  /** A connected bot; `plays` bots queue again after every end and answer every observation. */
  async function bot(name: string, plays: boolean): Promise<void> {
    const r = await call(srv.url, "POST", "/api/account/bots", { token: root.access, body: { name } });
    expect(r.status).toBe(201);
    const c = new BotClient(srv.wsUrl, r.body.token as string);
    await c.open();
    bots.push(c);
    if (!plays) return;
    c.ws.on("message", (data) => {
      const m = JSON.parse(data.toString()) as Msg;
      if (m.type === "hello") c.send({ type: "ready" });
      if (m.type === "observation") c.send({ type: "turn", tick: m.tick });
      if (m.type === "end") c.send({ type: "queue", version: "v1" });
    });
    c.send({ type: "queue", version: "v1" });
  }

  beforeAll(async () => {
    [srv, browser] = await Promise.all([
      startAccountServer({ adminEmails: ["root@tourney-web.test"] }),
      launchBrowser(),
    ]);
    root = await signUp(srv, "root@tourney-web.test", "root");
    await bot("web-a", true);
    await bot("web-b", true);
    await bot("web-absent", false);
  }, 120_000);
  afterAll(async () => {
    for (const c of bots) c.close();
    await browser?.close();
    await srv?.stop();
  });

  async function signedIn(who: SignedIn, viewport: { width: number; height: number }): Promise<Page> {
    return watch(await (await contextFor(browser, who, viewport)).newPage());
  }

  it("schedules from the staff screen and follows the tournament live to its final standings (1280 px)", async () => {
    const page = await signedIn(root, { width: 1280, height: 900 });
    await page.goto(`${srv.url}/admin/tournaments`);
    await page.fill("input[name=name]", "Web cup");
    await page.selectOption("select[name=format]", "round_robin");
    // The current minute: a start in the past starts at once (the bots connected now check in).
    await page.fill("input[name=starts_at]", new Date().toISOString().slice(0, 16));
    await page.fill("input[name=checkin_minutes]", "0");
    await page.fill("input[name=forfeit_after_s]", "2");
    await Promise.all([
      page.waitForURL(/\/tournaments\/tn/),
      page.click("#tournament-form button[type=submit]"),
    ]);
    tournamentUrl = page.url();
    await page.waitForSelector("#tournament-live");
    // A marker on the window: it survives only if the page updates itself rather than reloading.
    await page.evaluate(() => {
      (window as unknown as { marker: string }).marker = "same page";
    });
    await page.waitForSelector("#tournament-live[data-state=done]", { timeout: 180_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: string }).marker)).toBe("same page");

    await expect(page.locator("#h-standings").textContent()).resolves.toBe("Final standings");
    const rows = page.locator("#tournament-standings tbody tr");
    await expect(rows.count()).resolves.toBe(3);
    // The absentee is last, with two forfeits; the rounds show each pairing and the rests.
    await expect(rows.nth(2).getAttribute("data-bot")).resolves.toBe("web-absent");
    for (const r of [1, 2, 3]) await expect(page.locator(`#round-${r}`).count()).resolves.toBe(1);
    const text = (await page.locator("#tournament-rounds").textContent()) ?? "";
    expect(text.match(/forfeit: web-[ab] wins/g)?.length).toBe(2);
    expect(text.match(/rests/g)?.length).toBe(3);
    await expect(page.locator("#tournament-rounds a[href^='/view/']").count()).resolves.toBe(1);

    // The JSON agrees with the page.
    const id = tournamentUrl.split("/").at(-1)!;
    const t = (await srv.get<{ standings: { bot: string }[]; state: string }>(`/api/tournaments/${id}`)).body;
    expect(t.state).toBe("done");
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-bot")));
    expect(shown).toEqual(t.standings.map((s) => s.bot));
    await page.screenshot({ path: join(SHOTS, "tournament-1280.png"), fullPage: true });
    // The list links it.
    await page.goto(`${srv.url}/tournaments`);
    await expect(page.locator(`#tournament-list a[href='/tournaments/${id}']`).count()).resolves.toBe(1);
  }, 240_000);

  it("fits a 390 px screen: no sideways scroll, the standings and rounds readable", async () => {
    const page = await signedIn(root, { width: 390, height: 844 });
    await page.goto(tournamentUrl);
    await page.waitForSelector("#tournament-standings");
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await expect(page.locator("#tournament-standings").isVisible()).resolves.toBe(true);
    await expect(page.locator("#round-1").isVisible()).resolves.toBe(true);
    // Columns marked for wide screens step aside.
    const hidden = await page.locator("#tournament-standings th.wide-only").first();
    if ((await hidden.count()) > 0) await expect(hidden.isVisible()).resolves.toBe(false);
    await page.screenshot({ path: join(SHOTS, "tournament-390.png"), fullPage: true });
  }, 60_000);
});
