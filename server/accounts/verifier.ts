// Verifies identity-provider access tokens with jose: signature against the provider's keys, an algorithm
// allow-list, expiry, audience and issuer. The built-in provider's public key is local; an external
// provider's comes from its JWKS address (cached and refreshed by jose) or is a shared HS256 secret.
// Also answers "is this email confirmed?" from the provider itself, never from token metadata, which a
// Supabase-style user can edit.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type JWTPayload,
  type JWTVerifyGetKey,
  errors as joseErrors,
  jwtVerify,
} from "jose";
import type { Config } from "../config.ts";
import { ApiError, errors } from "../errors.ts";
import type { IdentityStore } from "./identity-store.ts";
import type { SessionGate } from "./sessions.ts";
import type { IdentitySecrets } from "./signing-keys.ts";

export interface SessionClaims {
  sub: string;
  email: string | null;
  session_id: string | null;
  /** When the token was issued (seconds since the epoch), or null. */
  iat: number | null;
}

const CONFIRMED_CACHE_MS = 60_000;

export class TokenVerifier {
  private readonly key: JWTVerifyGetKey | Uint8Array;
  private readonly algorithms: string[];
  readonly issuer: string;
  private readonly confirmed = new Map<string, { email: string | null; at: number }>();

  constructor(
    private readonly config: Config,
    private readonly builtin: {
      secrets: IdentitySecrets;
      identity: IdentityStore;
      sessions: SessionGate;
    } | null,
  ) {
    if (builtin) {
      this.key = createLocalJWKSet({ keys: [builtin.secrets.publicJwk] });
      this.algorithms = ["ES256"];
      this.issuer = `${config.publicUrl}/auth/v1`;
    } else if (config.authJwksUrl) {
      this.key = createRemoteJWKSet(new URL(config.authJwksUrl));
      this.algorithms = ["RS256", "ES256", "EdDSA"];
      this.issuer = config.authIssuer ?? config.authUrl ?? "";
    } else {
      this.key = new TextEncoder().encode(config.authJwtSecret ?? "");
      this.algorithms = ["HS256"];
      this.issuer = config.authIssuer ?? config.authUrl ?? "";
    }
  }

  /** The claims of a valid ordinary session token; 401 invalid_session otherwise. */
  async verify(token: string): Promise<SessionClaims> {
    let payload: JWTPayload;
    try {
      const opts = { algorithms: this.algorithms, audience: this.config.authAudience, issuer: this.issuer };
      payload =
        this.key instanceof Uint8Array
          ? (await jwtVerify(token, this.key, opts)).payload
          : (await jwtVerify(token, this.key, opts)).payload;
    } catch (err) {
      if (err instanceof joseErrors.JWKSTimeout || (err as { code?: string }).code === "ERR_JWKS_TIMEOUT")
        throw errors.authUnavailable();
      if (err instanceof TypeError) throw errors.authUnavailable(); // the JWKS fetch itself failed
      if (err instanceof joseErrors.JWTExpired) throw errors.invalidSession("the session has expired");
      throw errors.invalidSession();
    }
    // OAuth-client tokens carry client_id even when their audience is the ordinary one (SPEC 4.4, 5).
    if (payload.client_id !== undefined) {
      throw errors.invalidSession("tokens issued to OAuth clients cannot use account routes");
    }
    if (payload.role !== undefined && payload.role !== "authenticated") throw errors.invalidSession();
    if (typeof payload.sub !== "string" || payload.sub.length === 0 || payload.sub.length > 128)
      throw errors.invalidSession();
    const sessionId = typeof payload.session_id === "string" ? payload.session_id : null;
    // The built-in provider's tokens name a session, which must still be live: sign-out, a password change,
    // a refresh-token reuse or the account's deletion end it before the token expires.
    if (this.builtin && (sessionId === null || !(await this.builtin.sessions.active(sessionId, payload.sub))))
      throw errors.invalidSession("the session has ended; sign in again");
    return {
      sub: payload.sub,
      email: typeof payload.email === "string" ? payload.email.toLowerCase() : null,
      session_id: sessionId,
      iat: typeof payload.iat === "number" ? payload.iat : null,
    };
  }

  /** Ends every built-in session of an account (deletion); nothing to do for an external provider. */
  async endSessions(userId: string, reason: string): Promise<void> {
    if (!this.builtin) return;
    this.builtin.sessions.forget(await this.builtin.identity.endUserSessions(userId, reason));
    this.builtin.sessions.forgetUser(userId);
  }

  /** Whether tokens come from the built-in provider (whose sessions are checked). */
  get builtinProvider(): boolean {
    return this.builtin !== null;
  }

  /**
   * The account's email when the provider says it is confirmed, else null. The built-in provider is asked
   * directly; an external one through its user endpoint with the caller's token (cached for a minute).
   */
  async confirmedEmail(claims: SessionClaims, token: string): Promise<string | null> {
    if (this.builtin) {
      const user = await this.builtin.identity.userById(claims.sub);
      return user?.email_confirmed_at ? user.email.toLowerCase() : null;
    }
    const hit = this.confirmed.get(claims.sub);
    if (hit && Date.now() - hit.at < CONFIRMED_CACHE_MS) return hit.email;
    let email: string | null = null;
    try {
      const res = await fetch(`${this.config.authUrl}/user`, {
        headers: { apikey: this.config.authPublishableKey ?? "", authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(5_000),
      });
      if (res.ok) {
        const user = (await res.json()) as {
          id?: string;
          email?: string;
          email_confirmed_at?: string | null;
        };
        if (user.id === claims.sub && user.email && user.email_confirmed_at) email = user.email.toLowerCase();
      } else if (res.status >= 500) throw errors.authUnavailable();
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw errors.authUnavailable();
    }
    this.confirmed.set(claims.sub, { email, at: Date.now() });
    return email;
  }
}
