// The tool endpoint's negative suite (issue 18): every credential it must refuse and how (wrong audience,
// expired, forged, alg none, identity-provider sessions, bot tokens, tokens in the query), the OAuth server's
// refusals (plain PKCE, a wrong verifier, a reused code, a reused refresh token, unsafe redirect URIs, another
// resource), a foreign origin, a banned account, the endpoint turned off by the live setting and by the
// start-up flag, and OAuth tool tokens refused on the account, admin and registration routes.

import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { importJWK, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { agentKey, consent, oauthClient, RecordingProvider, rawMcp } from "../helpers/mcp.ts";
import type { TestServer } from "../helpers/server.ts";

let srv: TestServer;
let boss: SignedIn;
let owner: SignedIn;

beforeAll(async () => {
  srv = await startAccountServer({ adminEmails: ["boss@example.com"] });
  boss = await signUp(srv, "boss@example.com", "boss");
  owner = await signUp(srv, "owner@example.com", "owner");
}, 180_000);
afterAll(async () => {
  await srv?.stop();
});

/** An access token signed with the server's own MCP key, with whatever claims a test wants. */
async function signed(claims: Record<string, unknown>, opts: { aud?: string; exp?: number; key?: JWK } = {}) {
  const stored = JSON.parse(readFileSync(join(srv.dataDir, "mcp-keys.json"), "utf8")) as {
    kid: string;
    private_jwk: JWK;
  };
  const key = await importJWK(opts.key ?? stored.private_jwk, "ES256");
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: stored.kid, typ: "at+jwt" })
    .setIssuer(srv.url)
    .setAudience(opts.aud ?? `${srv.url}/mcp`)
    .setSubject(owner.id)
    .setIssuedAt(now - 60)
    .setExpirationTime(opts.exp ?? now + 300)
    .sign(key);
}

async function approved(who: SignedIn) {
  const provider = new RecordingProvider();
  await oauthClient(srv.url, provider).catch((err) => {
    if (!(err instanceof UnauthorizedError)) throw err;
  });
  const back = await consent(srv.url, provider.authorizationUrl!, who.access);
  const code = back.searchParams.get("code")!;
  await auth(provider, { serverUrl: `${srv.url}/mcp`, authorizationCode: code });
  return { provider, code };
}

async function form(path: string, body: Record<string, string>) {
  const res = await fetch(`${srv.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const challengeOf = (h: Headers) => h.get("www-authenticate") ?? "";

describe("credentials at /mcp", () => {
  it("without one: 401 pointing at the resource metadata, which names this server", async () => {
    const r = await rawMcp(srv.url);
    expect(r.status).toBe(401);
    expect(r.body.code).toBe("missing_authorization");
    expect(challengeOf(r.headers)).toBe(
      `Bearer resource_metadata="${srv.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    const prm = await srv.get<Record<string, unknown>>("/.well-known/oauth-protected-resource/mcp");
    expect(prm.body).toMatchObject({ resource: `${srv.url}/mcp`, authorization_servers: [srv.url] });
    const as = await srv.get<Record<string, unknown>>("/.well-known/oauth-authorization-server");
    expect(as.body).toMatchObject({
      issuer: srv.url,
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      registration_endpoint: `${srv.url}/oauth/register`,
    });
  });

  it("refuses wrong-audience, expired, forged and alg-none tokens, sessions and bot tokens with 401", async () => {
    const { provider } = await approved(owner);
    const claims = { client_id: provider.info!.client_id, gid: "unused" };
    const other = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign"]);
    const otherJwk = (await crypto.subtle.exportKey("jwk", other.privateKey)) as JWK;
    const none = [
      Buffer.from(JSON.stringify({ alg: "none", typ: "at+jwt" })).toString("base64url"),
      Buffer.from(
        JSON.stringify({ ...claims, sub: owner.id, aud: `${srv.url}/mcp`, iss: srv.url, exp: 9e9 }),
      ).toString("base64url"),
      "",
    ].join(".");
    const bot = await call(srv.url, "POST", "/api/account/bots", {
      token: owner.access,
      body: { name: "sec-bot" },
    });
    const cases: [string, string][] = [
      ["wrong audience", await signed(claims, { aud: `${srv.url}/api` })],
      ["expired", await signed(claims, { exp: Math.floor(Date.now() / 1000) - 10 })],
      ["forged", await signed(claims, { key: otherJwk })],
      ["alg none", none],
      ["identity-provider session", owner.access],
      ["bot token", String(bot.body.token)],
      ["garbage", "not-a-token"],
    ];
    for (const [what, token] of cases) {
      const r = await rawMcp(srv.url, { token });
      expect(r.status, what).toBe(401);
      expect(challengeOf(r.headers), what).toContain('error="invalid_token"');
      expect(challengeOf(r.headers), what).toContain("resource_metadata=");
    }
    // The real token works, to show the cases fail for their own reason.
    expect((await rawMcp(srv.url, { token: provider.saved!.access_token })).status).toBe(200);
  });

  it("refuses tokens in the query string", async () => {
    const { provider } = await approved(owner);
    const r = await rawMcp(srv.url, { path: `/mcp?access_token=${provider.saved!.access_token}` });
    expect(r.status).toBe(400);
    expect(String(r.body.error)).toContain("query string");
  });

  it("refuses OAuth tool tokens on account, admin, event and registration routes", async () => {
    const { provider } = await approved(boss);
    const token = provider.saved!.access_token;
    expect((await rawMcp(srv.url, { token })).status).toBe(200);
    const account = await call(srv.url, "GET", "/api/account", { token });
    expect([account.status, account.body.code]).toEqual([401, "invalid_session"]);
    const admin = await call(srv.url, "GET", "/api/admin/overview", { token });
    expect([admin.status, admin.body.code]).toEqual([401, "admin_required"]);
    // The event routes take browser sessions only (SPEC 4.5): the practice event ships in the default manifest.
    const cards = await call(srv.url, "GET", "/api/account/events/practice/achievements", { token });
    expect(cards.status).toBe(401);
    const reveal = await call(
      srv.url,
      "POST",
      "/api/account/events/practice/achievements/first-contact/reveal",
      {
        token,
      },
    );
    expect(reveal.status).toBe(401);
    const register = await call(srv.url, "POST", "/api/bots", { token, body: { name: "no-way" } });
    expect(register.status).toBe(401);
    const consentRoute = await call(
      srv.url,
      "DELETE",
      `/api/account/mcp/clients/${provider.info!.client_id}`,
      {
        token,
      },
    );
    expect(consentRoute.status).toBe(401);
  });

  it("a foreign Origin is 403; GET and DELETE are 405; an unknown MCP-Protocol-Version is 400", async () => {
    const key = await agentKey(srv.url, owner.access);
    const foreign = await rawMcp(srv.url, { token: key.key, headers: { origin: "https://evil.example" } });
    expect([foreign.status, foreign.body.code]).toEqual([403, "foreign_origin"]);
    const same = await rawMcp(srv.url, { token: key.key, headers: { origin: srv.url } });
    expect(same.status).toBe(200);
    for (const method of ["GET", "DELETE"]) {
      const r = await rawMcp(srv.url, { token: key.key, method });
      expect(r.status, method).toBe(405);
      expect(r.headers.get("allow")).toBe("POST");
    }
    const version = await rawMcp(srv.url, {
      token: key.key,
      headers: { "mcp-protocol-version": "1999-01-01" },
      body: { jsonrpc: "2.0", id: 2, method: "tools/list" },
    });
    expect(version.status).toBe(400);
    expect(String(version.body.error)).toContain("MCP-Protocol-Version");
    const listed = await rawMcp(srv.url, {
      token: key.key,
      headers: { "mcp-protocol-version": "2025-11-25" },
      body: { jsonrpc: "2.0", id: 2, method: "tools/list" },
    });
    expect(listed.status).toBe(200);
    expect((listed.body.result as { tools: unknown[] }).tools).toHaveLength(19);
  });
});

describe("the authorization server", () => {
  async function registered(redirect = "http://127.0.0.1:9000/cb") {
    const res = await fetch(`${srv.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "sec", redirect_uris: [redirect] }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  }
  const pkce = () => {
    const verifier = randomBytes(32).toString("base64url");
    return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
  };
  function authorizeUrl(clientId: string, over: Record<string, string> = {}) {
    const u = new URL(`${srv.url}/oauth/authorize`);
    const p = {
      response_type: "code",
      client_id: clientId,
      redirect_uri: "http://127.0.0.1:9000/cb",
      code_challenge: pkce().challenge,
      code_challenge_method: "S256",
      resource: `${srv.url}/mcp`,
      state: "s1",
      ...over,
    };
    for (const [k, v] of Object.entries(p)) u.searchParams.set(k, v);
    return u;
  }
  async function redirectOf(u: URL) {
    const res = await fetch(u, { redirect: "manual" });
    return { status: res.status, location: new URL(res.headers.get("location") ?? "http://none/") };
  }

  it("accepts https, loopback on any port and app-scheme redirects; refuses javascript:, data: and plain http", async () => {
    for (const ok of [
      "https://agent.example/cb",
      "http://127.0.0.1:53682/cb",
      "http://[::1]:1/x",
      "com.example.agent:/cb",
    ])
      expect((await registered(ok)).status, ok).toBe(201);
    for (const bad of [
      "javascript:alert(1)",
      "data:text/html,hi",
      "http://agent.example/cb",
      "https://a.example/cb#x",
      "file:///etc/passwd",
    ]) {
      const r = await registered(bad);
      expect(r.status, bad).toBe(400);
      expect(r.body.error, bad).toBe("invalid_redirect_uri");
    }
    const confidential = await fetch(`${srv.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        redirect_uris: ["https://a.example/cb"],
        token_endpoint_auth_method: "client_secret_basic",
      }),
    });
    expect(((await confidential.json()) as { error: string }).error).toBe("invalid_client_metadata");
  });

  it("refuses plain PKCE, a missing or foreign resource and unknown clients", async () => {
    const { body } = await registered();
    const clientId = String(body.client_id);
    const plain = await redirectOf(
      authorizeUrl(clientId, { code_challenge_method: "plain", code_challenge: "x".repeat(43) }),
    );
    expect(plain.status).toBe(302);
    expect(plain.location.searchParams.get("error")).toBe("invalid_request");
    expect(plain.location.searchParams.get("state")).toBe("s1");
    const foreign = await redirectOf(authorizeUrl(clientId, { resource: "https://elsewhere.example/mcp" }));
    expect(foreign.location.searchParams.get("error")).toBe("invalid_target");
    const u = authorizeUrl(clientId);
    u.searchParams.delete("resource");
    expect((await redirectOf(u)).location.searchParams.get("error")).toBe("invalid_request");
    // Unknown client or unregistered redirect: answered here, never redirected.
    expect((await fetch(authorizeUrl("mcpc_nobody"), { redirect: "manual" })).status).toBe(401);
    const stray = await fetch(authorizeUrl(clientId, { redirect_uri: "https://attacker.example/cb" }), {
      redirect: "manual",
    });
    expect(stray.status).toBe(400);
  });

  it("a wrong verifier or a reused code is invalid_grant; reusing a code revokes what it granted", async () => {
    const { provider, code } = await approved(owner);
    const clientId = provider.info!.client_id;
    // The SDK exchanged the code already: a second exchange is refused and ends the grant.
    const again = await form("/oauth/token", {
      grant_type: "authorization_code",
      code,
      code_verifier: provider.verifier,
      client_id: clientId,
      redirect_uri: provider.redirect,
    });
    expect([again.status, again.body.error]).toEqual([400, "invalid_grant"]);
    const r = await rawMcp(srv.url, { token: provider.saved!.access_token });
    expect([r.status, r.body.code]).toEqual([403, "mcp_consent_required"]);

    // A fresh request exchanged with another verifier.
    const second = new RecordingProvider();
    await oauthClient(srv.url, second).catch(() => {});
    const back = await consent(srv.url, second.authorizationUrl!, owner.access);
    const wrong = await form("/oauth/token", {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      code_verifier: pkce().verifier,
      client_id: second.info!.client_id,
    });
    expect([wrong.status, wrong.body.error]).toEqual([400, "invalid_grant"]);
    const unknownGrant = await form("/oauth/token", {
      grant_type: "password",
      client_id: second.info!.client_id,
    });
    expect(unknownGrant.body.error).toBe("unsupported_grant_type");
  });

  it("a denied request sends access_denied back; another account cannot see the request", async () => {
    const provider = new RecordingProvider();
    await oauthClient(srv.url, provider).catch(() => {});
    const res = await fetch(provider.authorizationUrl!, { redirect: "manual" });
    const id = new URL(res.headers.get("location")!).searchParams.get("authorization_id")!;
    const denied = await call(srv.url, "POST", "/api/account/mcp/authorization", {
      token: owner.access,
      body: { authorization_id: id, action: "deny" },
    });
    expect(new URL(String(denied.body.redirect_url)).searchParams.get("error")).toBe("access_denied");
    const peek = await call(srv.url, "GET", `/api/account/mcp/authorization?authorization_id=${id}`, {
      token: boss.access,
    });
    expect([peek.status, peek.body.code]).toEqual([404, "no_such_authorization"]);
  });
});

describe("housekeeping", () => {
  it("the hourly sweep deletes expired authorizations and refresh tokens and stale unapproved clients", async () => {
    const store = srv.app.ctx.store;
    const tables = srv.app.ctx.mcp!.endpoint.tables;
    const { provider } = await approved(owner);
    const live = await tables.client(provider.info!.client_id);
    const stale = await tables.createClient("stale", ["https://stale.example/cb"], {});
    const old = await tables.createAuthorization(
      {
        client_id: live!.id,
        redirect_uri: "http://127.0.0.1:8719/callback",
        code_challenge: "c".repeat(43),
        state: null,
        resource: `${srv.url}/mcp`,
        scope: "bots:register",
      },
      -2 * 86_400,
    );
    const grant = (await tables.liveGrants(owner.id)).find((g) => g.client_id === live!.id)!;
    await store.work(async (u) => {
      await tables.addRefresh(grant.id, "mr_expired", -10, u.q);
      await u.q.query("UPDATE mcp_clients SET created = now() - interval '2 days' WHERE id = $1", [stale.id]);
    });
    expect(await tables.sweep()).toBeGreaterThanOrEqual(3);
    expect(await tables.client(stale.id)).toBeNull();
    expect(await tables.client(live!.id)).not.toBeNull();
    const left = await store.work((u) =>
      u.q.query("SELECT id FROM mcp_authorizations WHERE id = $1", [old.id]),
    );
    expect(left).toEqual([]);
    const refresh = await store.work((u) =>
      u.q.query(
        "SELECT 1 FROM mcp_refresh_tokens WHERE token_hash = encode(sha256('mr_expired'::bytea), 'hex')",
      ),
    );
    expect(refresh).toEqual([]);
    // The approved client's live refresh token still works.
    const r = await form("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: provider.saved!.refresh_token!,
      client_id: live!.id,
    });
    expect(r.status).toBe(200);
  });
});

describe("accounts and switches", () => {
  it("a banned account's agent key and OAuth token get 403 account_banned", async () => {
    const victim = await signUp(srv, "victim@example.com", "victim");
    const key = await agentKey(srv.url, victim.access);
    const { provider } = await approved(victim);
    const ban = await call(srv.url, "POST", "/api/admin/accounts/victim/ban", { token: boss.access });
    expect(ban.status).toBe(200);
    for (const token of [key.key, provider.saved!.access_token]) {
      const r = await rawMcp(srv.url, { token });
      expect([r.status, r.body.code]).toEqual([403, "account_banned"]);
    }
  });

  it("the live setting mcp:false turns the endpoint and its OAuth routes off at once, and on again", async () => {
    const key = await agentKey(srv.url, owner.access);
    const settings = await call(srv.url, "GET", "/api/admin/settings", { token: boss.access });
    const revision = Number(settings.body.revision);
    const off = await call(srv.url, "PUT", "/api/admin/settings", {
      token: boss.access,
      body: { revision, overrides: { global: {}, ladders: {}, mcp: false } },
    });
    expect(off.status).toBe(200);
    expect((await srv.get<{ mcp: unknown }>("/api")).body.mcp).toBeNull();
    const r = await rawMcp(srv.url, { token: key.key });
    expect([r.status, r.body.code]).toEqual([404, "mcp_disabled"]);
    expect((await srv.get("/.well-known/oauth-protected-resource/mcp")).status).toBe(404);
    expect((await call(srv.url, "GET", "/api/account", { token: owner.access })).body.mcp_url).toBeNull();
    const on = await call(srv.url, "PUT", "/api/admin/settings", {
      token: boss.access,
      body: { revision: revision + 1, overrides: { global: {}, ladders: {} } },
    });
    expect(on.status).toBe(200);
    expect((await rawMcp(srv.url, { token: key.key })).status).toBe(200);
  });

  it("the start-up flag --no-mcp turns it off", async () => {
    const off = await startAccountServer({ mcp: false });
    try {
      expect((await off.get<{ mcp: unknown }>("/api")).body.mcp).toBeNull();
      const r = await rawMcp(off.url, { token: "ak_whatever" });
      expect([r.status, r.body.code]).toEqual([404, "mcp_disabled"]);
    } finally {
      await off.stop();
    }
  }, 120_000);
});
