import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contextFor, DESKTOP, dialogsOf, status, watch } from "../helpers/account-pages.ts";
import { call, linkIn, outboxMail, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { CHROMIUM_MISSING, launchBrowser, SHOTS } from "../helpers/browser.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";
import { skipAllIf } from "../helpers/skips.ts";

describe("account and admin flows in headless Chromium", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let browser: Browser;
  let bo: SignedIn;
  let boContext: BrowserContext;
  let boPage: Page;

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    // Anonymous development registration is on so a bot without an account exists to be claimed.
    [srv, browser] = await Promise.all([
      startAccountServer({
        adminEmails: ["root@example.com"],
        anonymousDev: true,
        maxBots: 10,
        tickMs: 100,
        startupMs: 5000,
      }),
      launchBrowser(),
    ]);
    bo = await signUp(srv, "bo@example.com", "bo");
    boContext = await contextFor(browser, bo);
    boPage = watch(await boContext.newPage());
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  const identityCall = async (path: string, body: unknown) => {
    const index = (await (await fetch(`${srv.url}/api`)).json()) as {
      accounts: { identity_url: string; publishable_key: string };
    };
    return call(srv.url, "POST", `${new URL(index.accounts.identity_url).pathname}${path}`, {
      body,
      headers: { apikey: index.accounts.publishable_key },
    });
  };
  const mailsTo = async (to: string) => {
    const dir = join(srv.dataDir, "outbox");
    const { readFile } = await import("node:fs/promises");
    let n = 0;
    for (const f of await readdir(dir).catch(() => [] as string[])) {
      if ((await readFile(join(dir, f), "utf8")).toLowerCase().includes(`to: ${to}`)) n++;
    }
    return n;
  };
  const botRow = (page: Page, name: string) => page.locator(`#bot-list li[data-name='${name}']`);
  /** Opens a bot's "Manage" disclosure from the keyboard (focus the summary, press Enter). */
  async function manage(page: Page, name: string) {
    const summary = botRow(page, name).locator("summary");
    await summary.focus();
    await page.keyboard.press("Enter");
    await botRow(page, name).locator("details[open]").waitFor();
  }
  async function dismissSecret(page: Page): Promise<string> {
    await page.locator("#secret-panel").waitFor();
    const secret = (await page.locator("#secret-value").textContent()) ?? "";
    await page.getByRole("button", { name: "I have copied it" }).click();
    await page.locator("#secret-panel").waitFor({ state: "hidden" });
    return secret;
  }

  it("recovers a forgotten password through the emailed link, opened in the same browser", async () => {
    const email = "rita@example.com";
    const oldPassword = "the old long password";
    const newPassword = "a brand new password";
    await signUp(srv, email, "rita", oldPassword);
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = watch(await context.newPage());
    await page.goto(`${srv.url}/account`);
    await page.locator("#signed-out").waitFor();

    // The sign-in email carries over into the recovery form, which takes focus; Enter sends it.
    await page.locator("#signin-email").fill(email);
    await page.getByRole("button", { name: "Forgot your password?" }).click();
    await page.locator("#recover").waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("recover-email");
    expect(await page.locator("#recover-email").inputValue()).toBe(email);
    const asked = Date.now() - 1;
    await page.keyboard.press("Enter");
    await status(page, "account-status", "we sent it a link");
    const pending = await page.evaluate(() => JSON.parse(localStorage.getItem("arena.pkce") ?? "null"));
    expect(pending?.purpose).toBe("recovery");

    const link = linkIn(await outboxMail(srv.dataDir, email, asked));
    expect(new URL(link).searchParams.get("type")).toBe("recovery");
    await page.goto(link);
    await page.locator("#new-password").waitFor();
    expect(page.url()).toBe(`${srv.url}/account`);
    expect(await page.locator("#signed-out").isHidden()).toBe(true);
    expect(await page.locator("#signed-in").isHidden()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("new-password-input");
    await page.screenshot({ path: join(SHOTS, "account-recovery-desktop.png"), fullPage: true });

    // Too short first, then the real one typed and sent with Enter.
    await page.keyboard.type("short");
    await page.keyboard.press("Enter");
    await status(page, "account-status", "at least 8 characters");
    await page.locator("#new-password-input").fill("");
    await page.keyboard.type(newPassword);
    await page.keyboard.press("Enter");
    await status(page, "account-status", "new password is saved");
    await page.locator("#signed-in").waitFor();
    expect(await page.locator("#who-handle").textContent()).toContain("rita");
    expect(await page.locator("#new-password").isHidden()).toBe(true);

    // Sign out; the old password is refused, the new one works.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.locator("#signed-out").waitFor();
    await page.locator("#signin-email").fill(email);
    await page.locator("#signin-password").fill(oldPassword);
    await page.keyboard.press("Enter");
    await status(page, "account-status", "do not match");
    await page.locator("#signin-password").fill(newPassword);
    await page.keyboard.press("Enter");
    await page.locator("#signed-in").waitFor();
    await status(page, "account-status", "You are signed in");
    expect(await page.locator("#who-email").textContent()).toBe(email);
    expect(
      (await identityCall("/token?grant_type=password", { email, password: oldPassword })).body.code,
    ).toBe("invalid_credentials");
    // The link worked once.
    await page.goto(link);
    await status(page, "account-status", "expired or was already used");
    await context.close();
  });

  it("sends the confirmation email again from the signed-out page (at most one a minute)", async () => {
    // A resend mails the pending sign-up's own link again (its password, its PKCE challenge), which replaces
    // the first; a second resend within the minute is answered the same way but mails nothing.
    const email = "sam@example.com";
    const password = "sam's long password";
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = watch(await context.newPage());
    const signedUp = Date.now() - 1;
    await page.goto(`${srv.url}/account`);
    await page.locator("#signed-out").waitFor();
    await page.locator("#signup-email").fill(email);
    await page.locator("#signup-password").fill(password);
    await page.keyboard.press("Enter");
    await outboxMail(srv.dataDir, email, signedUp);
    expect(await mailsTo(email)).toBe(1);

    const asked = Date.now() - 1;
    const resend = page.getByRole("button", { name: "Send the confirmation email again" });
    await resend.click();
    await status(page, "account-status", "a new link is on its way");
    const raw = await outboxMail(srv.dataDir, email, asked);
    expect(raw).toContain("Confirm your Arena Ladder account");
    expect(await mailsTo(email)).toBe(2);

    await page.locator("#account-status").evaluate((n) => {
      n.textContent = "";
    });
    const answered = page.waitForResponse((r) => r.url().includes("/auth/v1/resend"));
    await resend.click();
    expect((await answered).status()).toBe(200);
    await status(page, "account-status", "a new link is on its way");
    // The resend's work follows its answer (so its timing tells nothing): give it time to show up if it did.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await mailsTo(email)).toBe(2);

    // Signing in is refused until the sign-up is confirmed; the resent link, opened in the browser that
    // signed up, confirms and signs in (the page exchanges its code with this browser's verifier).
    await page.locator("#signin-email").fill(email);
    await page.locator("#signin-password").fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await status(page, "account-status", "not confirmed yet");
    await page.goto(linkIn(raw));
    await page.locator("#signed-in").waitFor();
    await status(page, "account-status", "confirmed and you are signed in");
    expect(await page.locator("#who-email").textContent()).toBe(email);
    expect(page.url()).toBe(`${srv.url}/account`);
    await context.close();
  });

  it("renames a bot, sets its avatar, gives it a new token, deletes an unplayed bot and retires a played one", async () => {
    const page = boPage;
    await page.goto(`${srv.url}/account`);
    await page.locator("#signed-in").waitFor();
    const tokens: Record<string, string> = {};
    for (const name of ["bo-one", "bo-played"]) {
      await page.locator("#register-name").fill(name);
      await page.keyboard.press("Enter");
      tokens[name] = await dismissSecret(page);
      await botRow(page, name).waitFor();
    }

    // Rename: the row follows, the token still works, the old name is free (registered again below).
    await manage(page, "bo-one");
    await botRow(page, "bo-one").locator("input[name=name]").fill("bo-renamed");
    await page.keyboard.press("Enter");
    await status(page, "account-status", "bo-one is now called bo-renamed");
    await botRow(page, "bo-renamed").waitFor();
    expect(await botRow(page, "bo-one").count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("bo-renamed");
    expect((await call(srv.url, "GET", "/api/me", { token: tokens["bo-one"] })).body.name).toBe("bo-renamed");
    expect((await call(srv.url, "GET", "/api/bots/bo-one")).status).toBe(404);

    // Avatar: chosen from the list, shown on the page, the public API and the public bot page.
    await manage(page, "bo-renamed");
    await botRow(page, "bo-renamed").locator("select[name=avatar]").selectOption("ronin");
    await botRow(page, "bo-renamed").getByRole("button", { name: "Set avatar" }).click();
    await status(page, "account-status", "bo-renamed now has the ronin avatar");
    await botRow(page, "bo-renamed").locator(".orb.orb-ronin").waitFor();
    expect((await call(srv.url, "GET", "/api/bots/bo-renamed")).body.avatar).toBe("ronin");
    const botPage = await (await fetch(`${srv.url}/bot/bo-renamed`)).text();
    expect(botPage).toMatch(/class="orb orb-ronin"/);

    // New token: shown once, works; the old one is refused.
    await manage(page, "bo-renamed");
    await botRow(page, "bo-renamed").getByRole("button", { name: "New token" }).click();
    const fresh = await dismissSecret(page);
    expect(dialogsOf.get(page)?.at(-1)).toContain("Make a new token for bo-renamed");
    expect(fresh).toMatch(/^bt_/);
    expect((await call(srv.url, "GET", "/api/me", { token: fresh })).body.name).toBe("bo-renamed");
    expect((await call(srv.url, "GET", "/api/me", { token: tokens["bo-one"] })).status).toBe(401);

    // The freed name registers again, and a bot that never played is deleted: gone, its name free.
    await page.locator("#register-name").fill("bo-one");
    await page.keyboard.press("Enter");
    await dismissSecret(page);
    await manage(page, "bo-one");
    const remove = botRow(page, "bo-one").getByRole("button", { name: "Delete" });
    await remove.click();
    expect(dialogsOf.get(page)?.at(-1)).toContain("Delete bo-one?");
    await status(page, "account-status", "bo-one is deleted");
    await botRow(page, "bo-one").waitFor({ state: "detached" });
    expect((await call(srv.url, "GET", "/api/bots/bo-one")).status).toBe(404);

    // A bot that played a real match against a house bot is retired instead.
    const bot = new BotClient(srv.wsUrl, tokens["bo-played"]!);
    await bot.open();
    await bot.queueForMatch();
    bot.send({ type: "ready" });
    await bot.playUntilEnd();
    bot.close();
    await bot.closed();
    await page.reload();
    await botRow(page, "bo-played").waitFor();
    expect(await botRow(page, "bo-played").locator(".badges").textContent()).not.toContain("never played");
    await manage(page, "bo-played");
    await botRow(page, "bo-played").getByRole("button", { name: "Retire" }).click();
    expect(dialogsOf.get(page)?.at(-1)).toContain("Retire bo-played?");
    await status(page, "account-status", "bo-played is retired");
    await page.locator("#bot-list li[data-name='bo-played'][data-status='retired']").waitFor();
    expect(await botRow(page, "bo-played").locator(".badges").textContent()).toContain("retired");
    expect(await botRow(page, "bo-played").locator("details").count()).toBe(0);
    expect((await call(srv.url, "GET", "/api/bots/bo-played")).status).toBe(200);
    const account = await call(srv.url, "GET", "/api/account", { token: bo.access });
    const bots = account.body.bots as { name: string; status: string }[];
    expect(bots.find((b) => b.name === "bo-played")?.status).toBe("retired");
  }, 40_000);

  it("claims a bot registered without an account by pasting its token", async () => {
    const made = await call(srv.url, "POST", "/api/bots", { body: { name: "stray" } });
    expect(made.status).toBe(201);
    const token = made.body.token as string;
    const page = boPage;
    await page.getByText("Claim a bot registered without an account").click();
    await page.locator("#claim-token").fill(token);
    await page.keyboard.press("Enter");
    await status(page, "account-status", "stray is now yours");
    await botRow(page, "stray").waitFor();
    expect(await page.locator("#claim-token").inputValue()).toBe("");
    expect((await call(srv.url, "GET", "/api/me", { token })).body.owner).toBe("bo");
    const account = await call(srv.url, "GET", "/api/account", { token: bo.access });
    expect((account.body.bots as { name: string }[]).map((b) => b.name)).toContain("stray");
  });

  it("revokes an agent key, which then cannot register bots", async () => {
    const page = boPage;
    await page.locator("#key-label").fill("deploy");
    await page.keyboard.press("Enter");
    const key = await dismissSecret(page);
    expect(key).toMatch(/^ak_/);
    expect(
      (await call(srv.url, "POST", "/api/bots", { token: key, body: { name: "bo-keybot" } })).status,
    ).toBe(201);
    const row = page.locator("#key-list li").filter({ hasText: "deploy" });
    await row.getByRole("button", { name: "Revoke deploy" }).click();
    expect(dialogsOf.get(page)?.at(-1)).toContain("Revoke the key deploy?");
    await status(page, "account-status", "Key deploy is revoked");
    await row.waitFor({ state: "detached" });
    const refused = await call(srv.url, "POST", "/api/bots", { token: key, body: { name: "bo-keybot2" } });
    expect(refused.status).toBe(401);
  });

  it("keeps changed email settings across a reload", async () => {
    const page = boPage;
    const form = page.locator("#notifications-form");
    expect(await form.getByLabel("Announcements").isChecked()).toBe(true);
    await form.getByLabel("Announcements").uncheck();
    await form.getByLabel("Weekly digest").uncheck();
    await form.getByRole("button", { name: "Save email settings" }).click();
    await status(page, "account-status", "Email settings saved");
    await page.reload();
    await page.locator("#signed-in").waitFor();
    expect(await form.getByLabel("Announcements").isChecked()).toBe(false);
    expect(await form.getByLabel("Weekly digest").isChecked()).toBe(false);
    expect(await form.getByLabel("Achievements").isChecked()).toBe(true);
    const account = await call(srv.url, "GET", "/api/account", { token: bo.access });
    expect(account.body.email_announcements).toBe(false);
    expect(account.body.email_preferences).toMatchObject({ weekly_digest: false, achievements: true });

    // And back on, from the keyboard (Space toggles a focused checkbox).
    await form.getByLabel("Weekly digest").focus();
    await page.keyboard.press("Space");
    await form.getByRole("button", { name: "Save email settings" }).click();
    await status(page, "account-status", "Email settings saved");
    const again = await call(srv.url, "GET", "/api/account", { token: bo.access });
    expect(again.body.email_preferences).toMatchObject({ weekly_digest: true });
    await boContext.close();
  });

  it("an admin changes roles, bans and unbans, deletes an account and creates an owner key, all audited", async () => {
    const [root, pat, vic, del] = await Promise.all([
      signUp(srv, "root@example.com", "root"),
      signUp(srv, "pat@example.com", "pat"),
      signUp(srv, "vic@example.com", "vic"),
      signUp(srv, "del@example.com", "del"),
    ]);
    const delBot = await call(srv.url, "POST", "/api/account/bots", {
      token: del.access,
      body: { name: "del-bot" },
    });
    expect(delBot.status).toBe(201);
    const context = await contextFor(browser, root);
    const page = watch(await context.newPage());
    await page.goto(`${srv.url}/admin`);
    await page.locator("#admin-console").waitFor();
    const search = async (q: string) => {
      await page.locator("#account-q").fill(q);
      await page.keyboard.press("Enter");
      await page.locator("#accounts p").filter({ hasText: "1 found" }).waitFor();
    };
    const admins = async () =>
      (
        (await call(srv.url, "GET", "/api/admin/admins", { token: root.access })).body as unknown as {
          handle: string;
        }[]
      ).map((a) => a.handle);

    // Make pat an admin, then a player again.
    await search("pat");
    await page.getByRole("button", { name: "Make admin pat" }).click();
    await status(page, "admin-status", "pat is now an admin");
    await page.locator("#admin-list li").filter({ hasText: "pat" }).waitFor();
    expect(await admins()).toContain("pat");
    expect((await call(srv.url, "GET", "/api/admin/overview", { token: pat.access })).status).toBe(200);
    await page.getByRole("button", { name: "Make player pat" }).click();
    await status(page, "admin-status", "pat is now a player");
    expect(await admins()).not.toContain("pat");
    expect((await call(srv.url, "GET", "/api/admin/overview", { token: pat.access })).body.code).toBe(
      "not_admin",
    );

    // Ban vic: its session is refused and its own page says it cannot act; then unban.
    await search("vic");
    await page.getByRole("button", { name: "Ban vic" }).click();
    expect(dialogsOf.get(page)?.at(-1)).toContain("Ban vic?");
    await status(page, "admin-status", "vic is banned");
    // The role cell reads "player banned" (no list text such as "[object HTMLSpanElement]").
    const vicRole = page.locator("#account-table tbody tr").filter({ hasText: "vic" }).locator("td").nth(2);
    await vicRole.locator(".badge.status-banned").waitFor();
    expect((await vicRole.textContent())?.replace(/\s+/g, " ").trim()).toBe("player banned");
    const banned = await call(srv.url, "GET", "/api/account", { token: vic.access });
    expect([banned.status, banned.body.code]).toEqual([403, "account_banned"]);
    const vicContext = await contextFor(browser, vic);
    const vicPage = watch(await vicContext.newPage());
    await vicPage.goto(`${srv.url}/account`);
    await vicPage.locator("#account-banned").waitFor();
    await status(vicPage, "account-status", "This account is banned");
    expect(await vicPage.locator("#signed-in").isHidden()).toBe(true);
    expect(await vicPage.locator("#signed-out").isHidden()).toBe(true);
    expect(await vicPage.locator("#register-name").isVisible()).toBe(false);
    await vicPage.screenshot({ path: join(SHOTS, "account-banned-desktop.png"), fullPage: true });
    await page.getByRole("button", { name: "Unban vic" }).click();
    await status(page, "admin-status", "vic is no longer banned");
    expect((await call(srv.url, "GET", "/api/account", { token: vic.access })).status).toBe(200);
    await vicPage.reload();
    await vicPage.locator("#signed-in").waitFor();
    expect(await vicPage.locator("#account-banned").isHidden()).toBe(true);
    await vicContext.close();

    // Delete del: the account goes, its bot is banned but keeps its name and page.
    await search("del");
    await page.getByRole("button", { name: "Delete del" }).click();
    expect(dialogsOf.get(page)?.at(-1)).toContain("Delete the account del?");
    await status(page, "admin-status", "del is deleted; 1 bots banned");
    await page
      .locator("#moderated-bots tr")
      .filter({ hasText: "del-bot" })
      .filter({ hasText: "banned" })
      .waitFor();
    expect((await call(srv.url, "GET", "/api/me", { token: delBot.body.token as string })).status).toBe(401);
    const listed = await call(srv.url, "GET", "/api/admin/accounts?q=del", { token: root.access });
    expect((listed.body.accounts as { handle: string }[]).map((a) => a.handle)).not.toContain("del");
    expect((await call(srv.url, "GET", "/api/bots/del-bot")).status).toBe(200);

    // An owner key, shown once.
    await page.locator("#owner-name").fill("legacy");
    await page.locator("#owner-max").fill("3");
    await page.keyboard.press("Enter");
    const ownerKey = await dismissSecret(page);
    expect(ownerKey).toMatch(/^ok_/);
    await page.locator("#owner-table tr").filter({ hasText: "legacy" }).waitFor();
    expect(await page.content()).not.toContain(ownerKey);

    // The audit log, filtered to admin actions, lists each of them.
    await page.locator("#audit-kind").selectOption("admin");
    await page.locator("#audit-form").getByRole("button", { name: "Show" }).click();
    const audit = page.locator("#audit-table tbody");
    // The unfiltered log shown before already holds these rows: wait for the filtered one to replace it.
    await audit.locator("tr").filter({ hasNotText: "admin" }).first().waitFor({ state: "detached" });
    for (const [subject, action] of [
      ["pat", '"role":"admin"'],
      ["pat", '"role":"player"'],
      ["vic", '"action":"ban"'],
      ["vic", '"action":"unban"'],
      ["del", '"action":"delete_account"'],
      ["legacy", '"action":"owner_key"'],
    ] as const) {
      await audit.locator("tr").filter({ hasText: subject }).filter({ hasText: action }).first().waitFor();
    }
    expect(await audit.locator("tr").filter({ hasNotText: "admin" }).count()).toBe(0);
    await page.locator("#h-audit").scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, "admin-actions-desktop.png"), fullPage: true });
    await context.close();
  }, 60_000);
});
