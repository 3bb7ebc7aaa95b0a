// Announcements in real headless Chromium: an admin composes, previews (the rendered email in a sandboxed
// frame, the audience counted, nothing sent) and publishes from the console; the email goes out over a real
// SMTP server on loopback; a player's open page shows the notice within one 15-second poll, and a dismissed
// notice stays dismissed.
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contextFor, DESKTOP, status, watch } from "../helpers/account-pages.ts";
import { call, mailText } from "../helpers/accounts.ts";
import { HAVE_CHROMIUM, launchBrowser, SHOTS } from "../helpers/browser.ts";
import { type Sink, signUpBySmtp, startSink } from "../helpers/mail-sink.ts";
import { freePort } from "../helpers/ports.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

describe.skipIf(!HAVE_CHROMIUM)("announcements in headless Chromium", () => {
  let srv: TestServer;
  let sink: Sink;
  let browser: Browser;
  let root: Awaited<ReturnType<typeof signUpBySmtp>>;
  let ada: Awaited<ReturnType<typeof signUpBySmtp>>;

  beforeAll(async () => {
    sink = await startSink();
    const port = await freePort();
    [srv, browser] = await Promise.all([
      startServer({
        port,
        host: "127.0.0.1",
        publicUrl: `http://127.0.0.1:${port}`,
        anonymousDev: false,
        smtpUrl: `smtp://127.0.0.1:${sink.port}`,
        adminEmails: ["root@web.test"],
      }),
      launchBrowser(),
    ]);
    root = await signUpBySmtp(srv.url, sink, "root@web.test", "root");
    ada = await signUpBySmtp(srv.url, sink, "ada@web.test", "ada");
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    await sink?.close();
  });

  it("composes, previews and publishes an announcement from the console", async () => {
    const context = await contextFor(browser, root, DESKTOP);
    const page = watch(await context.newPage());
    await page.goto(`${srv.url}/admin#h-announcements`);
    await page.locator("#announce-form").waitFor();
    await page.locator("#announce-title").fill("Season three");
    await page.locator("#announce-body").fill("New maps tonight.\nSee the changelog.");
    await page.locator("#announce-email").check();
    const sentBefore = sink.submissions.length;
    await page.locator("#announce-preview").click();
    await status(page, "admin-status", "Draft saved");
    expect(await page.locator("#draft-recipients").textContent()).toBe(
      "Email to 2 of 2 accounts (0 opted out, 0 without an address).",
    );
    const email = page.locator("#draft-email");
    expect(await email.locator("p").first().textContent()).toBe("New maps tonight.See the changelog.");
    expect(await email.locator("p").first().locator("br").count()).toBe(1);
    expect(await email.textContent()).toContain("Unsubscribe from Announcements");
    await page.screenshot({ path: join(SHOTS, "admin-announcement-preview.png"), fullPage: true });
    // The preview sent nothing; it is a draft in the list.
    expect(sink.submissions.length).toBe(sentBefore);
    await expect.poll(() => page.locator("#announcements-table").textContent()).toContain("draft");

    await page.getByRole("button", { name: "Publish", exact: true }).first().click();
    await status(page, "admin-status", "Published “Season three”.");
    const row = page.locator("#announcements-table tr", { hasText: "Season three" });
    await expect.poll(() => row.textContent()).toContain("published");
    // Both accounts get the email (one per second), and the console's counts follow.
    await sink.until((m) => m.filter((x) => x.category === "announcements").length === 2, 20_000);
    await page.getByRole("link", { name: "Announcements" }).click();
    await expect
      .poll(
        async () => {
          await page.evaluate(() => document.getElementById("h-announcements")?.scrollIntoView());
          const list = (await call(srv.url, "GET", "/api/admin/announcements", { token: root.access }))
            .body as unknown as {
            delivery: { accepted: number };
          }[];
          return list[0]?.delivery.accepted;
        },
        { timeout: 10_000 },
      )
      .toBe(2);
    await page.reload();
    await expect
      .poll(() => page.locator("#announcements-table .delivery").first().textContent())
      .toBe("2 accepted");
    await page.screenshot({ path: join(SHOTS, "admin-announcements.png"), fullPage: true });

    // The email's link opens a page that says what it is for and opts out only when asked.
    const mail = sink.of("announcements").find((m) => m.to === "ada@web.test")!;
    const link = /https?:\/\/[^\s/]+\/email\/unsubscribe\?token=[\w.%-]+/.exec(mailText(mail.raw))![0];
    await page.goto(link);
    const unsubscribe = page.getByRole("button", { name: "Unsubscribe from “Announcements”" });
    await unsubscribe.waitFor();
    expect((await call(srv.url, "GET", "/api/account", { token: ada.access })).body.email_announcements).toBe(
      true,
    );
    await unsubscribe.click();
    await page.locator("#unsub-text", { hasText: "no longer get" }).waitFor();
    expect((await call(srv.url, "GET", "/api/account", { token: ada.access })).body.email_announcements).toBe(
      false,
    );
    await context.close();
  }, 60_000);

  it("shows the in-game notice on an open page within one poll, and keeps a dismissal", async () => {
    const context = await contextFor(browser, ada, DESKTOP);
    const page = watch(await context.newPage());
    const early = await call(srv.url, "POST", "/api/admin/announcements/preview", {
      token: root.access,
      body: { title: "Season three", body: "Welcome back.", in_game: true, email: false },
    });
    await call(srv.url, "POST", `/api/admin/announcements/${String(early.body.id)}/publish`, {
      token: root.access,
    });
    // The page's own clock (Playwright's fake timers; time still flows as usual) lets the test pass the 15 s
    // to the next poll below at once instead of waiting them out: the poll, its fetch and the notice are real.
    await page.clock.install();
    await page.goto(`${srv.url}/ladder`);
    // Shown from the first poll (as the page loads); dismiss it.
    const first = page.locator(".announcement", { hasText: "Season three" }).first();
    await first.waitFor({ timeout: 5_000 });
    while ((await page.locator(".announcement", { hasText: "Season three" }).count()) > 0)
      await page
        .locator(".announcement", { hasText: "Season three" })
        .first()
        .getByRole("button", { name: "Dismiss the announcement: Season three" })
        .click();

    // Published while the page is open: it appears at the next poll (every 15 s).
    const d = await call(srv.url, "POST", "/api/admin/announcements/preview", {
      token: root.access,
      body: {
        title: "Server restart at 22:00",
        body: "Matches in progress finish first.",
        in_game: true,
        email: false,
      },
    });
    const published = Date.now();
    await call(srv.url, "POST", `/api/admin/announcements/${String(d.body.id)}/publish`, {
      token: root.access,
    });
    const notice = page.locator(".announcement", { hasText: "Server restart at 22:00" });
    await page.clock.runFor(15_000); // the page's 15 s to its next poll
    await notice.waitFor({ timeout: 16_000 });
    expect(Date.now() - published).toBeLessThan(16_000);
    expect(await notice.locator(".announcement-body").textContent()).toBe(
      "Matches in progress finish first.",
    );
    await page.screenshot({ path: join(SHOTS, "in-game-notice.png") });
    // The dismissed one stays dismissed on another page.
    await page.goto(`${srv.url}/`);
    await page.locator(".announcement", { hasText: "Server restart" }).waitFor({ timeout: 5_000 });
    expect(await page.locator(".announcement", { hasText: "Season three" }).count()).toBe(0);
    await context.close();
  }, 60_000);
});
