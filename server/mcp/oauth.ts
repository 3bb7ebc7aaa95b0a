// The tool endpoint's own OAuth 2.1 authorization server (SPEC 4.4, 5 rule 8). Public clients only: clients
// register themselves (RFC 7591), ask for a code with PKCE S256 and the RFC 8707 resource (the canonical /mcp
// address), the account owner approves on the account page (signed in through the identity provider), and
// the code is exchanged for a short-lived signed access token (audience: the /mcp address) and a rotating
// refresh token tied to the grant. Reusing a rotated refresh token, or a used code, revokes the grant.
// Access tokens are checked against the grant on every call, so revoking a client ends its tokens at once.
import { createHash, randomBytes } from "node:crypto";
import { createLocalJWKSet, type JWTVerifyGetKey, jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import type { AccountStore } from "../accounts/account-store.ts";
import { type Caller, clientOf } from "../accounts/accounts.ts";
import type { IdentitySecrets } from "../accounts/signing-keys.ts";
import type { Config } from "../config.ts";
import { hashToken } from "../db/rows.ts";
import { errors } from "../errors.ts";
import type { Store } from "../store/types.ts";
import { addresses, type McpAddresses } from "./addresses.ts";
import { clientName, redirectUriProblem } from "./client-metadata.ts";
import { grantScopes, MANAGE, parseScope, REGISTER, SCOPES, type Scope, scopeString } from "./scopes.ts";
import type { AuthorizationRow, ClientRow, GrantRow, McpStore } from "./store.ts";

/** Access tokens live ten minutes; a client refreshes them with its refresh token. */
export const ACCESS_TTL_S = 600;
/** A refresh token unused for 30 days expires; each use replaces it. */
export const REFRESH_TTL_S = 30 * 86_400;
/** From /oauth/authorize to the code's exchange, at most ten minutes. */
export const AUTHORIZATION_TTL_S = 600;
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

/** What /mcp learns from a valid access token. */
export interface AccessClaims {
  accountId: string;
  clientId: string;
  grantId: string;
  /** The token's `scope` claim; null on a token without one (the grant's scopes apply). */
  scope: string | null;
}

export class McpOAuth {
  readonly at: McpAddresses;
  private readonly jwks: JWTVerifyGetKey;

  constructor(
    private readonly d: {
      config: Pick<Config, "publicUrl">;
      store: Store;
      accountStore: Pick<AccountStore, "account">;
      tables: McpStore;
    },
    private readonly keys: IdentitySecrets,
  ) {
    this.at = addresses(d.config.publicUrl);
    this.jwks = createLocalJWKSet({ keys: [keys.publicJwk] });
  }

  private get store() {
    return this.d.store;
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
    const named = clientName(body.client_name);
    if ("problem" in named) throw errors.invalidClientMetadata(named.problem);
    const name = named.name;
    // A registered scope (RFC 7591 2) bounds what the client may later ask for; unknown values are refused here
    // as they would be at /oauth/authorize.
    let scope: string | undefined;
    if (body.scope !== undefined && body.scope.trim() !== "") {
      const parsed = parseScope(body.scope);
      if ("problem" in parsed) throw errors.invalidClientMetadata(`scope: ${parsed.problem}`);
      scope = scopeString(parsed.scopes);
    }
    const metadata = {
      ...(scope ? { scope } : {}),
      ...(body.client_uri ? { client_uri: body.client_uri } : {}),
      ...(body.software_id ? { software_id: body.software_id } : {}),
      ...(body.software_version ? { software_version: body.software_version } : {}),
    };
    const client = await this.store.work(async (u) => {
      const c = await this.d.tables.createClient(name, body.redirect_uris, metadata, u.q);
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
    const client = q.client_id ? await this.d.tables.client(q.client_id) : null;
    if (!client)
      return { refuse: errors.invalidClient("unknown client_id; register at /oauth/register first") };
    const redirectUri =
      q.redirect_uri ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined);
    if (!redirectUri || !client.redirect_uris.includes(redirectUri))
      return { refuse: errors.invalidRequest("redirect_uri is not one the client registered") };
    // Checked again here: a client registered before a scheme was refused must not be sent there either.
    const unsafe = redirectUriProblem(redirectUri);
    if (unsafe) return { refuse: errors.invalidRedirectUri(unsafe) };
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
    // No scope asked: the client's registered scope, else the default (RFC 6749 3.3).
    const registered = typeof client.metadata.scope === "string" ? client.metadata.scope.split(" ") : null;
    const asked = parseScope(q.scope?.trim() ? q.scope : registered?.join(" "));
    if ("problem" in asked) return back("invalid_scope", asked.problem);
    if (registered && asked.scopes.some((s) => !registered.includes(s)))
      return back("invalid_scope", `this client registered for the scope "${registered.join(" ")}" only`);
    const scope = scopeString(asked.scopes);
    const a = await this.d.tables.createAuthorization(
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
    const a = await this.d.tables.authorization(authorizationId);
    // Another account's decided request is as unknown as a missing one.
    if (!a || (a.account_id !== null && a.account_id !== caller.account.id))
      throw errors.noSuchAuthorization();
    const client = await this.d.tables.client(a.client_id);
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
      // The name is the client's own claim at registration: the page says so (issue 31).
      client: {
        client_id: client.id,
        client_name: client.name,
        name_verified: false,
        registered: client.created,
      },
      redirect_uri: a.redirect_uri,
      callback:
        callback.protocol === "http:" || callback.protocol === "https:" ? callback.host : callback.protocol,
      resource: a.resource,
      scopes: requestedScopes(a),
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
          !(await this.d.tables.decide(
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
    // The grant carries exactly the scopes the page showed (the request's), never more.
    const scopes = requestedScopes(a);
    const manage = scopes.includes(MANAGE);
    const code = `mc_${randomBytes(24).toString("base64url")}`;
    const redirectUrl = withQuery(a.redirect_uri, { code, ...state, iss: this.at.issuer });
    await this.store.work(async (u) => {
      const grantId = await this.d.tables.replaceGrant(caller.account.id, client.id, manage, u.q);
      if (
        !(await this.d.tables.decide(
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
        scopes,
        client: clientOf(caller),
      });
    });
    return { redirect_url: redirectUrl };
  }

  /** DELETE /api/account/mcp/clients/<id>: the account's grants of the client end, with their tokens. */
  async revoke(caller: Caller, clientId: string) {
    await this.store.work(async (u) => {
      const n = await this.d.tables.revokeClient(caller.account.id, clientId, "revoked_by_owner", u.q);
      if (n === 0) throw errors.noSuchClient(clientId);
      await u.audit("mcp_grant", clientId, { account: caller.account.id, action: "revoked" });
    });
    // This server is the authorization server itself: nothing at another provider to clean up.
    return { revoked: clientId, oauth_revoked: true };
  }

  /** The account's approved clients (SPEC 2 Account `mcp_clients`). */
  async clients(accountId: string) {
    return (await this.d.tables.liveGrants(accountId)).map((g) => ({
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
    const client = clientId ? await this.d.tables.client(clientId) : null;
    if (!client) throw errors.invalidClient("unknown client_id");
    const resource = str("resource");
    if (resource !== undefined && resource.replace(/\/$/, "") !== this.at.resource)
      throw errors.invalidRequest(`the only resource here is ${this.at.resource}`);
    const grantType = str("grant_type");
    if (grantType === "authorization_code") return this.exchangeCode(client, str);
    if (grantType === "refresh_token") return this.refresh(client, str("refresh_token"), str("scope"));
    throw errors.unsupportedGrantType("grant_type must be authorization_code or refresh_token");
  }

  private async exchangeCode(client: ClientRow, str: (k: string) => string | undefined) {
    const code = str("code");
    const verifier = str("code_verifier");
    if (!code) throw errors.invalidRequest("code is required");
    if (!verifier || !VERIFIER.test(verifier))
      throw errors.invalidRequest("code_verifier is required: 43-128 characters of A-Z a-z 0-9 - . _ ~");
    // Only the client the code was issued to can take it (or, by presenting it twice, end its grant).
    const taken = await this.store.work(async (u) => this.d.tables.takeCode(code, client.id, u.q));
    if (!taken) {
      // A code presented twice was probably stolen: the grant it made ends (RFC 6749 4.1.2).
      const grantId = await this.d.tables.usedCodeGrant(code, client.id);
      if (grantId) await this.revokeGrant(grantId, "code_reused");
      throw errors.invalidGrant("the code is unknown, expired, used or issued to another client");
    }
    const redirectUri = str("redirect_uri");
    if (redirectUri !== undefined && redirectUri !== taken.redirect_uri)
      throw errors.invalidGrant("redirect_uri differs from the authorization request's");
    if (s256(verifier) !== taken.code_challenge)
      throw errors.invalidGrant("the code_verifier does not match");
    const grant = taken.grant_id ? await this.d.tables.grant(taken.grant_id) : null;
    if (!grant || grant.revoked) throw errors.invalidGrant("the approval was revoked");
    await this.refuseBanned(grant.account_id);
    return this.issue(grant, client.id, grantScopes(grant.manage));
  }

  /**
   * Every check comes before the token is used, so a refusal changes nothing: another client's attempt leaves
   * the owner's token and grant alone, and a banned account's token works again if the ban is lifted. Only
   * the token's own client presenting it a second time revokes the grant (it was copied).
   */
  private async refresh(client: ClientRow, token: string | undefined, scope: string | undefined) {
    if (!token) throw errors.invalidRequest("refresh_token is required");
    const t = await this.d.tables.peekRefresh(token);
    if (!t || t.clientId !== client.id)
      throw errors.invalidGrant("the refresh token is unknown, expired or issued to another client");
    if (t.rotated) return this.reused(t.grantId);
    if (t.expired)
      throw errors.invalidGrant("the refresh token is unknown, expired or issued to another client");
    const grant = await this.d.tables.grant(t.grantId);
    if (!grant || grant.revoked) throw errors.invalidGrant("the approval was revoked");
    await this.refuseBanned(grant.account_id);
    // RFC 6749 6: a refresh may ask for less than the grant, never more.
    const granted = grantScopes(grant.manage);
    let scopes = granted;
    if (scope !== undefined && scope.trim() !== "") {
      const asked = parseScope(scope);
      if ("problem" in asked) throw errors.invalidScope(asked.problem);
      if (asked.scopes.some((s) => !granted.includes(s)))
        throw errors.invalidScope(`the approval covers "${scopeString(granted)}" only`);
      scopes = asked.scopes;
    }
    const r = await this.store.work(async (u) => this.d.tables.rotateRefresh(token, u.q));
    // Used by a concurrent request between the look and the rotation: that is a second use.
    if (r?.kind !== "fresh") return this.reused(t.grantId);
    return this.issue(grant, client.id, scopes);
  }

  private async reused(grantId: string): Promise<never> {
    await this.revokeGrant(grantId, "refresh_token_reused");
    throw errors.invalidGrant("the refresh token was used already; the approval is revoked");
  }

  /** A banned account gets no token (SPEC 3.6): refused at the token endpoint, not only at /mcp. */
  private async refuseBanned(accountId: string): Promise<void> {
    const account = await this.d.accountStore.account(accountId);
    if (!account || account.banned_at)
      throw errors.invalidGrant("the account is banned; its clients get no tokens (account_banned)");
  }

  private async revokeGrant(grantId: string, reason: string): Promise<void> {
    await this.store.work(async (u) => {
      if (await this.d.tables.revokeGrant(grantId, reason, u.q))
        await u.audit("mcp_grant", grantId, { action: "revoked", reason });
    });
  }

  /** A new access token (carrying `scopes`) and refresh token (for the whole grant). */
  private async issue(grant: GrantRow, clientId: string, scopes: Scope[]) {
    const refresh = `mr_${randomBytes(32).toString("base64url")}`;
    const scope = scopeString(scopes);
    await this.store.work(async (u) => this.d.tables.addRefresh(grant.id, refresh, REFRESH_TTL_S, u.q));
    const accountId = grant.account_id;
    const access = await new SignJWT({ client_id: clientId, gid: grant.id, scope })
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
      scope,
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
      return {
        accountId: payload.sub,
        clientId: payload.client_id,
        grantId: payload.gid,
        scope: typeof payload.scope === "string" ? payload.scope : null,
      };
    } catch {
      return null;
    }
  }
}

/** The scopes an authorization request asked for (stored canonical; a malformed row grants registration only). */
function requestedScopes(a: AuthorizationRow): Scope[] {
  const parsed = parseScope(a.scope);
  return "scopes" in parsed ? parsed.scopes : [REGISTER];
}

function withQuery(uri: string, params: Record<string, string>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}
