// Issue 31's attacks on the tool endpoint's OAuth server, each performed as described and seen refused:
// scopes (a registration-only grant calling delete_bot, unknown scopes, the token's `scope`), a refresh token
// or code presented by another client (the owner's grant must survive), a banned account refreshing or
// exchanging a code, and dangerous redirect schemes and deceptive names at client registration.

import { createHash, randomBytes } from "node:crypto";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { consent, keyClient, oauthClient, RecordingProvider, rawMcp } from "../helpers/mcp.ts";
import type { TestServer } from "../helpers/server.ts";

let srv: TestServer;
let boss: SignedIn;
let owner: SignedIn;
const REDIRECT = "http://127.0.0.1:9000/cb";

beforeAll(async () => {
  srv = await startAccountServer({ adminEmails: ["boss@example.com"] });
  boss = await signUp(srv, "boss@example.com", "boss");
  owner = await signUp(srv, "grants@example.com", "grant-owner");
}, 180_000);
afterAll(async () => {
  await srv?.stop();
});

async function form(body: Record<string, string>) {
  const res = await fetch(`${srv.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(body).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function register(meta: Record<string, unknown>) {
  const res = await fetch(`${srv.url}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "grants", redirect_uris: [REDIRECT], ...meta }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A hand-driven flow up to the consent page: the client, its PKCE verifier and the authorize address. */
async function request(scope?: string) {
  const clientId = String((await register({})).body.client_id);
  const verifier = randomBytes(32).toString("base64url");
  const u = new URL(`${srv.url}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource: `${srv.url}/mcp`,
    state: "st",
    ...(scope !== undefined ? { scope } : {}),
  }))
    u.searchParams.set(k, v);
  return { clientId, verifier, url: u };
}

/** What the consent page shows for an authorize address (the route the page calls). */
async function shown(url: URL, who: SignedIn) {
  const res = await fetch(url, { redirect: "manual" });
  const page = new URL(res.headers.get("location")!);
  const id = page.searchParams.get("authorization_id");
  if (!id) return { page, view: null };
  const view = await call(srv.url, "GET", `/api/account/mcp/authorization?authorization_id=${id}`, {
    token: who.access,
  });
  return { page, view: view.body };
}

/** Approved by `who` and exchanged: the token response. */
async function granted(who: SignedIn, scope?: string) {
  const r = await request(scope);
  const back = await consent(srv.url, r.url, who.access);
  const t = await form({
    grant_type: "authorization_code",
    code: back.searchParams.get("code")!,
    code_verifier: r.verifier,
    client_id: r.clientId,
    redirect_uri: REDIRECT,
  });
  expect(t.status).toBe(200);
  return { ...r, tokens: t.body as { access_token: string; refresh_token: string; scope: string } };
}

/** The SDK's own flow (scope chosen by the SDK from the resource metadata), approved by `who`. */
async function sdkApproved(who: SignedIn) {
  const provider = new RecordingProvider();
  await oauthClient(srv.url, provider).catch((err) => {
    if (!(err instanceof UnauthorizedError)) throw err;
  });
  const back = await consent(srv.url, provider.authorizationUrl!, who.access);
  await auth(provider, { serverUrl: `${srv.url}/mcp`, authorizationCode: back.searchParams.get("code")! });
  return provider;
}

type ToolAnswer = { isError?: boolean; structuredContent?: Record<string, unknown> };

describe("scopes (issue 31, 5)", () => {
  it("a registration-only grant carries bots:register alone and is refused on delete_bot with insufficient_scope", async () => {
    const r = await request("bots:register");
    expect((await shown(r.url, owner)).view?.scopes).toEqual(["bots:register"]);
    const { tokens, clientId } = await granted(owner, "bots:register");
    expect(tokens.scope).toBe("bots:register");
    const client = await keyClient(srv.url, tokens.access_token);
    const made = (await client.callTool({
      name: "register_bot",
      arguments: { name: "scoped-bot" },
    })) as ToolAnswer;
    expect(made.isError).toBeFalsy();
    for (const [name, args] of [
      ["delete_bot", { name: "scoped-bot" }],
      ["retire_bot", { name: "scoped-bot" }],
      ["enroll_ladder", { id: "club" }],
    ] as const) {
      const refused = (await client.callTool({ name, arguments: args })) as ToolAnswer;
      expect(refused.isError, name).toBe(true);
      expect(refused.structuredContent, name).toMatchObject({ code: "insufficient_scope" });
      expect(String(refused.structuredContent?.error), name).toContain("bots:manage");
    }
    await client.close();
    const me = await call(srv.url, "GET", "/api/account", { token: owner.access });
    expect((me.body.bots as { name: string }[]).map((b) => b.name)).toContain("scoped-bot");
    // The refresh keeps the grant's scope; asking for more than was granted is invalid_scope.
    const wider = await form({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      scope: "bots:register bots:manage",
    });
    expect([wider.status, wider.body.error]).toEqual([400, "invalid_scope"]);
    const same = await form({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect([same.status, same.body.scope]).toEqual([200, "bots:register"]);
  });

  it("unknown scopes and bots:manage alone are invalid_scope at authorize, sent back to the client", async () => {
    for (const scope of ["bots:register admin", "openid", "bots:manage"]) {
      const { page, view } = await shown((await request(scope)).url, owner);
      expect(view, scope).toBeNull();
      expect(page.origin + page.pathname, scope).toBe(REDIRECT);
      expect(page.searchParams.get("error"), scope).toBe("invalid_scope");
      expect(page.searchParams.get("state"), scope).toBe("st");
    }
    const reg = await register({ scope: "bots:register everything" });
    expect([reg.status, reg.body.error]).toEqual([400, "invalid_client_metadata"]);
  });

  it("no scope gets the documented default; the SDK's flow is unchanged and may delete", async () => {
    const r = await request();
    expect((await shown(r.url, owner)).view?.scopes).toEqual(["bots:register", "bots:manage"]);
    expect((await granted(owner)).tokens.scope).toBe("bots:register bots:manage");
    const provider = await sdkApproved(owner);
    expect(provider.saved?.scope).toBe("bots:register bots:manage");
    const client = await oauthClient(srv.url, provider);
    await client.callTool({ name: "register_bot", arguments: { name: "sdk-scoped" } });
    const gone = (await client.callTool({
      name: "delete_bot",
      arguments: { name: "sdk-scoped" },
    })) as ToolAnswer;
    expect(gone.structuredContent).toMatchObject({ outcome: "deleted" });
    // A refresh may narrow: the narrowed token cannot delete.
    const narrow = await form({
      grant_type: "refresh_token",
      refresh_token: provider.saved!.refresh_token!,
      client_id: provider.info!.client_id,
      scope: "bots:register",
    });
    expect([narrow.status, narrow.body.scope]).toEqual([200, "bots:register"]);
    const narrowClient = await keyClient(srv.url, String(narrow.body.access_token));
    const refused = (await narrowClient.callTool({
      name: "delete_bot",
      arguments: { name: "nothing" },
    })) as ToolAnswer;
    expect(refused.structuredContent).toMatchObject({ code: "insufficient_scope" });
    await narrowClient.close();
    await client.close();
  });
});

describe("a token presented by another client (issue 31, 6)", () => {
  it("another client's refresh is invalid_grant and the owner's refresh token still works", async () => {
    const provider = await sdkApproved(owner);
    const attacker = String((await register({ client_name: "attacker" })).body.client_id);
    const stolen = await form({
      grant_type: "refresh_token",
      refresh_token: provider.saved!.refresh_token!,
      client_id: attacker,
    });
    expect([stolen.status, stolen.body.error]).toEqual([400, "invalid_grant"]);
    expect((await rawMcp(srv.url, { token: provider.saved!.access_token })).status).toBe(200);
    const mine = await form({
      grant_type: "refresh_token",
      refresh_token: provider.saved!.refresh_token!,
      client_id: provider.info!.client_id,
    });
    expect(mine.status).toBe(200);
    expect((await rawMcp(srv.url, { token: String(mine.body.access_token) })).status).toBe(200);
  });

  it("another client presenting the owner's code leaves it for the owner's exchange", async () => {
    const r = await request();
    const code = (await consent(srv.url, r.url, owner.access)).searchParams.get("code")!;
    const attacker = String((await register({ client_name: "attacker" })).body.client_id);
    const stolen = await form({
      grant_type: "authorization_code",
      code,
      code_verifier: r.verifier,
      client_id: attacker,
    });
    expect([stolen.status, stolen.body.error]).toEqual([400, "invalid_grant"]);
    const mine = await form({
      grant_type: "authorization_code",
      code,
      code_verifier: r.verifier,
      client_id: r.clientId,
      redirect_uri: REDIRECT,
    });
    expect(mine.status).toBe(200);
  });
});

describe("a banned account (issue 31, 7)", () => {
  it("gets no token: its refresh and its approved code are refused, and the refresh token is left unused", async () => {
    const victim = await signUp(srv, "banned-grant@example.com", "banned-grant");
    const provider = await sdkApproved(victim);
    const r = await request();
    const code = (await consent(srv.url, r.url, victim.access)).searchParams.get("code")!;
    const pending = (await shown((await request()).url, victim)).page.searchParams.get("authorization_id")!;
    expect(
      (await call(srv.url, "POST", "/api/admin/accounts/banned-grant/ban", { token: boss.access })).status,
    ).toBe(200);

    const refresh = {
      grant_type: "refresh_token",
      refresh_token: provider.saved!.refresh_token!,
      client_id: provider.info!.client_id,
    };
    const refused = await form(refresh);
    expect([refused.status, refused.body.error]).toEqual([400, "invalid_grant"]);
    expect(String(refused.body.error_description)).toContain("banned");
    const exchanged = await form({
      grant_type: "authorization_code",
      code,
      code_verifier: r.verifier,
      client_id: r.clientId,
    });
    expect([exchanged.status, exchanged.body.error]).toEqual([400, "invalid_grant"]);
    // No new code either: the banned account cannot approve.
    const decide = await call(srv.url, "POST", "/api/account/mcp/authorization", {
      token: victim.access,
      body: { authorization_id: pending, action: "approve" },
    });
    expect([401, 403]).toContain(decide.status);

    // The refusal used nothing: lifted, the same refresh token works (it was not counted as used).
    expect(
      (await call(srv.url, "POST", "/api/admin/accounts/banned-grant/unban", { token: boss.access })).status,
    ).toBe(200);
    expect((await form(refresh)).status).toBe(200);
  });
});

describe("client registration (issue 31, 9)", () => {
  it("refuses dangerous redirect schemes and keeps loopback, https and app schemes", async () => {
    for (const bad of [
      "ms-msdt:/id PCWDiagnostic /skip force",
      "search-ms:query=x&crumb=location:\\\\attacker.example\\share",
      "ms-officecmd:{}",
      "javascript:alert(1)",
      "data:text/html,hi",
      "file:///etc/passwd",
      "vbscript:msgbox(1)",
      "blob:https://a.example/1",
      "about:blank",
      "shell:startup",
      "smb://attacker.example/share",
      "intent://x#Intent;end",
    ]) {
      const r = await register({ redirect_uris: [bad] });
      expect(r.status, bad).toBe(400);
      expect(r.body.error, bad).toBe("invalid_redirect_uri");
    }
    for (const ok of [
      "https://agent.example/cb",
      "http://127.0.0.1:53682/cb",
      "http://localhost:8080/cb",
      "com.example.app:/oauth/cb",
      "cursor://anysphere.cursor-retrieval/oauth/callback",
      "vscode://vscode.github-authentication/did-authenticate",
    ])
      expect((await register({ redirect_uris: [ok] })).status, ok).toBe(201);
  });

  it("refuses a name that hides text direction or controls; the consent view says the name is unverified", async () => {
    for (const name of ["Arena\u202Egnp.exe", "Good\u0007app", "Zero\u200Bwidth"]) {
      const r = await register({ client_name: name });
      expect([r.status, r.body.error], JSON.stringify(name)).toEqual([400, "invalid_client_metadata"]);
    }
    const { view } = await shown((await request()).url, owner);
    expect(view?.client).toMatchObject({ client_name: "grants", name_verified: false });
    expect(view?.callback).toBe("127.0.0.1:9000");
  });
});
