// The built-in identity provider's sessions as tokens (server/accounts/identity-provider.ts): a new session or new
// tokens for one (an ES256 access token naming its session, one hour; the refresh token the store rotates),
// refused to a banned account; and the user and live session behind a presented access token.
import type { FastifyRequest } from "fastify";
import { createLocalJWKSet, jwtVerify, SignJWT } from "jose";
import type { IdentityStore, IdentityUser } from "./identity-store.ts";
import { idpError, userView } from "./idp-shapes.ts";
import type { SessionGate } from "./sessions.ts";
import type { IdentitySecrets } from "./signing-keys.ts";

export const ACCESS_TOKEN_SECONDS = 3600;

export type SessionKind = "password" | "otp" | "recovery";

export interface SessionTokenDeps {
  identity: IdentityStore;
  secrets: IdentitySecrets;
  sessions: SessionGate;
  /** Whether the account behind an identity is banned. */
  banned(userId: string): Promise<boolean>;
  /** The tokens' issuer: the provider's base address. */
  issuer: string;
}

export class SessionTokens {
  private readonly localKeys: ReturnType<typeof createLocalJWKSet>;

  constructor(private readonly d: SessionTokenDeps) {
    this.localKeys = createLocalJWKSet({ keys: [d.secrets.publicJwk] });
  }

  private async accessToken(u: IdentityUser, sessionId: string, kind: SessionKind): Promise<string> {
    return new SignJWT({
      email: u.email,
      role: "authenticated",
      session_id: sessionId,
      aal: "aal1",
      amr: [{ method: kind, timestamp: Math.floor(Date.now() / 1000) }],
      is_anonymous: false,
      app_metadata: { provider: "email", providers: ["email"] },
      user_metadata: u.user_metadata,
    })
      .setProtectedHeader({ alg: "ES256", kid: this.d.secrets.kid, typ: "JWT" })
      .setIssuer(this.d.issuer)
      .setAudience("authenticated")
      .setSubject(u.id)
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_SECONDS}s`)
      .sign(this.d.secrets.privateKey);
  }

  /**
   * A new session (sign-in, link, code), or new tokens for an existing one (refresh). A banned account gets
   * no new session; a refresh is checked before its token rotates (the caller's refuseBanned), not here.
   */
  async issue(
    req: FastifyRequest,
    u: IdentityUser,
    kind: SessionKind,
    existing?: { sessionId: string; refresh: string },
  ) {
    if (!existing) await this.refuseBanned(u.id);
    let r = existing;
    if (!r) {
      const made = await this.d.identity.createSession(u.id, { ip: req.ip, recovery: kind === "recovery" });
      r = { sessionId: made.sessionId, refresh: made.token };
      await this.d.identity.signedIn(u.id);
    }
    const fresh = (await this.d.identity.userById(u.id)) ?? u;
    return {
      access_token: await this.accessToken(fresh, r.sessionId, kind),
      token_type: "bearer",
      expires_in: ACCESS_TOKEN_SECONDS,
      expires_at: Math.floor(Date.now() / 1000) + ACCESS_TOKEN_SECONDS,
      refresh_token: r.refresh,
      user: userView(fresh),
    };
  }

  /**
   * A banned account gets no new session and no new tokens (sign-in, link, code or refresh): SPEC 3.6 keeps
   * its sessions so that an unban restores everything, but a session must not outlive the ban by refreshing.
   */
  async refuseBanned(userId: string): Promise<void> {
    if (await this.d.banned(userId)) throw idpError(403, "account_banned", "this account is banned");
  }

  /** The user and live session behind an access token; an ended session is refused like a bad token. */
  async fromAccess(req: FastifyRequest): Promise<{ user: IdentityUser; sessionId: string }> {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    if (!m) throw idpError(401, "no_authorization", "send Authorization: Bearer <access token>");
    let sub: string;
    let sessionId: string;
    try {
      const { payload } = await jwtVerify(m[1]!, this.localKeys, {
        issuer: this.d.issuer,
        audience: "authenticated",
        algorithms: ["ES256"],
      });
      if (typeof payload.sub !== "string" || typeof payload.session_id !== "string")
        throw new Error("claims");
      sub = payload.sub;
      sessionId = payload.session_id;
    } catch {
      throw idpError(401, "bad_jwt", "invalid or expired access token");
    }
    const user = (await this.d.sessions.active(sessionId, sub)) ? await this.d.identity.userById(sub) : null;
    if (!user)
      throw idpError(403, "session_not_found", "Session from session_id claim in JWT does not exist");
    return { user, sessionId };
  }
}
