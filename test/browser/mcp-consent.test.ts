// The tool endpoint's consent page and the account page's "AI applications" card in real headless Chromium:
// a client registered by HTTP sends the browser to /oauth/authorize; signed out, the page asks to sign in;
// signed in, it names the client (as self-declared), the callback and the scopes, and Approve sends the browser back with a code that the
// token endpoint takes. The account page then lists the client and revokes it, after which /mcp refuses its token.
import { createHash, randomBytes } from "node:crypto";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contextFor, status, watch } from "../helpers/account-pages.ts";
import { freePort, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { CHROMIUM_MISSING, launchBrowser } from "../helpers/browser.ts";
import { rawMcp } from "../helpers/mcp.ts";
import type { TestServer } from "../helpers/server.ts";
import { skipAllIf } from "../helpers/skips.ts";

describe("the consent page in headless Chromium", () => {
  skipAllIf(CHROMIUM_MISSING);
  let srv: TestServer;
  let browser: Browser;
  let owner: SignedIn;
  let redirect: string;

  beforeAll(async () => {
    if (CHROMIUM_MISSING) return;
    srv = await startAccountServer();
    browser = await launchBrowser();
    owner = await signUp(srv, "consent@example.com", "consenting");
    redirect = `http://127.0.0.1:${await freePort()}/callback`;
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
  });

  async function authorizeUrl() {
    const reg = await fetch(`${srv.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Browser agent", redirect_uris: [redirect] }),
    });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const verifier = randomBytes(32).toString("base64url");
    const u = new URL(`${srv.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirect,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      resource: `${srv.url}/mcp`,
      state: "browser-state",
    }))
      u.searchParams.set(k, v);
    return { url: u.toString(), clientId, verifier };
  }

  it("asks a signed-out person to sign in first", async () => {
    const context = await browser.newContext();
    const page = watch(await context.newPage());
    const { url } = await authorizeUrl();
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe("/account/mcp/authorize");
    await page.locator("#consent-signed-out").waitFor();
    expect(await page.locator("#consent").isHidden()).toBe(true);
    await context.close();
  });

  it("names the client and callback; Approve returns a code the token endpoint takes; the account page revokes", async () => {
    const context = await contextFor(browser, owner);
    let returned: URL | null = null;
    await context.route(`${new URL(redirect).origin}/**`, async (route) => {
      returned = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: "text/plain", body: "back in the app" });
    });
    const page = watch(await context.newPage());
    const { url, clientId, verifier } = await authorizeUrl();
    await page.goto(url);
    await page.locator("#consent-title").waitFor();
    expect(await page.locator("#consent-title").textContent()).toContain("Browser agent");
    expect(await page.locator("#consent-callback").textContent()).toBe(new URL(redirect).host);
    // The name is the client's own claim (issue 31): the page says so beside where the browser will go.
    expect(await page.locator("#consent-unverified").textContent()).toContain("self-declared");
    expect(await page.locator("#consent-unverified").textContent()).toContain("Browser agent");
    // No scope asked: the default, both scopes, each shown with its name.
    expect(
      await page
        .locator("#consent-scopes li")
        .evaluateAll((lis) => lis.map((li) => li.getAttribute("data-scope"))),
    ).toEqual(["bots:register", "bots:manage"]);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.waitForURL((u) => u.toString().startsWith(redirect));
    const back = returned as URL | null;
    expect(back?.searchParams.get("state")).toBe("browser-state");
    const code = back!.searchParams.get("code")!;

    const token = await fetch(`${srv.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        client_id: clientId,
        redirect_uri: redirect,
      }).toString(),
    });
    const tokens = (await token.json()) as { access_token: string };
    expect(token.status).toBe(200);
    expect((await rawMcp(srv.url, { token: tokens.access_token })).status).toBe(200);

    await page.goto(`${srv.url}/account`);
    const item = page.locator(`#mcp-client-list li[data-client="${clientId}"]`);
    await item.waitFor();
    expect(await item.textContent()).toContain("Browser agent");
    expect(await page.locator("#mcp-url").textContent()).toBe(`${srv.url}/mcp`);
    await item.getByRole("button", { name: /Revoke/ }).click();
    await status(page, "account-status", "is revoked");
    expect(await page.locator(`#mcp-client-list li[data-client="${clientId}"]`).count()).toBe(0);
    const refused = await rawMcp(srv.url, { token: tokens.access_token });
    expect([refused.status, refused.body.code]).toEqual([403, "mcp_consent_required"]);
    await context.close();
  });
});
