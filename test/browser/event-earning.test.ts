// Earning an event achievement from the site alone (issue 37): an account signed in on /account registers a
// bot, sees that the open Public ladder's event counts only enrolled accounts, enrolls with the one click the
// ladder card offers, runs the bot (one ranked match against a house bot), and sees the card earned with its
// flag to reveal; at 1280 and 390 px. Before the Enroll button, an open ladder offered no way to enroll and
// every card stayed "0 of 1".
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EventDefinition, HOUSE_NAMES } from "../../server/ladders/event-definition.ts";
import type { Manifest } from "../../server/ladders/manifest.ts";
import { contextFor, DESKTOP, PHONE, status, watch } from "../helpers/account-pages.ts";
import { signUp, startAccountServer } from "../helpers/accounts.ts";
import { HAVE_CHROMIUM, launchBrowser, SHOTS } from "../helpers/browser.ts";
import { ladderDef } from "../helpers/ladders.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(Date.now() + ms).toISOString();
const spring: EventDefinition = {
  id: "spring",
  name: "Spring cup",
  description: "A test event",
  ladder_id: "public",
  opens_at: iso(-HOUR),
  closes_at: iso(5 * HOUR),
  timezone: "UTC",
  enabled: true,
  achievements: ["a", "b", "c", "d", "e"].map((x, i) => ({
    id: x,
    name: `Achievement ${x.toUpperCase()}`,
    description: `Do ${x}`,
    // The first is met by any one ranked match against an official opponent; the others need more.
    condition: { opponent: "official", matches: 1 + i * 100 },
  })),
  opponents: HOUSE_NAMES.map((name) => ({ kind: "house" as const, name, display_name: name })),
  metadata: null,
  submission_url: null,
  submission_instructions: "",
  flag_mode: "testing",
};
const manifest: Manifest = {
  version: 1,
  ladders: [ladderDef("public", { name: "Public ladder" })],
  events: [spring],
};

describe.skipIf(!HAVE_CHROMIUM)("earning an event achievement from the site", () => {
  let srv: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    // A short startup window: the match is a forfeit of a bot that never says ready, the quickest ranked game.
    [srv, browser] = await Promise.all([
      startAccountServer({ tickMs: 200, startupMs: 300 }, { manifest }),
      launchBrowser(),
    ]);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  for (const size of [DESKTOP, PHONE])
    it(`enrolls in one click on the open ladder and earns with a ranked match, at ${size.width} px`, async () => {
      const handle = `bea${size.width}`;
      const who = await signUp(srv, `${handle}@example.com`, handle);
      const context = await contextFor(browser, who, size);
      const page = watch(await context.newPage());
      await page.goto(`${srv.url}/account`);
      await page.locator("#register-name").fill(`${handle}-bot`);
      await page.getByRole("button", { name: "Register bot" }).click();
      await page.locator("#secret-panel").waitFor();
      const token = (await page.locator("#secret-value").textContent()) ?? "";
      await page.getByRole("button", { name: "I have copied it" }).click();

      // Not enrolled yet: the event says how, and the open ladder's card has the button.
      const event = page.locator("article[data-event='spring']");
      await event.locator(".achievement-card").first().waitFor();
      expect(await event.textContent()).toContain(
        "To earn these achievements, enroll on the Public ladder with its Enroll button under Ladders. Matches played before you enroll do not count.",
      );
      expect(
        await event.getByRole("link", { name: "its Enroll button under Ladders" }).getAttribute("href"),
      ).toBe("#ladder-h-public");
      const card = page.locator("#ladder-list li[data-ladder='public']");
      expect(await card.textContent()).toContain("Enroll to take part in Spring cup");
      await card.getByRole("button", { name: "Enroll on the Public ladder" }).click();
      await status(page, "account-status", "You are enrolled on the Public ladder");
      expect(await card.getAttribute("data-membership")).toBe("active");
      // The events section has read the enrollment: no note, the request form is offered.
      await event.locator("form[data-request]").waitFor();
      expect(await event.textContent()).not.toContain("To earn these achievements");

      // The bot plays one ranked match (a forfeit: it never says ready) against a house bot.
      const bot = new BotClient(srv.wsUrl, token);
      await bot.open();
      bot.send({ type: "queue", version: "v1" });
      const hello = await bot.next("hello", undefined, 30_000, 0);
      const end = await bot.next("end", undefined, 30_000, 0);
      expect(end.match_id).toBe(hello.match_id);
      bot.close();

      // The card counts it: earned, with its flag to reveal (a marked testing value).
      const first = event.locator(".achievement-card").first();
      const until = Date.now() + 20_000;
      while (!(await first.evaluate((n) => n.classList.contains("earned")))) {
        expect(Date.now()).toBeLessThan(until);
        await page.waitForTimeout(250);
        await page.reload();
        await first.waitFor();
      }
      expect(await first.textContent()).toContain("1 of 1");
      expect(await event.locator(".achievement-card").nth(1).textContent()).toContain("1 of 101");
      await event.getByRole("button", { name: "Reveal flag of Achievement A" }).click();
      const flag = event.locator("code[data-flag='a']");
      await flag.waitFor({ state: "visible" });
      expect(await flag.textContent()).toMatch(/^TESTING-ONLY-NOT-A-REAL-FLAG\{spring\/a\//);
      await page.screenshot({ path: join(SHOTS, `account-event-earned-${size.width}.png`), fullPage: true });
      await context.close();
    }, 120_000);
});
