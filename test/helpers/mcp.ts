// Tool-endpoint test helpers: the SDK's own client on an agent key, an OAuth client provider that records
// what the SDK asks of a browser (the authorization address) instead of opening one, and the owner's side of
// the consent (the account routes the consent page calls).

import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { call } from "./accounts.ts";

/** A connected SDK client sending `Authorization: Bearer <credential>` (an agent key). */
export async function keyClient(base: string, credential: string): Promise<Client> {
  const client = new Client({ name: "arena-test-agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${credential}` } },
    }),
  );
  return client;
}

/** An agent key of a signed-in account (POST /api/account/keys). */
export async function agentKey(base: string, access: string): Promise<{ id: string; key: string }> {
  const r = await call(base, "POST", "/api/account/keys", { token: access, body: { label: "agent" } });
  if (r.status !== 201) throw new Error(`key ${r.status} ${JSON.stringify(r.body)}`);
  return { id: String(r.body.id), key: String(r.body.key) };
}

/** What a native app would keep: its registration, tokens and PKCE verifier; the browser step is recorded. */
export class RecordingProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrl: URL | null = null;
  constructor(readonly redirect = "http://127.0.0.1:8719/callback") {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Arena test agent",
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return "state-from-the-client";
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/**
 * The browser's part: follows the authorization address to the consent page and lets the signed-in owner
 * approve (or deny) through the routes the page calls. Returns the address the client is sent back to.
 */
export async function consent(
  base: string,
  authorizationUrl: URL,
  access: string,
  action: "approve" | "deny" = "approve",
): Promise<URL> {
  const res = await fetch(authorizationUrl, { redirect: "manual" });
  if (res.status !== 302) throw new Error(`authorize ${res.status} ${await res.text()}`);
  const page = new URL(res.headers.get("location")!);
  if (page.pathname !== "/account/mcp/authorize") return page; // an error sent straight back to the client
  const id = page.searchParams.get("authorization_id")!;
  const shown = await call(base, "GET", `/api/account/mcp/authorization?authorization_id=${id}`, {
    token: access,
  });
  if (shown.status !== 200) throw new Error(`consent view ${shown.status} ${JSON.stringify(shown.body)}`);
  const decided = await call(base, "POST", "/api/account/mcp/authorization", {
    token: access,
    body: { authorization_id: id, action },
  });
  if (decided.status !== 200) throw new Error(`decision ${decided.status} ${JSON.stringify(decided.body)}`);
  return new URL(String(decided.body.redirect_url));
}

/** The SDK client over OAuth with a provider that already holds tokens. */
export async function oauthClient(base: string, provider: OAuthClientProvider): Promise<Client> {
  const client = new Client({ name: "arena-test-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { authProvider: provider }));
  return client;
}

/** A raw JSON-RPC POST to /mcp (for the answers the SDK client hides). */
export async function rawMcp(
  base: string,
  opts: {
    token?: string;
    headers?: Record<string, string>;
    body?: unknown;
    method?: string;
    path?: string;
  } = {},
) {
  const res = await fetch(`${base}${opts.path ?? "/mcp"}`, {
    method: opts.method ?? "POST",
    headers: {
      ...((opts.method ?? "POST") === "POST" ? { "content-type": "application/json" } : {}),
      accept: "application/json, text/event-stream",
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...(opts.headers ?? {}),
    },
    ...((opts.method ?? "POST") === "POST"
      ? {
          body: JSON.stringify(
            opts.body ?? {
              jsonrpc: "2.0",
              id: 1,
              method: "initialize",
              params: {
                protocolVersion: "2025-11-25",
                capabilities: {},
                clientInfo: { name: "raw", version: "1" },
              },
            },
          ),
        }
      : {}),
  });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    body = { text };
  }
  return { status: res.status, headers: res.headers, body };
}
