// The event pages in real headless Chromium (issue 16): the event page (schedule in the event's zone and the
// reader's, phase, five achievements, opponents, image, submission link, leaderboard), the account page's
// achievement cards with a reveal, and the admin console's schedule edit (saved, and a refused edit said as
// the server says it). Screenshots go to test-artifacts/screenshots/.
import { join } from "node:path";
import type { Browser } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventDefinition } from "../../server/ladders/event-definition.ts";
import type { Manifest } from "../../server/ladders/manifest.ts";
import { contextFor, DESKTOP, PHONE, status, watch } from "../helpers/account-pages.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { HAVE_CHROMIUM, launchBrowser, SHOTS } from "../helpers/browser.ts";
import { ladderDef } from "../helpers/ladders.ts";
import type { TestServer } from "../helpers/server.ts";

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(Date.now() + ms).toISOString();
const event = (id: string, name: string, opens: string, closes: string): EventDefinition => ({
  id,
  name,
  description: `${name}: a test event`,
  ladder_id: "public",
  opens_at: opens,
  closes_at: closes,
  timezone: "Asia/Tokyo",
  enabled: true,
  achievements: ["a", "b", "c", "d", "e"].map((x) => ({
    id: x,
    name: `Achievement ${x.toUpperCase()}`,
    description: `Do ${x}`,
    condition: { opponent: "official", matches: 1 },
  })),
  opponents: [
    { kind: "house", name: "kiter", display_name: "Kiter" },
    { kind: "house", name: "champion", display_name: "Champion" },
  ],
  metadata: { kind: "main", purpose: "Testing", audience: "Everyone", format: "Ranked", preparation: "" },
  submission_url: null,
  submission_instructions: "",
  flag_mode: "testing",
});
const manifest: Manifest = {
  version: 1,
  ladders: [ladderDef("public", { name: "Public ladder" })],
  events: [
    event("spring", "Spring cup", iso(-HOUR), iso(5 * HOUR)),
    event("summer", "Summer cup", iso(2 * HOUR), iso(6 * HOUR)),
  ],
};

describe.skipIf(!HAVE_CHROMIUM)("event pages in headless Chromium", () => {
  let srv: TestServer;
  let browser: Browser;
  let root: SignedIn;
  let ada: SignedIn;

  beforeAll(async () => {
    [srv, browser] = await Promise.all([
      startAccountServer({ adminEmails: ["root@example.com"] }, { manifest }),
      launchBrowser(),
    ]);
    [root, ada] = await Promise.all([
      signUp(srv, "root@example.com", "root"),
      signUp(srv, "ada@example.com", "ada"),
    ]);
    expect(
      (await call(srv.url, "POST", "/api/account/bots", { token: ada.access, body: { name: "adabot" } }))
        .status,
    ).toBe(201);
    expect(
      (await call(srv.url, "POST", "/api/account/ladders/public/enrollment", { token: ada.access, body: {} }))
        .status,
    ).toBe(200);
    // An image and a submission link, through the admin routes.
    const png = await sharp({ create: { width: 800, height: 300, channels: 3, background: "#2a5d9f" } })
      .png()
      .toBuffer();
    const up = await fetch(`${srv.url}/api/admin/events/spring/image`, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${root.access}`,
        "content-type": "image/png",
        "x-arena-image-alt": "Spring%20banner",
      },
      body: new Uint8Array(png),
    });
    expect(up.status).toBe(200);
    const sub = await call(srv.url, "PUT", "/api/admin/events/spring/submission", {
      token: root.access,
      body: {
        submission_url: "https://example.com/spring",
        submission_instructions: "Send a short write-up.",
      },
    });
    expect(sub.status).toBe(200);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  it("shows the event page: schedule in both zones, phase, achievements, opponents, image, submission, leaderboard", async () => {
    const context = await browser.newContext({ viewport: DESKTOP, timezoneId: "America/New_York" });
    const page = watch(await context.newPage());
    const res = await page.goto(`${srv.url}/events/spring`);
    expect(res?.status()).toBe(200);
    await expect(page.locator("h1").textContent()).resolves.toBe("Spring cup");
    expect(await page.locator("#event-phase").textContent()).toBe("Open now");
    const opens = manifest.events![0]!.opens_at!;
    const row = page.locator(".schedule tbody tr").first();
    // The event's zone (Tokyo) from the server, the reader's (New York) from the script.
    expect(await row.locator("td").nth(0).textContent()).toMatch(/GMT\+9/);
    await page.waitForFunction(
      () => !document.querySelector("time[data-local]")?.textContent?.includes("UTC"),
    );
    const local = await row.locator("time[data-local]").textContent();
    expect(local).toMatch(/EST|EDT|GMT-[45]/);
    expect(await row.locator("time").getAttribute("datetime")).toBe(opens);
    expect(await page.locator(".achievements > li").count()).toBe(5);
    expect(await page.locator(".opponents li").allTextContents()).toEqual([
      expect.stringContaining("Kiter"),
      expect.stringContaining("Champion"),
    ]);
    const img = page.locator("img.event-image");
    expect(await img.getAttribute("alt")).toBe("Spring banner");
    await page.waitForFunction(
      () => (document.querySelector("img.event-image") as HTMLImageElement)?.naturalWidth > 0,
    );
    expect(await page.getByRole("link", { name: "Submit" }).getAttribute("href")).toBe(
      "https://example.com/spring",
    );
    expect(await page.locator("#h-leaderboard").textContent()).toContain("Public ladder");
    expect(await page.locator("body").textContent()).not.toContain("TESTING-ONLY");
    await page.screenshot({ path: join(SHOTS, "event-page.png"), fullPage: true });
    const list = watch(await context.newPage());
    await list.goto(`${srv.url}/events`);
    expect(await list.locator(".event-list li").count()).toBe(2);
    await context.close();
  });

  it("shows the account's cards with progress, and reveals an earned flag", async () => {
    await srv.app.ctx.store.work((u) =>
      srv.app.ctx.events.tables.award(u.q, {
        eventId: "spring",
        accountId: ada.id,
        achievementId: "b",
        earnedAt: new Date().toISOString(),
        evidence: [],
      }),
    );
    for (const size of [DESKTOP, PHONE]) {
      const context = await contextFor(browser, ada, size);
      const page = watch(await context.newPage());
      await page.goto(`${srv.url}/account#events`);
      const spring = page.locator("article[data-event='spring']");
      await spring.locator(".achievement-card").first().waitFor();
      expect(await spring.locator(".achievement-card").count()).toBe(5);
      expect(await spring.locator("progress").count()).toBe(5);
      expect(await spring.locator(".achievement-card.earned").count()).toBe(1);
      // Only the earned card offers a reveal; no flag is on the page until it is asked for.
      expect(await spring.locator("button[data-reveal]").count()).toBe(1);
      expect(await page.locator("body").textContent()).not.toContain("TESTING-ONLY");
      await spring.getByRole("button", { name: "Reveal flag of Achievement B" }).click();
      const flag = spring.locator("code[data-flag='b']");
      await flag.waitFor({ state: "visible" });
      expect(await flag.textContent()).toMatch(/^TESTING-ONLY-NOT-A-REAL-FLAG\{spring\/b\//);
      await status(page, "events-status", "Flag of Achievement B revealed.");
      // The upcoming event offers no request form.
      expect(await page.locator("article[data-event='summer'] form[data-request]").count()).toBe(0);
      await page.screenshot({ path: join(SHOTS, `account-events-${size.width}.png`), fullPage: true });
      await context.close();
    }
  });

  it("edits a schedule in the admin console, and says a refused edit as the server does", async () => {
    const context = await contextFor(browser, root, DESKTOP);
    const page = watch(await context.newPage());
    await page.goto(`${srv.url}/admin#h-events`);
    await page.locator("#event-table").waitFor();
    await page.getByRole("button", { name: "Manage Summer cup" }).click();
    await page.locator("#event-detail").waitFor({ state: "visible" });
    expect(await page.locator("#h-event-detail").textContent()).toBe("Summer cup");
    const closes = iso(8 * HOUR);
    await page.getByLabel("Closes at").fill(closes);
    await page.getByRole("button", { name: "Save schedule" }).click();
    await status(page, "admin-status", "Schedule saved.");
    const listed = await call(srv.url, "GET", "/api/events?event=summer", {});
    expect(
      (listed.body as unknown as { id: string; closes_at: string }[]).find((e) => e.id === "summer")!
        .closes_at,
    ).toBe(new Date(closes).toISOString());
    // Reversed: the server's invalid_window message is shown.
    await page.getByLabel("Opens at").fill(iso(9 * HOUR));
    await page.getByRole("button", { name: "Save schedule" }).click();
    await status(page, "admin-status", "closes_at must follow opens_at");
    await page.screenshot({ path: join(SHOTS, "admin-events.png"), fullPage: true });
    await context.close();
  });
});
