// The tool endpoint (issue 18) driven by the official SDK's own Client against the real server: with an agent
// key it lists all nineteen tools and calls each (get_match_diagnostics: test/server/insight-health.test.ts, which
// has a match to ask about); with OAuth it runs the whole flow a native agent runs (discovery,
// dynamic registration, authorize with PKCE and resource, sign-in and approval, token, tool call, revocation,
// refresh-token rotation and reuse). These are the steps docs/agents.md shows.

import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, signUp, startAccountServer } from "../helpers/accounts.ts";
import { ladderDef } from "../helpers/ladders.ts";
import { agentKey, consent, keyClient, oauthClient, RecordingProvider, rawMcp } from "../helpers/mcp.ts";
import type { TestServer } from "../helpers/server.ts";

const TOOLS = [
  "whoami",
  "list_my_bots",
  "register_bot",
  "delete_bot",
  "retire_bot",
  "list_my_ladders",
  "enroll_ladder",
  "get_agent_guide",
  "get_match_diagnostics",
  "list_scrimmages",
  "request_scrimmage",
  "cancel_scrimmage",
  "set_scrimmage_opt_in",
  "start_batch_test",
  "get_batch_test",
  "get_settlement",
  "get_final_standings",
  "list_tournaments",
  "get_tournament",
];

let srv: TestServer;

beforeAll(async () => {
  srv = await startAccountServer(
    {},
    { manifest: { version: 1, ladders: [ladderDef("public"), ladderDef("club", { name: "Club" })] } },
  );
}, 180_000);
afterAll(async () => {
  await srv?.stop();
});

const tool = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const data = (r: CallToolResult) =>
  JSON.parse((r.content[0] as { text: string }).text) as Record<string, unknown>;

describe("the tool endpoint with an agent key", () => {
  it("is announced by GET /api and on the account", async () => {
    const api = await srv.get<{ mcp: string | null }>("/api");
    expect(api.body.mcp).toBe(`${srv.url}/mcp`);
    const who = await signUp(srv, "announce@example.com", "announcer");
    const account = await call(srv.url, "GET", "/api/account", { token: who.access });
    expect(account.body.mcp_url).toBe(`${srv.url}/mcp`);
    expect(account.body.mcp_clients).toEqual([]);
  });

  it("lists the nineteen tools with the operations' input schemas and calls each one", async () => {
    const who = await signUp(srv, "agent@example.com", "agent-owner");
    const key = await agentKey(srv.url, who.access);
    const client = await keyClient(srv.url, key.key);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    // The input schemas are the routes' own: register_bot's name pattern, enroll_ladder's id and invitation.
    const register = tools.find((t) => t.name === "register_bot")!;
    expect(register.inputSchema.required).toEqual(["name"]);
    expect(JSON.stringify(register.inputSchema)).toContain("^[A-Za-z0-9_-]{2,24}$");
    const enroll = tools.find((t) => t.name === "enroll_ladder")!;
    expect(Object.keys(enroll.inputSchema.properties ?? {}).sort()).toEqual(["id", "invitation"]);
    expect(tools.find((t) => t.name === "get_agent_guide")!.inputSchema.properties ?? {}).toEqual({});

    const me = data(await tool(client, "whoami"));
    expect(me.handle).toBe("agent-owner");

    const made = data(await tool(client, "register_bot", { name: "tool-bot" }));
    expect(made.name).toBe("tool-bot");
    expect(String(made.token)).toMatch(/^bt_/);
    expect(made.bot_endpoint).toBe(`${srv.url.replace("http", "ws")}/bot`);
    await tool(client, "register_bot", { name: "tool-bot-2" });

    const mine = data(await tool(client, "list_my_bots"));
    expect((mine.bots as { name: string }[]).map((b) => b.name)).toEqual(["tool-bot", "tool-bot-2"]);

    const listed = (await tool(client, "list_my_ladders")).structuredContent as {
      ladders: { id: string; membership: string | null }[];
    };
    expect(listed.ladders.map((l) => [l.id, l.membership])).toEqual([
      ["public", null],
      ["club", null],
    ]);

    const enrolled = data(await tool(client, "enroll_ladder", { id: "club" })) as {
      ladders: { id: string; membership: string | null }[];
    };
    expect(enrolled.ladders.find((l) => l.id === "club")?.membership).toBe("active");

    // Scrimmages and batch tests (server/scrimmages/): ask, list, cancel, opt in, start a batch and read it.
    const asked = data(await tool(client, "request_scrimmage", { name: "tool-bot", opponent: "kiter" }));
    expect(asked).toMatchObject({ state: "pending", bot: "tool-bot", opponent: "kiter" });
    const scrims = data(await tool(client, "list_scrimmages", { name: "tool-bot" }));
    expect((scrims.scrimmages as { id: string }[]).map((x) => x.id)).toEqual([asked.id]);
    const cancelled = data(await tool(client, "cancel_scrimmage", { name: "tool-bot", id: asked.id }));
    expect((cancelled.scrimmages as { state: string }[])[0]!.state).toBe("cancelled");
    expect(
      data(await tool(client, "set_scrimmage_opt_in", { name: "tool-bot", allowed: true })).allow_scrimmages,
    ).toBe(true);
    const batch = data(
      await tool(client, "start_batch_test", { name: "tool-bot", opponents: ["kiter"], games: 3 }),
    );
    expect(batch).toMatchObject({ state: "running", games: 3, opponents: ["kiter"] });
    expect(data(await tool(client, "get_batch_test", { id: batch.id }))).toMatchObject({
      id: batch.id,
      progress: { finished: 0, playing: 0, waiting: 3 },
      waiting_for: "its bot to connect",
    });
    expect(
      (await call(srv.url, "DELETE", `/api/account/batches/${batch.id}`, { token: who.access })).status,
    ).toBe(200);

    // Tournaments and settlements (issue 34): the public reads, each the same operation as its route.
    expect(data(await tool(client, "list_tournaments"))).toEqual({
      tournaments: (await srv.get("/api/tournaments")).body,
    });
    for (const [name, args, code] of [
      ["get_tournament", { id: "tn-none" }, "no_such_tournament"],
      ["get_settlement", { id: "club" }, "no_settlement"],
      ["get_final_standings", { id: "club" }, "no_settlement"],
      ["get_settlement", { id: "nowhere" }, "unknown_ladder"],
    ] as const) {
      const r = await tool(client, name, args);
      expect(r.isError, name).toBe(true);
      expect(data(r).code, name).toBe(code);
    }

    expect(data(await tool(client, "delete_bot", { name: "tool-bot-2" }))).toEqual({
      name: "tool-bot-2",
      outcome: "deleted",
    });
    expect(data(await tool(client, "retire_bot", { name: "tool-bot" }))).toEqual({
      name: "tool-bot",
      outcome: "deleted",
    });

    const guide = await tool(client, "get_agent_guide");
    expect((guide.content[0] as { text: string }).text).toContain("# Guide for AI agents");

    // Agent-key use is audited as client agent_key:<id> (SPEC 5 rule 8).
    const audit = await srv.app.ctx.auditStore.auditEntries("registration", 50);
    expect(audit.find((e) => e.subject === "tool-bot")?.detail).toMatchObject({
      client: `agent_key:${key.id}`,
    });
    await client.close();
  });

  it("answers with MCP tool errors that carry the SPEC's codes", async () => {
    const who = await signUp(srv, "errors@example.com");
    const key = await agentKey(srv.url, who.access).catch(() => null);
    // No handle yet: agent keys need one (POST /api/account/keys is session_handle), so choose it first.
    expect(key).toBeNull();
    await call(srv.url, "PUT", "/api/account/handle", { token: who.access, body: { handle: "err-owner" } });
    const client = await keyClient(srv.url, (await agentKey(srv.url, who.access)).key);
    const bad = await tool(client, "register_bot", { name: "x" });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toMatchObject({ code: "invalid_bot" });
    const missing = await tool(client, "delete_bot", { name: "nobody-here" });
    expect(missing.structuredContent).toMatchObject({ code: "no_such_bot" });
    const unknownArg = await tool(client, "register_bot", { name: "fine-name", owner: "someone" });
    expect(unknownArg.structuredContent).toMatchObject({ code: "bad_request" });
    const ladder = await tool(client, "enroll_ladder", { id: "nowhere" });
    expect(ladder.structuredContent).toMatchObject({ code: "unknown_ladder" });
    const reserved = await tool(client, "register_bot", { name: "admin" });
    expect(reserved.structuredContent).toMatchObject({ code: "invalid_bot" });
    await client.close();
  });

  it("keeps keys made before this release to registration (no delete, retire or enroll)", async () => {
    const who = await signUp(srv, "old-key@example.com", "old-key-owner");
    const key = await agentKey(srv.url, who.access);
    await srv.app.ctx.store.work((u) =>
      u.q.query("UPDATE agent_keys SET manage = false WHERE id = $1", [key.id]),
    );
    const client = await keyClient(srv.url, key.key);
    expect(data(await tool(client, "register_bot", { name: "old-key-bot" })).name).toBe("old-key-bot");
    const retire = await tool(client, "retire_bot", { name: "old-key-bot" });
    expect(retire.structuredContent).toMatchObject({ code: "permission_required" });
    const enroll = await tool(client, "enroll_ladder", { id: "club" });
    expect(enroll.structuredContent).toMatchObject({ code: "permission_required" });
    // Deleting undoes a registration: it needs the manage approval too (issue 31).
    const del = await tool(client, "delete_bot", { name: "old-key-bot" });
    expect(del.structuredContent).toMatchObject({ code: "permission_required" });
    await client.close();
  });
});

describe("the tool endpoint with OAuth", () => {
  it("runs the whole flow: discovery, registration, PKCE and resource, approval, token, tools, revocation", async () => {
    const owner = await signUp(srv, "oauth-owner@example.com", "oauth-owner");
    const provider = new RecordingProvider();
    // 1. The client connects without a token: 401, discovery, dynamic registration, the browser is sent off.
    await expect(oauthClient(srv.url, provider)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.info?.client_id).toMatch(/^mcpc_/);
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.origin + authUrl.pathname).toBe(`${srv.url}/oauth/authorize`);
    expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authUrl.searchParams.get("resource")).toBe(`${srv.url}/mcp`);
    // 2. The owner, signed in, sees the client and approves; the browser goes back with a code.
    const back = await consent(srv.url, authUrl, owner.access);
    expect(back.origin + back.pathname).toBe(provider.redirect);
    expect(back.searchParams.get("state")).toBe("state-from-the-client");
    expect(back.searchParams.get("iss")).toBe(srv.url);
    // 3. The client exchanges the code with its verifier and calls tools.
    const result = await auth(provider, {
      serverUrl: `${srv.url}/mcp`,
      authorizationCode: back.searchParams.get("code")!,
    });
    expect(result).toBe("AUTHORIZED");
    const client = await oauthClient(srv.url, provider);
    expect((await client.listTools()).tools).toHaveLength(TOOLS.length);
    expect(data(await tool(client, "whoami")).handle).toBe("oauth-owner");
    expect(data(await tool(client, "register_bot", { name: "oauth-bot" })).name).toBe("oauth-bot");
    const enrolled = data(await tool(client, "enroll_ladder", { id: "club" })) as {
      ladders: { id: string; membership: string | null }[];
    };
    expect(enrolled.ladders.find((l) => l.id === "club")?.membership).toBe("active");
    const audit = await srv.app.ctx.auditStore.auditEntries("registration", 50);
    expect(audit.find((e) => e.subject === "oauth-bot")?.detail).toMatchObject({
      client: `mcp_client:${provider.info!.client_id}`,
    });
    // The account lists the approved client with its last use.
    const account = await call(srv.url, "GET", "/api/account", { token: owner.access });
    const listed = account.body.mcp_clients as {
      client_id: string;
      name: string;
      last_used: string | null;
    }[];
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ client_id: provider.info!.client_id, name: "Arena test agent" });
    expect(listed[0]!.last_used).not.toBeNull();
    // 4. The owner revokes the client: its access token is refused at once with mcp_consent_required.
    const revoked = await call(srv.url, "DELETE", `/api/account/mcp/clients/${provider.info!.client_id}`, {
      token: owner.access,
    });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toEqual({ revoked: provider.info!.client_id, oauth_revoked: true });
    const refused = await rawMcp(srv.url, { token: provider.saved!.access_token });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("mcp_consent_required");
    expect(refused.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(refused.headers.get("www-authenticate")).toContain(
      `resource_metadata="${srv.url}/.well-known/oauth-protected-resource/mcp"`,
    );
    // ...and its refresh token too.
    const refresh = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: provider.saved!.refresh_token!,
      client_id: provider.info!.client_id,
    });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe("invalid_grant");
    expect((await call(srv.url, "GET", "/api/account", { token: owner.access })).body.mcp_clients).toEqual(
      [],
    );
    await client.close();
  });

  it("rotates refresh tokens; reusing a rotated one is invalid_grant and revokes the grant", async () => {
    const owner = await signUp(srv, "rotation@example.com", "rotation-owner");
    const { provider } = await approvedClient(owner.access);
    const first = provider.saved!.refresh_token!;
    const clientId = provider.info!.client_id;
    const rotated = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: first,
      client_id: clientId,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.refresh_token).not.toBe(first);
    expect(rotated.headers.get("cache-control")).toBe("no-store");
    // The new access token works.
    const ok = await rawMcp(srv.url, { token: String(rotated.body.access_token) });
    expect(ok.status).toBe(200);
    // The old refresh token again: someone else has a copy. invalid_grant, and the grant is gone.
    const reuse = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: first,
      client_id: clientId,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe("invalid_grant");
    const after = await rawMcp(srv.url, { token: String(rotated.body.access_token) });
    expect(after.status).toBe(403);
    expect(after.body.code).toBe("mcp_consent_required");
    const successor = await tokenRequest({
      grant_type: "refresh_token",
      refresh_token: String(rotated.body.refresh_token),
      client_id: clientId,
    });
    expect(successor.body.error).toBe("invalid_grant");
    expect((await call(srv.url, "GET", "/api/account", { token: owner.access })).body.mcp_clients).toEqual(
      [],
    );
  });
});

/** A client registered, approved and holding tokens (the flow above, compressed). */
async function approvedClient(access: string) {
  const provider = new RecordingProvider();
  await oauthClient(srv.url, provider).catch((err) => {
    if (!(err instanceof UnauthorizedError)) throw err;
  });
  const back = await consent(srv.url, provider.authorizationUrl!, access);
  await auth(provider, { serverUrl: `${srv.url}/mcp`, authorizationCode: back.searchParams.get("code")! });
  return { provider, code: back.searchParams.get("code")! };
}

async function tokenRequest(form: Record<string, string>) {
  const res = await fetch(`${srv.url}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}
