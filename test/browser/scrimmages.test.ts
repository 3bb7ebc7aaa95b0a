// The scrimmage controls of a bot page and the batch-test page in headless Chromium (issue 34): the owner
// sees them (nobody else does), turns the opt-in on, is told in words why an opponent that has not opted in
// is refused, asks for a scrimmage and cancels it, and starts a batch test whose page follows its progress to
// the summary while the bot plays.
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { HAVE_CHROMIUM, launchBrowser, SHOTS } from "../helpers/browser.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

const DESKTOP = { width: 1280, height: 900 };

describe.skipIf(!HAVE_CHROMIUM)("scrimmage controls in headless Chromium", () => {
  let srv: TestServer;
  let browser: Browser;
  let ann: SignedIn;
  let bot: BotClient;

  beforeAll(async () => {
    [srv, browser] = await Promise.all([startAccountServer(), launchBrowser()]);
    ann = await signUp(srv, "ann@scrim-web.test", "ann");
    const bob = await signUp(srv, "bob@scrim-web.test", "bob");
    const made = await call(srv.url, "POST", "/api/account/bots", {
      token: ann.access,
      body: { name: "ann-a" },
    });
    expect(made.status).toBe(201);
    expect(
      (await call(srv.url, "POST", "/api/account/bots", { token: bob.access, body: { name: "bob-x" } }))
        .status,
    ).toBe(201);
    bot = new BotClient(srv.wsUrl, made.body.token as string);
    await bot.open();
  }, 120_000);
  afterAll(async () => {
    bot?.close();
    await browser?.close();
    await srv?.stop();
  });

  /** A page signed in as `who` (the session the site keeps in localStorage). */
  async function signedIn(who: SignedIn): Promise<Page> {
    const context = await browser.newContext({ viewport: DESKTOP });
    const session = JSON.stringify({
      access_token: who.access,
      refresh_token: who.refresh,
      expires_at: Math.floor(Date.now() / 1000) + 3000,
    });
    await context.addInitScript((s) => localStorage.setItem("arena.session", s), session);
    const page = await context.newPage();
    page.on("pageerror", (err) => {
      throw err;
    });
    return page;
  }

  it("shows the owner's controls: opt-in, a refusal in words, a request and its cancellation", async () => {
    const page = await signedIn(ann);
    await page.goto(`${srv.url}/bot/ann-a`);
    const section = page.locator("#scrimmages");
    await section.waitFor({ state: "visible" });
    expect(await section.locator("h2").textContent()).toBe("Scrimmages");

    const optIn = page.getByLabel("Allow other owners to ask this bot for scrimmages");
    expect(await optIn.isChecked()).toBe(false);
    await optIn.check();
    await expect
      .poll(() => page.locator("#scrimmage-status").textContent())
      .toBe("Other owners may now ask this bot for scrimmages.");
    const listed = await call(srv.url, "GET", "/api/account/bots/ann-a/scrimmages", { token: ann.access });
    expect(listed.body.allow_scrimmages).toBe(true);

    await page
      .getByRole("region", { name: "Scrimmages" })
      .getByLabel("Opponent", { exact: true })
      .fill("bob-x");
    await page.getByRole("button", { name: "Ask for a scrimmage" }).click();
    await expect.poll(() => page.locator("#scrimmage-status").getAttribute("data-kind")).toBe("error");
    expect(await page.locator("#scrimmage-status").textContent()).toContain(
      "does not allow scrimmages against it",
    );

    await page
      .getByRole("region", { name: "Scrimmages" })
      .getByLabel("Opponent", { exact: true })
      .fill("kiter");
    await page.getByLabel("Map").selectOption("columns-21");
    await page.getByRole("button", { name: "Ask for a scrimmage" }).click();
    await expect
      .poll(() => page.locator("#scrimmage-status").textContent())
      .toBe("Asked for a scrimmage against kiter: it starts when both bots have queued.");
    // The list is drawn again from the server once the request is in.
    const row = page.locator("#scrimmages-table tbody tr").first();
    await expect
      .poll(() => row.locator("td").allTextContents())
      .toEqual(["kiter", "pending", "columns-21", "—", "Cancel"]);
    await page.screenshot({ path: join(SHOTS, "bot-scrimmages.png"), fullPage: true });
    await row.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => row.locator("td").nth(1).textContent()).toBe("cancelled");
    await page.context().close();
  });

  it("shows nothing to a visitor who does not own the bot", async () => {
    const page = await signedIn(ann);
    await page.goto(`${srv.url}/bot/bob-x`);
    await page.waitForLoadState("networkidle");
    expect(await page.locator("#scrimmages").isHidden()).toBe(true);
    await page.context().close();
  });

  it("starts a batch test whose page follows the games to the summary", async () => {
    const page = await signedIn(ann);
    await page.goto(`${srv.url}/bot/ann-a`);
    await page.locator("#scrimmages").waitFor({ state: "visible" });
    await page.getByLabel("Opponents (comma separated)").fill("kiter, brawler");
    await page.getByLabel("Games").fill("4");
    await page.getByRole("button", { name: "Start batch test" }).click();
    await expect
      .poll(() => page.locator("#scrimmage-status").textContent())
      .toBe("Batch test started: 4 games.");
    const link = page.locator("#batch-list a").first();
    await page.goto(`${srv.url}${await link.getAttribute("href")}`);
    expect(await page.locator("#batch-state").textContent()).toContain("0 of 4 games finished");
    // The bot plays its games; the page reloads itself until the batch is done.
    const stop = bot.autoplay();
    // Ready for each game, and queued again after each end, as a starter does.
    const requeue = (data: Buffer) => {
      const type = (JSON.parse(data.toString()) as { type: string }).type;
      if (type === "hello") bot.send({ type: "ready" });
      if (type === "end") bot.send({ type: "queue", version: "web" });
    };
    bot.ws.on("message", requeue);
    bot.send({ type: "queue", version: "web" });
    await expect
      .poll(
        () =>
          page
            .locator("#batch-state")
            .textContent()
            .catch(() => ""),
        { timeout: 120_000 },
      )
      .toBe("finished: 4 games");
    bot.ws.off("message", requeue);
    stop();
    expect(await page.locator("#batch-games tbody tr").count()).toBe(4);
    expect(await page.locator("#batch-opponents tbody tr").count()).toBe(2);
    expect(await page.locator("#batch-total").textContent()).toMatch(/^\d+ wins, \d+ losses, \d+ draws/);
    await page.screenshot({ path: join(SHOTS, "batch-test.png"), fullPage: true });
    await page.context().close();
  }, 180_000);
});
