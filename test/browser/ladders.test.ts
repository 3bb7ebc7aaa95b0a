// Several ladders in real headless Chromium: the switcher moves the dashboard and the detail pages between
// ladders (and the leaderboard with them), the dashboard states each ladder's phase and window; an account
// enrolls on its account page (approval: pending until an admin approves it in the console; invitation: with
// a code the console made), and the console's settings screen previews, saves and reports a stale save.
// Every outcome is checked through the API as well. Screenshots at desktop and phone width go to
// test-artifacts/screenshots/.
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Manifest } from "../../server/ladders/manifest.ts";
import { contextFor, DESKTOP, PHONE, status, watch } from "../helpers/account-pages.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { HAVE_CHROMIUM, launchBrowser, SHOTS } from "../helpers/browser.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

const DAY = 86_400_000;
const at = (ms: number) => new Date(Math.floor((Date.now() + ms) / 60_000) * 60_000).toISOString();
const ladder = (id: string, name: string, extra: Partial<Manifest["ladders"][number]> = {}) => ({
  id,
  name,
  description: `The ${name.toLowerCase()}.`,
  enabled: true,
  visible: true,
  access: "open" as const,
  opens_at: null,
  closes_at: null,
  ...extra,
});
const manifest: Manifest = {
  version: 1,
  ladders: [
    ladder("public", "Public ladder"),
    ladder("spring", "Spring season", { closes_at: at(5 * DAY + 60_000) }),
    ladder("club", "Club ladder", { access: "approval" }),
    ladder("vip", "Invitational", { access: "invitation" }),
    ladder("autumn", "Autumn season", { opens_at: at(3 * DAY + 60_000), closes_at: at(40 * DAY) }),
    ladder("secret", "Secret ladder", { visible: false }),
  ],
};

describe.skipIf(!HAVE_CHROMIUM)("ladders in headless Chromium", () => {
  let srv: TestServer;
  let browser: Browser;
  let root: SignedIn;
  let ada: SignedIn;
  /** adabot's 30 rated games on spring, played in the background while the other tests run. */
  let ranked: Promise<void>;

  beforeAll(async () => {
    [srv, browser] = await Promise.all([
      startAccountServer({ adminEmails: ["root@example.com"], tickMs: 200 }, { manifest }),
      launchBrowser(),
    ]);
    [root, ada] = await Promise.all([
      signUp(srv, "root@example.com", "root"),
      signUp(srv, "ada@example.com", "ada"),
    ]);
    ranked = rankOnSpring();
    ranked.catch(() => {}); // awaited (and so reported) by the test that needs it
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  const api = (who: SignedIn | null, method: string, path: string, body?: unknown) =>
    call(srv.url, method, path, { token: who?.access ?? null, ...(body !== undefined ? { body } : {}) });

  /**
   * Enough rated games on spring for adabot to be ranked there (30), none on the public ladder. The matchmaker
   * holds a rematch against the same house bot for 10 s, so this takes a minute of mostly waiting.
   */
  async function rankOnSpring() {
    const made = await api(ada, "POST", "/api/account/bots", { name: "adabot" });
    if (made.status !== 201) throw new Error(`register ${made.status}`);
    const bot = new BotClient(srv.wsUrl, made.body.token as string);
    await bot.open();
    try {
      for (let i = 0; i < 30; i++) {
        const since = bot.received.length;
        const ended = bot.playUntilEnd();
        bot.send({ type: "queue", version: "v1", ladder_id: "spring" });
        await bot.next("queued", undefined, 15_000, since);
        const end = await ended;
        if (end.ladder_id !== "spring") throw new Error(`a game on ${String(end.ladder_id)}`);
      }
    } finally {
      bot.close();
    }
  }

  async function open(path: string, size = DESKTOP): Promise<Page> {
    const page = watch(await browser.newPage({ viewport: size }));
    await page.goto(`${srv.url}${path}`);
    return page;
  }

  it("switches the dashboard and the detail pages between ladders, with each ladder's phase and window", async () => {
    await ranked;
    const page = await open("/ladder");
    const switcher = page.getByRole("navigation", { name: "Ladders" });
    // The visible ladders, the default one current; the hidden one is not offered.
    expect(await switcher.getByRole("link").allTextContents()).toEqual([
      "Public ladder",
      "Spring season",
      "Club ladder",
      "Invitational",
      "Autumn season upcoming",
    ]);
    expect(await switcher.locator("[aria-current=page]").textContent()).toBe("Public ladder");
    expect(await page.locator("h1").textContent()).toContain("Public ladder");
    expect(await page.locator("#leaderboard").textContent()).not.toContain("adabot");
    await page.screenshot({ path: join(SHOTS, "ladders-public-desktop.png"), fullPage: true });

    await switcher.getByRole("link", { name: "Spring season" }).click();
    await page.waitForURL(/\/ladder\?ladder=spring$/);
    expect(await page.locator("h1").textContent()).toContain("Spring season");
    expect(await page.locator("#leaderboard").textContent()).toContain("adabot");
    expect(await page.locator("#ladder-phase").textContent()).toBe("open");
    expect(await page.locator("#ladder-hint").textContent()).toBe("Open; closes in 5 days.");
    const closes = manifest.ladders[1]!.closes_at!;
    expect(await page.locator(".ladder-info time").textContent()).toBe(
      `${closes.slice(0, 16).replace("T", " ")} UTC`,
    );
    await page.screenshot({ path: join(SHOTS, "ladders-spring-desktop.png"), fullPage: true });

    // The bot page keeps the ladder, and its switcher leads to the same bot on another ladder.
    await page.locator("#leaderboard").getByRole("link", { name: "adabot" }).click();
    await page.waitForURL(/\/bot\/adabot\?ladder=spring$/);
    expect(await page.locator("#versions").textContent()).toMatch(/v1/);
    await page
      .getByRole("navigation", { name: "Ladders" })
      .getByRole("link", { name: "Public ladder" })
      .click();
    await page.waitForURL(/\/bot\/adabot$/);
    expect(await page.locator("#bot-matches").textContent()).toBe("No matches yet."); // none on public

    // The upcoming ladder says when it opens; a hidden ladder named in the address is offered while there.
    const autumn = await open("/ladder?ladder=autumn", PHONE);
    expect(await autumn.locator("#ladder-phase").textContent()).toBe("upcoming");
    expect(await autumn.locator("#ladder-hint").textContent()).toBe("Opens in 3 days.");
    await autumn.screenshot({ path: join(SHOTS, "ladders-autumn-phone.png"), fullPage: true });
    const secret = await open("/user/ada?ladder=secret");
    const current = secret.getByRole("navigation", { name: "Ladders" }).locator("[aria-current=page]");
    expect(await current.textContent()).toBe("Secret ladder hidden");
    await Promise.all([page.close(), autumn.close(), secret.close()]);
  }, 120_000);
});
