// Identity providers other than this server's own, and the rules that depend on the provider: a ladder
// pointed at an external GoTrue-shaped provider (here another server's built-in one, reached over HTTP
// for its JWKS and user endpoint) or at a shared HS256 secret; the admin email list, whose confirmation
// comes from the provider and whose removal takes effect at once; claiming bots on an anonymous ladder.
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, signUp, startAccountServer } from "../helpers/accounts.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

describe("an external identity provider", () => {
  let provider: TestServer;
  let ladder: TestServer;
  let index: { identity_url: string; publishable_key: string };

  beforeAll(async () => {
    provider = await startAccountServer({ houseBots: false });
    index = (await provider.get<{ accounts: typeof index }>("/api")).body.accounts;
    ladder = await startAccountServer({
      accounts: "external",
      authUrl: index.identity_url,
      authPublishableKey: index.publishable_key,
      authJwksUrl: `${index.identity_url}/.well-known/jwks.json`,
      adminEmails: ["chief@example.com"],
    });
  }, 60_000);

  afterAll(async () => {
    await ladder?.stop();
    await provider?.stop();
  });

  it("GET /api points sign-up at the provider; its tokens work on the ladder; the admin list is checked with it", async () => {
    const api = (await ladder.get<{ accounts: unknown }>("/api")).body;
    expect(api.accounts).toEqual(index);
    const user = await signUp(provider, "user@example.com");
    const account = await call(ladder.url, "GET", "/api/account", { token: user.access });
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({ id: user.id, handle: null, admin: false });
    // The provider's confirmation (asked at its user endpoint), not token metadata, makes the chief an admin.
    const chief = await signUp(provider, "chief@example.com");
    expect((await call(ladder.url, "GET", "/api/admin/overview", { token: chief.access })).status).toBe(200);
    expect((await call(ladder.url, "GET", "/api/admin/overview", { token: user.access })).body.code).toBe(
      "not_admin",
    );
    // The ladder itself serves no identity provider.
    expect((await call(ladder.url, "POST", "/auth/v1/signup", { body: {} })).status).toBe(404);
  });

  it("a provider that cannot be reached answers 503 auth_unavailable", async () => {
    const dead = await startAccountServer({
      accounts: "external",
      authUrl: "http://127.0.0.1:9/auth/v1",
      authPublishableKey: "pk",
      authJwksUrl: "http://127.0.0.1:9/auth/v1/.well-known/jwks.json",
    });
    try {
      const user = await signUp(provider, "someone@example.com");
      const r = await call(dead.url, "GET", "/api/account", { token: user.access });
      expect(r.status).toBe(503);
      expect(r.body.code).toBe("auth_unavailable");
    } finally {
      await dead.stop();
    }
  });
});

describe("a shared-secret (HS256) provider", () => {
  it("accepts tokens signed with the secret for the configured issuer and audience only", async () => {
    const secret = "a-shared-secret-of-at-least-32-characters!";
    const srv = await startAccountServer({
      accounts: "external",
      authUrl: "https://auth.example.com/auth/v1",
      authPublishableKey: "sb_publishable_x",
      authJwtSecret: secret,
    });
    try {
      const token = (o: { iss?: string; key?: string } = {}) =>
        new SignJWT({ role: "authenticated", email: "hs@example.com" })
          .setProtectedHeader({ alg: "HS256" })
          .setSubject("3f9a1c7e-0000-4000-8000-000000000001")
          .setIssuer(o.iss ?? "https://auth.example.com/auth/v1")
          .setAudience("authenticated")
          .setIssuedAt()
          .setExpirationTime("5m")
          .sign(new TextEncoder().encode(o.key ?? secret));
      expect((await call(srv.url, "GET", "/api/account", { token: await token() })).status).toBe(200);
      expect(
        (await call(srv.url, "GET", "/api/account", { token: await token({ iss: "https://other" }) })).body
          .code,
      ).toBe("invalid_session");
      expect(
        (await call(srv.url, "GET", "/api/account", { token: await token({ key: "x".repeat(40) }) })).body
          .code,
      ).toBe("invalid_session");
    } finally {
      await srv.stop();
    }
  });
});

describe("the admin email list", () => {
  it("makes a confirmed listed email an admin; removing it takes effect at once, agent keys included", async () => {
    const first = await startAccountServer({ adminEmails: ["op@example.com"] });
    const { dataDir, databaseUrl } = first;
    const op = await signUp(first, "op@example.com", "op");
    const key = (await call(first.url, "POST", "/api/account/keys", { token: op.access, body: {} })).body
      .key as string;
    expect((await call(first.url, "GET", "/api/admin/admins", { token: key })).body).toEqual([
      { handle: "op", configured: true },
    ]);
    await first.app.close();
    // Same data, the email no longer listed: neither the session nor the key is an admin.
    const second = await startServer({
      dataDir,
      ...(databaseUrl ? { databaseUrl } : {}),
      port: Number(new URL(first.url).port),
      host: "127.0.0.1",
      publicUrl: first.url,
      anonymousDev: false,
      adminEmails: [],
    });
    try {
      expect((await call(second.url, "GET", "/api/admin/overview", { token: key })).body.code).toBe(
        "not_admin",
      );
      expect((await call(second.url, "GET", "/api/admin/overview", { token: op.access })).body.code).toBe(
        "not_admin",
      );
    } finally {
      await second.stop();
      await first.stop();
    }
  });
});

describe("claiming bots", () => {
  it("moves an anonymous bot into an account with its token, versions and history; others get already_claimed", async () => {
    const srv = await startAccountServer({
      anonymousDev: true,
      tickMs: 200,
      adminEmails: ["op@example.com"],
    });
    try {
      const token = await srv.register("old-timer");
      const bot = new BotClient(srv.wsUrl, token);
      await bot.open();
      await bot.queueForMatch("v7");
      bot.send({ type: "ready" });
      await bot.playUntilEnd();
      bot.close();
      await bot.closed();
      const [kim, lee] = await Promise.all([
        signUp(srv, "kim@example.com", "kim"),
        signUp(srv, "lee@example.com", "lee"),
      ]);
      const claimed = await call(srv.url, "POST", "/api/account/claim", {
        token: kim.access,
        body: { token },
      });
      expect(claimed.body).toEqual({ name: "old-timer", owner: "kim" });
      expect(
        (await call(srv.url, "POST", "/api/account/claim", { token: kim.access, body: { token } })).status,
      ).toBe(200);
      const other = await call(srv.url, "POST", "/api/account/claim", { token: lee.access, body: { token } });
      expect(other.body.code).toBe("already_claimed");
      const me = await call(srv.url, "GET", "/api/me", { token });
      expect(me.body).toMatchObject({ name: "old-timer", owner: "kim" });
      expect((me.body.versions as { label: string }[]).map((v) => v.label)).toEqual(["v7"]);
      expect((await srv.get<unknown[]>("/api/matches?bot=old-timer")).body).toHaveLength(1);
      // Anonymous registration still works on this ladder, and so does a legacy owner key.
      expect(
        (await call(srv.url, "POST", "/api/bots", { body: { name: "anon-two", owner: "someone" } })).status,
      ).toBe(201);
    } finally {
      await srv.stop();
    }
  }, 60_000);
});
