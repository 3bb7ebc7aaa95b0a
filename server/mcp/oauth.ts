// The tool endpoint's own OAuth 2.1 authorization server (SPEC 4.4, 5 rule 8). Public clients only: clients
// register themselves (RFC 7591), ask for a code with PKCE S256 and the RFC 8707 resource (the canonical /mcp
// address), the account owner approves on the account page (signed in through the identity provider), and
// the code is exchanged for a short-lived signed access token (audience: the /mcp address) and a rotating
// refresh token tied to the grant. Reusing a rotated refresh token, or a used code, revokes the grant.
// Access tokens are checked against the grant on every call, so revoking a client ends its tokens at once.
import { createHash, randomBytes } from "node:crypto";
import { createLocalJWKSet, type JWTVerifyGetKey, jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import { type Caller, clientOf } from "../auth/accounts.ts";
import type { IdentitySecrets } from "../auth/signing-keys.ts";
import type { AppContext } from "../context.ts";
import { errors } from "../errors.ts";
import { hashToken } from "../store/rows.ts";
import type { AuthorizationRow, ClientRow } from "./store.ts";

/** Access tokens live ten minutes; a client refreshes them with its refresh token. */
export const ACCESS_TTL_S = 600;
/** A refresh token unused for 30 days expires; each use replaces it. */
export const REFRESH_TTL_S = 30 * 86_400;
/** From /oauth/authorize to the code's exchange, at most ten minutes. */
export const AUTHORIZATION_TTL_S = 600;
/** What an approval grants: registering, and (explicitly approved) retiring bots and enrolling on ladders. */
export const SCOPES = ["bots:register", "bots:manage"] as const;

/** Schemes a redirect URI may never use: they run code or read local data in the browser that follows them. */
const FORBIDDEN_SCHEMES = new Set([
  "javascript",
  "data",
  "vbscript",
  "file",
  "blob",
  "about",
  "filesystem",
  "view-source",
  "ws",
  "wss",
  "ftp",
  "mailto",
  "tel",
  "intent",
  "chrome",
  "chrome-extension",
]);
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** Why a redirect URI is refused, or null: https anywhere, http on loopback only, or a custom app scheme. */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > 2000) return "redirect URIs are at most 2000 characters";
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return `${JSON.stringify(uri)} is not an absolute URI`;
  }
  const scheme = u.protocol.slice(0, -1).toLowerCase();
  if (u.hash !== "" || uri.includes("#")) return "redirect URIs must not have a fragment";
  if (u.username || u.password) return "redirect URIs must not carry credentials";
  if (scheme === "https") return null;
  if (scheme === "http")
    return LOOPBACK_HOSTS.has(u.hostname.toLowerCase())
      ? null
      : "http redirect URIs are allowed on loopback addresses only (127.0.0.1, [::1], localhost); use https";
  if (FORBIDDEN_SCHEMES.has(scheme)) return `the scheme ${scheme}: is not allowed for redirect URIs`;
  if (!/^[a-z][a-z0-9+.-]*$/.test(scheme)) return `the scheme ${scheme}: is not a valid URI scheme`;
  return null;
}

export const ClientRegistration = z.object({
  redirect_uris: z
    .array(z.string({ error: "redirect_uris must be strings" }), { error: "redirect_uris is required" })
    .min(1, "redirect_uris needs at least one URI")
    .max(10, "at most 10 redirect_uris"),
  client_name: z.string().max(120, "client_name: at most 120 characters").optional(),
  client_uri: z.string().max(2000).optional(),
  logo_uri: z.string().max(2000).optional(),
  scope: z.string().max(500).optional(),
  grant_types: z.array(z.string()).max(5).optional(),
  response_types: z.array(z.string()).max(5).optional(),
  token_endpoint_auth_method: z.string().max(64).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(200).optional(),
});

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

export interface McpAddresses {
  /** The issuer: the ladder's public address. */
  issuer: string;
  /** The canonical /mcp address: the resource and every access token's audience. */
  resource: string;
  /** RFC 9728 metadata of the resource. */
  resourceMetadata: string;
}

export function addresses(publicUrl: string): McpAddresses {
  return {
    issuer: publicUrl,
    resource: `${publicUrl}/mcp`,
    resourceMetadata: `${publicUrl}/.well-known/oauth-protected-resource/mcp`,
  };
}

/** What /mcp learns from a valid access token. */
export interface AccessClaims {
  accountId: string;
  clientId: string;
  grantId: string;
}

export class McpOAuth {
  readonly at: McpAddresses;
  private readonly jwks: JWTVerifyGetKey;

  constructor(
    private readonly ctx: AppContext,
    private readonly keys: IdentitySecrets,
  ) {
    this.at = addresses(ctx.config.publicUrl);
    this.jwks = createLocalJWKSet({ keys: [keys.publicJwk] });
  }

  private get store() {
    return this.ctx.store;
  }

  /** RFC 9728. */
  resourceMetadata() {
    return {
      resource: this.at.resource,
      authorization_servers: [this.at.issuer],
      bearer_methods_supported: ["header"],
      scopes_supported: [...SCOPES],
      resource_name: "Arena ladder tools",
      resource_documentation: `${this.at.issuer}/guide/agents`,
    };
  }

  /** RFC 8414: public clients, PKCE S256 only. */
  serverMetadata() {
    const base = this.at.issuer;
    return {
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      scopes_supported: [...SCOPES],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["none"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${base}/guide/agents`,
    };
  }

  /** RFC 7591 dynamic registration of a public client. */
  async register(body: z.infer<typeof ClientRegistration>) {
    for (const uri of body.redirect_uris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw errors.invalidRedirectUri(problem);
    }
    if (body.token_endpoint_auth_method !== undefined && body.token_endpoint_auth_method !== "none")
      throw errors.invalidClientMetadata(
        "only public clients are supported: token_endpoint_auth_method must be none (use PKCE)",
      );
    const grants = body.grant_types ?? ["authorization_code", "refresh_token"];
    if (grants.some((g) => g !== "authorization_code" && g !== "refresh_token"))
      throw errors.invalidClientMetadata("grant_types: only authorization_code and refresh_token");
    const responses = body.response_types ?? ["code"];
    if (responses.some((r) => r !== "code")) throw errors.invalidClientMetadata("response_types: only code");
    const name = (body.client_name ?? "").trim() || "Unnamed client";
    const metadata = {
      ...(body.client_uri ? { client_uri: body.client_uri } : {}),
      ...(body.software_id ? { software_id: body.software_id } : {}),
      ...(body.software_version ? { software_version: body.software_version } : {}),
    };
    const client = await this.store.work(async (u) => {
      const c = await this.store.mcp.createClient(name, body.redirect_uris, metadata, u.q);
      await u.audit("mcp_client", c.id, { action: "registered", name, redirect_uris: body.redirect_uris });
      return c;
    });
    return {
      client_id: client.id,
      client_id_issued_at: Math.floor(Date.parse(client.created) / 1000),
      client_name: client.name,
      redirect_uris: client.redirect_uris,
      grant_types: grants,
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...metadata,
    };
  }

  /**
   * /oauth/authorize. An unknown client or unregistered redirect URI is answered here (never redirected to);
   * any other problem goes back to the client's redirect URI as RFC 6749 4.1.2.1 says. A valid request
   * waits for the owner on the consent page.
   */
  async authorize(
    q: Record<string, string | undefined>,
  ): Promise<{ redirect: string } | { refuse: ReturnType<typeof errors.invalidRequest> }> {
    const client = q.client_id ? await this.store.mcp.client(q.client_id) : null;
    if (!client)
      return { refuse: errors.invalidClient("unknown client_id; register at /oauth/register first") };
    const redirectUri =
      q.redirect_uri ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
    if (!redirectUri || !client.redirect_uris.includes(redirectUri))
      return { refuse: errors.invalidRequest("redirect_uri is not one the client registered") };
    const back = (error: string, description: string) => ({
      redirect: withQuery(redirectUri, {
        error,
        error_description: description,
        ...(q.state !== undefined ? { state: q.state } : {}),
        iss: this.at.issuer,
      }),
    });
    if (q.response_type !== "code") return back("unsupported_response_type", "response_type must be code");
    if (q.code_challenge_method !== "S256")
      return back("invalid_request", "PKCE is required with code_challenge_method S256 (plain is refused)");
    if (!q.code_challenge || !CHALLENGE.test(q.code_challenge))
      return back("invalid_request", "code_challenge must be the base64url SHA-256 of the code verifier");
    if (!q.resource) return back("invalid_request", `resource is required: ${this.at.resource}`);
    if (q.resource.replace(/\/$/, "") !== this.at.resource)
      return back("invalid_target", `the only resource here is ${this.at.resource}`);
    if (q.state !== undefined && q.state.length > 1000) return back("invalid_request", "state is too long");
    const scope = SCOPES.join(" ");
    const a = await this.store.mcp.createAuthorization(
      {
        client_id: client.id,
        redirect_uri: redirectUri,
        code_challenge: q.code_challenge,
        state: q.state ?? null,
        resource: this.at.resource,
        scope,
      },
      AUTHORIZATION_TTL_S,
    );
    return {
      redirect: `${this.at.issuer}/account/mcp/authorize?authorization_id=${encodeURIComponent(a.id)}`,
    };
  }

  private async pending(
    caller: Caller,
    authorizationId: string,
  ): Promise<{ a: AuthorizationRow; client: ClientRow }> {
    const a = await this.store.mcp.authorization(authorizationId);
    // Another account's decided request is as unknown as a missing one.
    if (!a || (a.account_id !== null && a.account_id !== caller.account.id))
      throw errors.noSuchAuthorization();
    const client = await this.store.mcp.client(a.client_id);
    if (!client) throw errors.noSuchAuthorization();
    return { a, client };
  }

  /** GET /api/account/mcp/authorization: what the owner is asked to approve, or the answer already given. */
  async describe(caller: Caller, authorizationId: string) {
    const { a, client } = await this.pending(caller, authorizationId);
    if (a.status !== "pending") {
      if (a.redirect_url && a.status !== "used")
        return { authorization_id: a.id, redirect_url: a.redirect_url };
      throw errors.noSuchAuthorization();
    }
    const callback = new URL(a.redirect_uri);
    return {
      authorization_id: a.id,
      client: { client_id: client.id, client_name: client.name, registered: client.created },
      redirect_uri: a.redirect_uri,
      callback:
        callback.protocol === "http:" || callback.protocol === "https:" ? callback.host : callback.protocol,
      resource: a.resource,
      scopes: a.scope.split(" "),
      account: { handle: caller.account.handle },
      expires: a.expires,
    };
  }

  /** POST /api/account/mcp/authorization: approval stores the grant and hands the client a code. */
  async decide(caller: Caller, authorizationId: string, action: "approve" | "deny") {
    const { a, client } = await this.pending(caller, authorizationId);
    if (a.status !== "pending") {
      if (a.redirect_url && a.status !== "used") return { redirect_url: a.redirect_url };
      throw errors.noSuchAuthorization();
    }
    const state: Record<string, string> = a.state !== null ? { state: a.state } : {};
    if (action === "deny") {
      const redirectUrl = withQuery(a.redirect_uri, {
        error: "access_denied",
        error_description: "the account owner denied the request",
        ...state,
        iss: this.at.issuer,
      });
      await this.store.work(async (u) => {
        if (
          !(await this.store.mcp.decide(
            a.id,
            caller.account.id,
            { status: "denied", grantId: null, codeHash: null, redirectUrl },
            u.q,
          ))
        )
          throw errors.noSuchAuthorization();
        await u.audit("mcp_grant", client.id, { account: caller.account.id, action: "denied" });
      });
      return { redirect_url: redirectUrl };
    }
    const code = `mc_${randomBytes(24).toString("base64url")}`;
    const redirectUrl = withQuery(a.redirect_uri, { code, ...state, iss: this.at.issuer });
    await this.store.work(async (u) => {
      const grantId = await this.store.mcp.replaceGrant(caller.account.id, client.id, true, u.q);
      if (
        !(await this.store.mcp.decide(
          a.id,
          caller.account.id,
          { status: "approved", grantId, codeHash: hashToken(code), redirectUrl },
          u.q,
        ))
      )
        throw errors.noSuchAuthorization();
      await u.audit("mcp_grant", client.id, {
        account: caller.account.id,
        action: "approved",
        grant: grantId,
        scopes: SCOPES,
        client: clientOf(caller),
      });
    });
    return { redirect_url: redirectUrl };
  }

  /** DELETE /api/account/mcp/clients/<id>: the account's grants of the client end, with their tokens. */
  async revoke(caller: Caller, clientId: string) {
    await this.store.work(async (u) => {
      const n = await this.store.mcp.revokeClient(caller.account.id, clientId, "revoked_by_owner", u.q);
      if (n === 0) throw errors.noSuchClient(clientId);
      await u.audit("mcp_grant", clientId, { account: caller.account.id, action: "revoked" });
    });
    // This server is the authorization server itself: nothing at another provider to clean up.
    return { revoked: clientId, oauth_revoked: true };
  }

  /** The account's approved clients (SPEC 2 Account `mcp_clients`). */
  async clients(accountId: string) {
    return (await this.store.mcp.liveGrants(accountId)).map((g) => ({
      client_id: g.client_id,
      name: g.client_name,
      created: g.created,
      last_used: g.last_used,
      manage: g.manage,
    }));
  }

  /** POST /oauth/token. */
  async token(body: Record<string, unknown>) {
    const str = (k: string) => (typeof body[k] === "string" ? (body[k] as string) : undefined);
    const clientId = str("client_id");
    const client = clientId ? await this.store.mcp.client(clientId) : null;
    if (!client) throw errors.invalidClient("unknown client_id");
    const resource = str("resource");
    if (resource !== undefined && resource.replace(/\/$/, "") !== this.at.resource)
      throw errors.invalidRequest(`the only resource here is ${this.at.resource}`);
    const grantType = str("grant_type");
    if (grantType === "authorization_code") return this.exchangeCode(client, str);
    if (grantType === "refresh_token") return this.refresh(client, str("refresh_token"));
    throw errors.unsupportedGrantType("grant_type must be authorization_code or refresh_token");
  }

  private async exchangeCode(client: ClientRow, str: (k: string) => string | undefined) {
    const code = str("code");
    const verifier = str("code_verifier");
    if (!code) throw errors.invalidRequest("code is required");
    if (!verifier || !VERIFIER.test(verifier))
      throw errors.invalidRequest("code_verifier is required: 43-128 characters of A-Z a-z 0-9 - . _ ~");
    const taken = await this.store.work(async (u) => this.store.mcp.takeCode(code, u.q));
    if (!taken) {
      // A code presented twice was probably stolen: the grant it made ends (RFC 6749 4.1.2).
      const grantId = await this.store.mcp.usedCodeGrant(code);
      if (grantId) await this.revokeGrant(grantId, "code_reused");
      throw errors.invalidGrant("the code is unknown, expired or used");
    }
    if (taken.client_id !== client.id) throw errors.invalidGrant("the code was issued to another client");
    const redirectUri = str("redirect_uri");
    if (redirectUri !== undefined && redirectUri !== taken.redirect_uri)
      throw errors.invalidGrant("redirect_uri differs from the authorization request's");
    if (s256(verifier) !== taken.code_challenge)
      throw errors.invalidGrant("the code_verifier does not match");
    const grant = taken.grant_id ? await this.store.mcp.grant(taken.grant_id) : null;
    if (!grant || grant.revoked) throw errors.invalidGrant("the approval was revoked");
    return this.issue(grant.id, grant.account_id, client.id);
  }

  private async refresh(client: ClientRow, token: string | undefined) {
    if (!token) throw errors.invalidRequest("refresh_token is required");
    const r = await this.store.work(async (u) => this.store.mcp.rotateRefresh(token, u.q));
    if (!r) throw errors.invalidGrant("the refresh token is unknown or expired");
    if (r.kind === "reused") {
      await this.revokeGrant(r.grantId, "refresh_token_reused");
      throw errors.invalidGrant("the refresh token was used already; the approval is revoked");
    }
    const grant = await this.store.mcp.grant(r.grantId);
    if (!grant || grant.revoked) throw errors.invalidGrant("the approval was revoked");
    if (grant.client_id !== client.id)
      throw errors.invalidGrant("the refresh token belongs to another client");
    return this.issue(grant.id, grant.account_id, client.id);
  }

  private async revokeGrant(grantId: string, reason: string): Promise<void> {
    await this.store.work(async (u) => {
      if (await this.store.mcp.revokeGrant(grantId, reason, u.q))
        await u.audit("mcp_grant", grantId, { action: "revoked", reason });
    });
  }

  private async issue(grantId: string, accountId: string, clientId: string) {
    const refresh = `mr_${randomBytes(32).toString("base64url")}`;
    await this.store.work(async (u) => this.store.mcp.addRefresh(grantId, refresh, REFRESH_TTL_S, u.q));
    const access = await new SignJWT({ client_id: clientId, gid: grantId, scope: SCOPES.join(" ") })
      .setProtectedHeader({ alg: "ES256", kid: this.keys.kid, typ: "at+jwt" })
      .setIssuer(this.at.issuer)
      .setAudience(this.at.resource)
      .setSubject(accountId)
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TTL_S}s`)
      .setJti(randomBytes(12).toString("base64url"))
      .sign(this.keys.privateKey);
    return {
      access_token: access,
      token_type: "Bearer",
      expires_in: ACCESS_TTL_S,
      refresh_token: refresh,
      scope: SCOPES.join(" "),
    };
  }

  /** A valid access token's claims, or null (wrong signature, algorithm, issuer, audience, or expired). */
  async verifyAccess(token: string): Promise<AccessClaims | null> {
    try {
      const { payload } = await jwtVerify(token, this.jwks, {
        algorithms: ["ES256"],
        issuer: this.at.issuer,
        audience: this.at.resource,
        typ: "at+jwt",
      });
      if (
        typeof payload.sub !== "string" ||
        typeof payload.client_id !== "string" ||
        typeof payload.gid !== "string"
      )
        return null;
      return { accountId: payload.sub, clientId: payload.client_id, grantId: payload.gid };
    } catch {
      return null;
    }
  }
}

function withQuery(uri: string, params: Record<string, string>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}
