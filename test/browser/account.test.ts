// The account page and the admin console in real headless Chromium against the real server and its built-in
// identity provider: sign up, confirm through the emailed PKCE link in the same browser, set a handle, see a
// bot token and an agent key exactly once, rotate a token, sign out and in; a non-admin is refused /admin
// and an admin (configured by email) moderates a bot. Screenshots go to test-artifacts/screenshots/.
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contextFor as contextIn, DESKTOP, PHONE, status, watch } from "../helpers/account-pages.ts";
import { call, linkIn, outboxMail, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { CHROMIUM_MISSING, launchBrowser, SHOTS } from "../helpers/browser.ts";
import type { TestServer } from "../helpers/server.ts";
import { skipAllIf } from "../helpers/skips.ts";

const SIZES = [
  ["desktop", DESKTOP],
  ["phone", PHONE],
] as const;

describe("account and admin pages in headless Chromium", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let browser: Browser;
  let ada: BrowserContext;
  let adaPage: Page;
  const email = "ada@example.com";
  const password = "correct horse battery";

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    srv = await startAccountServer({ adminEmails: ["root@example.com"] });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  const contextFor = (who: SignedIn, viewport: { width: number; height: number } = DESKTOP) =>
    contextIn(browser, who, viewport);

  async function noSidewaysScroll(page: Page, what: string) {
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${what} scrolls sideways`).toBeLessThanOrEqual(0);
  }

  it("signs up, confirms through the emailed PKCE link, sets a handle and sees a bot token and an agent key once", async () => {
    ada = await browser.newContext({ viewport: DESKTOP });
    const page = watch(await ada.newPage());
    adaPage = page;
    await page.goto(`${srv.url}/account`);
    await page.locator("#signed-out").waitFor();
    expect(await page.locator("#signed-in").isHidden()).toBe(true);

    // Signing in before confirming is refused in plain words.
    const started = Date.now() - 1;
    await page.locator("#signup-email").fill(email);
    await page.locator("#signup-password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    // This server has no SMTP: the page says where the link went (issue 37), not "we sent".
    await status(page, "account-status", "this server sends no email (no SMTP is configured)");
    expect(await page.locator("#account-status").textContent()).toContain("printed on its console");
    const pending = await page.evaluate(() => JSON.parse(localStorage.getItem("arena.pkce") ?? "null"));
    expect(pending?.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await page.locator("#signin-password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await status(page, "account-status", "not confirmed yet");

    // The emailed link, opened in this same browser: the provider confirms and returns ?code=, which only
    // the verifier this page stored can exchange.
    const link = linkIn(await outboxMail(srv.dataDir, email, started));
    expect(new URL(link).origin).toBe(srv.url);
    await page.goto(link);
    await page.locator("#signed-in").waitFor();
    await status(page, "account-status", "confirmed");
    expect(page.url()).toBe(`${srv.url}/account`);
    expect(await page.locator("#signed-out").isHidden()).toBe(true);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("arena.session") ?? "null"));
    expect(Object.keys(stored).sort()).toEqual(["access_token", "expires_at", "refresh_token"]);
    expect(stored.expires_at).toBeGreaterThan(Date.now() / 1000);
    expect(await page.evaluate(() => localStorage.getItem("arena.pkce"))).toBeNull();
    expect(await page.locator("#who-email").textContent()).toBe(email);

    // No handle yet: the handle field has focus and registering is not offered.
    // The page moves focus once the account is drawn, which may come a moment after its text is there.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("handle-input");
    expect(await page.locator("#register-name").isDisabled()).toBe(true);
    await page.locator("#handle-input").fill("ada");
    await page.getByRole("button", { name: "Save handle" }).click();
    await status(page, "account-status", "Your handle is now ada");
    expect(await page.locator("#register-name").isDisabled()).toBe(false);

    // A bot: its token appears once, in the panel that takes focus, and it works on the bot routes.
    await page.locator("#register-name").fill("ada-bot");
    await page.getByRole("button", { name: "Register bot" }).click();
    await page.locator("#secret-panel").waitFor();
    const token = (await page.locator("#secret-value").textContent()) ?? "";
    expect(token.length).toBeGreaterThan(20);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("secret-panel");
    expect((await call(srv.url, "GET", "/api/me", { token })).status).toBe(200);
    await page.locator("#bot-list li[data-name='ada-bot']").waitFor();
    await page.getByRole("button", { name: "I have copied it" }).click();
    expect(await page.locator("#secret-panel").isHidden()).toBe(true);
    expect(await page.locator("#secret-value").textContent()).toBe("");

    // An agent key, shown once too.
    await page.locator("#key-label").fill("ci");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.locator("#secret-panel").waitFor();
    const key = (await page.locator("#secret-value").textContent()) ?? "";
    expect(key).toMatch(/^ak_/);
    await page.locator("#key-list li").filter({ hasText: "ci" }).waitFor();

    for (const [label, size] of SIZES) {
      await page.setViewportSize(size);
      await noSidewaysScroll(page, `/account signed in at ${label} width`);
      await page.screenshot({ path: join(SHOTS, `account-signed-in-${label}.png`), fullPage: true });
    }
    await page.setViewportSize(DESKTOP);

    // After a reload neither secret is anywhere: not in the page, not in storage.
    await page.reload();
    await page.locator("#bot-list li[data-name='ada-bot']").waitFor();
    const html = await page.content();
    const storage = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    for (const secret of [token, key]) {
      expect(html).not.toContain(secret);
      expect(storage).not.toContain(secret);
    }
    expect(await page.locator("#secret-panel").isHidden()).toBe(true);
  });

  it("rotates a bot token (the old one stops working), signs out and signs back in", async () => {
    const page = adaPage;
    const before = await page.evaluate(() => localStorage.getItem("arena.session"));
    await page.getByText("Manage ada-bot").click();
    await page.getByRole("button", { name: "New token" }).click();
    await page.locator("#secret-panel").waitFor();
    const fresh = (await page.locator("#secret-value").textContent()) ?? "";
    expect((await call(srv.url, "GET", "/api/me", { token: fresh })).status).toBe(200);
    await page.getByRole("button", { name: "I have copied it" }).click();

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.locator("#signed-out").waitFor();
    expect(await page.evaluate(() => localStorage.getItem("arena.session"))).toBeNull();
    // The provider ended that session too: its refresh token no longer works.
    const old = JSON.parse(before ?? "{}") as { refresh_token: string };
    const index = (await (await fetch(`${srv.url}/api`)).json()) as {
      accounts: { identity_url: string; publishable_key: string };
    };
    const refreshed = await fetch(`${index.accounts.identity_url}/token?grant_type=refresh_token`, {
      method: "POST",
      headers: { apikey: index.accounts.publishable_key, "content-type": "application/json" },
      body: JSON.stringify({ refresh_token: old.refresh_token }),
    });
    expect(refreshed.status).toBe(400);

    await page.locator("#signin-email").fill(email);
    await page.locator("#signin-password").fill("wrong password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await status(page, "account-status", "do not match");
    await page.locator("#signin-password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.locator("#signed-in").waitFor();
    await page.locator("#bot-list li[data-name='ada-bot']").waitFor();
    expect(await page.locator("#who-handle").textContent()).toContain("ada");
  });

  it("refuses a non-admin at /admin without showing admin data", async () => {
    // Signed out: the console asks for a sign-in.
    const anon = await browser.newContext({ viewport: DESKTOP });
    const out = watch(await anon.newPage());
    await out.goto(`${srv.url}/admin`);
    await out.locator("#admin-signed-out").waitFor();
    await anon.close();

    const bob = await signUp(srv, "bob@example.com", "bob");
    for (const [label, size] of SIZES) {
      const context = await contextFor(bob, size);
      const page = watch(await context.newPage());
      const answers: number[] = [];
      page.on("response", (r) => {
        if (r.url().includes("/api/admin/")) answers.push(r.status());
      });
      await page.goto(`${srv.url}/admin`);
      await page.locator("#admin-refused").waitFor();
      expect(await page.locator("#admin-refused").textContent()).toContain("Not an admin");
      expect(await page.locator("#admin-console").isHidden()).toBe(true);
      expect(await page.locator("#overview").innerHTML()).toBe("");
      expect(await page.locator("#accounts").innerHTML()).toBe("");
      expect(answers).toEqual([403]);
      await noSidewaysScroll(page, `/admin refused at ${label} width`);
      await page.screenshot({ path: join(SHOTS, `admin-refused-${label}.png`), fullPage: true });
      await context.close();
    }
  });

  it("an admin sees the console and suspends a bot", async () => {
    const root = await signUp(srv, "root@example.com", "root");
    const context = await contextFor(root);
    const page = watch(await context.newPage());
    await page.goto(`${srv.url}/admin`);
    await page.locator("#admin-console").waitFor();
    await page.locator("#admin-list li").filter({ hasText: "root" }).waitFor();
    await page.locator("#account-table").filter({ hasText: "ada" }).waitFor();
    await page.locator("#audit-table").filter({ hasText: "registration" }).waitFor();

    await page.locator("#bot-action-name").fill("ada-bot");
    await page.getByRole("button", { name: "Suspend", exact: true }).click();
    await status(page, "admin-status", "ada-bot is now suspended");
    await page.locator("#moderated-bots tr").filter({ hasText: "ada-bot" }).waitFor();
    const listed = await call(srv.url, "GET", "/api/admin/accounts?q=ada-bot", { token: root.access });
    const accounts = listed.body.accounts as { bots: { name: string; status: string }[] }[];
    expect(accounts[0]?.bots.find((b) => b.name === "ada-bot")?.status).toBe("suspended");
    await page.locator("#audit-table").filter({ hasText: "suspend" }).waitFor();

    for (const [label, size] of SIZES) {
      await page.setViewportSize(size);
      await noSidewaysScroll(page, `/admin at ${label} width`);
      await page.screenshot({ path: join(SHOTS, `admin-${label}.png`), fullPage: true });
    }
    await context.close();

    // Ada's page shows the suspension and no longer offers rename or delete for it.
    await adaPage.reload();
    await adaPage.locator("#bot-list li[data-name='ada-bot'][data-status='suspended']").waitFor();
    expect(await adaPage.locator("#bot-list li[data-name='ada-bot'] .remove").count()).toBe(0);
  });

  it("the signed-out account page renders at desktop and phone width (screenshots saved)", async () => {
    for (const [label, size] of SIZES) {
      const context = await browser.newContext({ viewport: size });
      const page = watch(await context.newPage());
      const res = await page.goto(`${srv.url}/account`);
      expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
      await page.locator("#signed-out").waitFor();
      await noSidewaysScroll(page, `/account at ${label} width`);
      await page.screenshot({ path: join(SHOTS, `account-signed-out-${label}.png`), fullPage: true });
      await context.close();
    }
    await ada?.close();
  });
});
