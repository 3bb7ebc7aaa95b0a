// Issue 31, items 4, 7 and 9 (the identity provider's and the account routes' parts): a guess attack through a
// trusted reverse proxy is limited per real client (X-Forwarded-For) and slowed per account, while the owner's
// browser (its device cookie), not the owner's address, still gets in; a banned account gets no new
// session and no new tokens (sign-in, refresh) while its old refresh token survives for the unban; admin routes and
// /auth/v1 refuse a foreign Origin as the account routes do; an unsubscribe token of a deleted account is not
// called valid.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, idpPostFrom, type SignedIn, signIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { freePort } from "../helpers/ports.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let apikey: string;
let root: SignedIn;

beforeAll(async () => {
  srv = await startAccountServer({ adminEmails: ["root@example.com"], authRateLimit: 10_000 });
  apikey = (await srv.get<{ accounts: { publishable_key: string } }>("/api")).body.accounts.publishable_key;
  root = await signUp(srv, "root@example.com", "root");
}, 60_000);

afterAll(async () => {
  await srv?.stop();
});

const idp = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(`${srv.url}/auth/v1`, method, path, {
    ...(body !== undefined ? { body } : {}),
    headers: { apikey, ...headers },
  });

const admin = (method: string, path: string, headers: Record<string, string> = {}) =>
  call(srv.url, method, path, { token: root.access, headers });

describe("7. a banned account cannot sign in or refresh", () => {
  it("sign-in and refresh answer 403 account_banned; after the unban the same refresh token works", async () => {
    const vic = await signUp(srv, "vic@example.com", "vic", "vic's long passphrase");
    expect((await admin("POST", "/api/admin/accounts/vic/ban")).status).toBe(200);

    const signedIn = await idp("POST", "/token?grant_type=password", {
      email: "vic@example.com",
      password: "vic's long passphrase",
    });
    expect([signedIn.status, signedIn.body.code]).toEqual([403, "account_banned"]);
    const refreshed = await idp("POST", "/token?grant_type=refresh_token", { refresh_token: vic.refresh });
    expect([refreshed.status, refreshed.body.code]).toEqual([403, "account_banned"]);
    // A wrong password still says only that (the ban is not told to someone without the password).
    const wrong = await idp("POST", "/token?grant_type=password", {
      email: "vic@example.com",
      password: "not vic's passphrase at all",
    });
    expect(wrong.body.code).toBe("invalid_credentials");

    // The refused refresh did not use the token up: after the unban it rotates as usual.
    expect((await admin("POST", "/api/admin/accounts/vic/unban")).status).toBe(200);
    const after = await idp("POST", "/token?grant_type=refresh_token", { refresh_token: vic.refresh });
    expect(after.status).toBe(200);
    expect(after.body.refresh_token).not.toBe(vic.refresh);
    expect((await signIn(srv, "vic@example.com", "vic's long passphrase")).access).toMatch(
      /^[\w-]+\.[\w-]+\.[\w-]+$/,
    );
  });
});

describe("9. foreign origins and deleted accounts' tokens", () => {
  const foreign = { origin: "https://evil.example" };

  it("admin routes refuse a foreign Origin and accept the site's own", async () => {
    const refused = await admin("GET", "/api/admin/overview", foreign);
    expect([refused.status, refused.body.code]).toEqual([403, "foreign_origin"]);
    const banned = await admin("POST", "/api/admin/accounts/root/ban", foreign);
    expect(banned.body.code).toBe("foreign_origin");
    expect((await admin("GET", "/api/admin/overview", { origin: new URL(srv.url).origin })).status).toBe(200);
    expect((await admin("GET", "/api/admin/overview")).status).toBe(200);
  });

  it("/auth/v1 refuses a foreign Origin on sign-up, sign-in, refresh and user; its public documents stay open", async () => {
    const signup = await idp(
      "POST",
      "/signup",
      { email: "x@example.com", password: "a fine long passphrase" },
      foreign,
    );
    expect([signup.status, signup.body.code, signup.body.error_code]).toEqual([
      403,
      "foreign_origin",
      "foreign_origin",
    ]);
    const token = await idp(
      "POST",
      "/token?grant_type=password",
      { email: "root@example.com", password: "a long test password" },
      foreign,
    );
    expect(token.body.code).toBe("foreign_origin");
    const refresh = await idp(
      "POST",
      "/token?grant_type=refresh_token",
      { refresh_token: root.refresh },
      foreign,
    );
    expect(refresh.body.code).toBe("foreign_origin");
    const user = await call(`${srv.url}/auth/v1`, "GET", "/user", {
      token: root.access,
      headers: { apikey, ...foreign },
    });
    expect(user.body.code).toBe("foreign_origin");
    expect((await idp("GET", "/.well-known/jwks.json", undefined, foreign)).status).toBe(200);
    expect((await idp("GET", "/settings", undefined, foreign)).status).toBe(200);
    // The site's own pages still sign in.
    const own = await idp(
      "POST",
      "/token?grant_type=password",
      { email: "root@example.com", password: "a long test password" },
      { origin: new URL(srv.url).origin },
    );
    expect(own.status).toBe(200);
  });

  it("an unsubscribe token of a deleted account is not valid (GET says so, POST refuses)", async () => {
    const gone = await signUp(srv, "gone@example.com", "gone");
    const token = srv.app.ctx.mail.tokens.issue(gone.id, "announcements");
    const q = `/api/email/unsubscribe?token=${encodeURIComponent(token)}`;
    expect((await call(srv.url, "GET", q)).body).toMatchObject({ valid: true });
    expect((await admin("DELETE", "/api/admin/accounts/gone")).status).toBe(200);
    const look = await call(srv.url, "GET", q);
    expect(look.status).toBe(200);
    expect(look.body).toMatchObject({ valid: false, reason: "invalid" });
    expect((await call(srv.url, "POST", "/api/email/unsubscribe", { body: { token } })).status).toBe(400);
  });
});

describe("4. a guess attack through a trusted proxy", () => {
  const PROXY = "127.0.8.1";
  let behind: TestServer;
  let key = "";

  beforeAll(async () => {
    const port = await freePort();
    behind = await startServer({
      port,
      host: "127.0.0.1",
      publicUrl: `http://127.0.0.1:${port}`,
      anonymousDev: false,
      trustProxy: [PROXY],
      authRateLimit: 8,
    });
    key = (await behind.get<{ accounts: { publishable_key: string } }>("/api")).body.accounts.publishable_key;
  }, 60_000);
  afterAll(async () => {
    await behind?.stop();
  });

  /** A sign-in sent by the proxy on behalf of `client` (X-Forwarded-For), with optional extra headers. */
  const viaProxy = (client: string, password: string, headers: Record<string, string> = {}) =>
    idpPostFrom(
      behind.url,
      PROXY,
      "/token?grant_type=password",
      { email: "lee@example.com", password },
      { apikey: key, "x-forwarded-for": client, ...headers },
    );

  it("limits each forwarded client, slows the account, and lets the owner's browser in but not the owner's address", async () => {
    await signUp(behind, "lee@example.com", "lee", "lee's real long passphrase");
    const OWNER = "198.51.100.7";
    const before = await viaProxy(OWNER, "lee's real long passphrase");
    expect(before.status).toBe(200);
    expect(before.cookie).toMatch(/^arena_device=/);

    // One forwarded client is held to --auth-rate-limit (8 a minute): the limit falls on it, not on the proxy.
    const one = [];
    for (let i = 0; i < 10; i++) one.push(await viaProxy("203.0.113.1", `guess ${i} of one client`));
    expect(one.filter((r) => r.code === "rate_limited").length).toBeGreaterThanOrEqual(2);
    // Forty more clients behind the same proxy each have a budget of their own; the account's guessing delay
    // still holds them: most guesses are refused without the password being looked at.
    const spread = await Promise.all(
      Array.from({ length: 40 }, (_, i) => viaProxy(`203.0.113.${10 + i}`, `guess from client ${i}`)),
    );
    expect(spread.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(30);
    expect(spread.filter((r) => r.code === "invalid_credentials").length).toBeLessThan(10);

    // The attacker claiming the owner's address gets nothing for it, and neither does the owner without the
    // browser that signed in before; with its device cookie the owner gets in during the attack.
    const sameAddress = await viaProxy(OWNER, "lee's real long passphrase");
    expect([sameAddress.status, sameAddress.code]).toEqual([429, "rate_limited"]);
    const owner = await viaProxy("192.0.2.44", "lee's real long passphrase", { cookie: before.cookie! });
    expect(owner.status).toBe(200);
  });
});
