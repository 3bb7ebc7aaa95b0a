// The built-in identity provider, served at /auth/v1 with the GoTrue shape SPEC 5.5 describes, so the same
// client code (for example @supabase/auth-js) works against it and against a hosted provider:
//   POST /signup?redirect_to=    email + password; sends a confirmation link (signup never bypasses it)
//   GET  /verify?token&type&redirect_to   the emailed link: confirms, then redirects with a PKCE code
//                                 (?code=) or, without PKCE, the session in the fragment
//   POST /verify                  {type, token_hash} -> session
//   POST /token?grant_type=password | refresh_token | pkce
//   POST /resend, POST /recover, GET/PUT /user, POST /logout, GET /.well-known/jwks.json, GET /settings
// Access tokens are ES256 JWTs (one hour); refresh tokens rotate on every use. Errors carry GoTrue's `msg`
// and `error_code` next to the service's `{error, code}`, and the 2024-01-01 API version header tells
// clients to read `code`.
import { createHash, randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createLocalJWKSet, jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import type { Config } from "../config.ts";
import { ApiError } from "../errors.ts";
import type { IdentityStore, IdentityUser } from "../store/identity-store.ts";
import type { Mailer } from "./mailer.ts";
import { checkPassword, DUMMY_HASH_PROMISE, hashPassword } from "./passwords.ts";
import type { IdentitySecrets } from "./signing-keys.ts";

export const ACCESS_TOKEN_SECONDS = 3600;
const SIGNUP_LINK_MS = 24 * 3600_000;
const RECOVERY_LINK_MS = 3600_000;
const AUTH_CODE_MS = 5 * 60_000;
const RESEND_EVERY_MS = 60_000;

export interface IdentityProviderDeps {
  config: Config;
  identity: IdentityStore;
  secrets: IdentitySecrets;
  mailer: Mailer;
}

const idpError = (status: number, code: string, msg: string) =>
  new ApiError(status, code, msg, { msg, error_code: code });

const Email = z
  .string({ error: "email is required" })
  .trim()
  .max(254, "email is too long")
  .pipe(z.email({ error: "email is not a valid address" }));
const Password = z
  .string({ error: "password is required" })
  .min(8, "password must be at least 8 characters")
  .max(200, "password must be at most 200 characters");
const Challenge = {
  code_challenge: z.string().min(43).max(128).nullish(),
  code_challenge_method: z.enum(["s256", "S256", "plain"]).nullish(),
};
const Signup = z.object({
  email: Email,
  password: Password,
  data: z.record(z.string(), z.unknown()).optional(),
  ...Challenge,
});
const Credentials = z.object({
  email: Email,
  password: z.string({ error: "password is required" }).max(200),
});
const Refresh = z.object({ refresh_token: z.string({ error: "refresh_token is required" }).min(1).max(200) });
const Pkce = z.object({
  auth_code: z.string({ error: "auth_code is required" }).min(1).max(200),
  code_verifier: z.string({ error: "code_verifier is required" }).min(43).max(128),
});
const Resend = z.object({ type: z.enum(["signup"], { error: "type must be signup" }), email: Email });
const Recover = z.object({ email: Email, ...Challenge });
const VerifyBody = z.object({
  type: z.enum(["signup", "email", "recovery", "magiclink"], {
    error: "type must be signup, email or recovery",
  }),
  token_hash: z.string({ error: "token_hash is required" }).min(1).max(200),
});
const UpdateUser = z.object({
  password: Password.optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const r = schema.safeParse(value ?? {});
  if (!r.success) {
    const msg = r.error.issues.map((i) => i.message).join("; ");
    throw idpError(
      r.error.issues.some((i) => i.path[0] === "password" && i.code === "too_small") ? 422 : 400,
      r.error.issues.some((i) => i.path[0] === "password" && i.code === "too_small")
        ? "weak_password"
        : "validation_failed",
      msg,
    );
  }
  return r.data;
}

function s256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}

export function userView(u: IdentityUser) {
  return {
    id: u.id,
    aud: "authenticated",
    role: "authenticated",
    email: u.email,
    email_confirmed_at: u.email_confirmed_at,
    confirmed_at: u.email_confirmed_at,
    last_sign_in_at: u.last_sign_in,
    app_metadata: { provider: "email", providers: ["email"] },
    user_metadata: u.user_metadata,
    identities: [],
    created_at: u.created,
    updated_at: u.updated,
    is_anonymous: false,
  };
}

export function identityProvider(app: FastifyInstance, d: IdentityProviderDeps): void {
  const { config, identity, secrets, mailer } = d;
  const base = `${config.publicUrl}/auth/v1`;
  const issuer = base;
  const accountPage = `${config.publicUrl}/account`;
  const lastSent = new Map<string, number>();
  const localKeys = createLocalJWKSet({ keys: [secrets.publicJwk] });

  /** Only addresses of this service may receive tokens: anything else would be an open redirect. */
  function redirectTarget(raw: unknown): string {
    if (typeof raw !== "string" || raw === "") return accountPage;
    try {
      const u = new URL(raw);
      if (u.origin === new URL(config.publicUrl).origin) return u.toString();
    } catch {
      // fall through
    }
    return accountPage;
  }

  async function accessToken(u: IdentityUser, sessionId: string): Promise<string> {
    return new SignJWT({
      email: u.email,
      role: "authenticated",
      session_id: sessionId,
      aal: "aal1",
      amr: [{ method: "password", timestamp: Math.floor(Date.now() / 1000) }],
      is_anonymous: false,
      app_metadata: { provider: "email", providers: ["email"] },
      user_metadata: u.user_metadata,
    })
      .setProtectedHeader({ alg: "ES256", kid: secrets.kid, typ: "JWT" })
      .setIssuer(issuer)
      .setAudience("authenticated")
      .setSubject(u.id)
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_SECONDS}s`)
      .sign(secrets.privateKey);
  }

  async function session(u: IdentityUser, existing?: { sessionId: string; refresh: string }) {
    let r = existing;
    if (!r) {
      const made = await identity.createRefresh(u.id);
      r = { sessionId: made.sessionId, refresh: made.token };
    }
    await identity.signedIn(u.id);
    const fresh = (await identity.userById(u.id)) ?? u;
    return {
      access_token: await accessToken(fresh, r.sessionId),
      token_type: "bearer",
      expires_in: ACCESS_TOKEN_SECONDS,
      expires_at: Math.floor(Date.now() / 1000) + ACCESS_TOKEN_SECONDS,
      refresh_token: r.refresh,
      user: userView(fresh),
    };
  }

  async function sendLink(
    u: IdentityUser,
    kind: "signup" | "recovery",
    redirect: string,
    challenge?: {
      code_challenge?: string | null | undefined;
      code_challenge_method?: string | null | undefined;
    },
  ) {
    // At most one email per address and kind a minute, whoever asks: a mail cannon is not a feature.
    const key = `${kind}:${u.email.toLowerCase()}`;
    const last = lastSent.get(key) ?? 0;
    if (Date.now() - last < RESEND_EVERY_MS) return;
    lastSent.set(key, Date.now());
    const token = await identity.createOneTime(u.id, kind, {
      codeChallenge: challenge?.code_challenge ?? null,
      method: challenge?.code_challenge_method ? challenge.code_challenge_method.toLowerCase() : null,
    });
    const link = `${base}/verify?token=${token}&type=${kind}&redirect_to=${encodeURIComponent(redirect)}`;
    const signup = kind === "signup";
    const subject = signup ? "Confirm your Arena Ladder account" : "Reset your Arena Ladder password";
    const lead = signup
      ? "Confirm your email address to finish creating your Arena Ladder account."
      : "Someone asked to reset the password of your Arena Ladder account. If it was not you, ignore this email.";
    const note = "Open the link in the same browser you used to ask for it. It works once";
    const valid = signup ? "for 24 hours" : "for one hour";
    try {
      await mailer.send({
        to: u.email,
        subject,
        text: `${lead}\n\n${link}\n\n${note}, ${valid}.\n`,
        html: `<p>${lead}</p><p><a href="${link.replace(/&/g, "&amp;")}">${signup ? "Confirm my email" : "Reset my password"}</a></p><p>${note}, ${valid}.</p>`,
      });
    } catch {
      // The user exists; let them ask again at once rather than after the resend pause.
      lastSent.delete(key);
      throw idpError(503, "email_send_failed", "the email could not be sent; try again shortly with /resend");
    }
  }

  function requireApiKey(req: FastifyRequest): void {
    const key = req.headers.apikey;
    if (typeof key !== "string" || key === "")
      throw idpError(401, "no_api_key", "send the header apikey: <publishable key>");
    if (key !== secrets.publishableKey) throw idpError(401, "invalid_api_key", "invalid apikey");
  }

  async function userFromAccess(
    req: FastifyRequest,
  ): Promise<{ user: IdentityUser; sessionId: string | null }> {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    if (!m) throw idpError(401, "no_authorization", "send Authorization: Bearer <access token>");
    try {
      const { payload } = await jwtVerify(m[1]!, localKeys, {
        issuer,
        audience: "authenticated",
        algorithms: ["ES256"],
      });
      const user = typeof payload.sub === "string" ? await identity.userById(payload.sub) : null;
      if (!user) throw new Error("no user");
      return { user, sessionId: typeof payload.session_id === "string" ? payload.session_id : null };
    } catch {
      throw idpError(401, "bad_jwt", "invalid or expired access token");
    }
  }

  const limited = {
    config: { rateLimit: { max: config.authRateLimit, timeWindow: "1 minute" } },
  };

  app.register(
    async (idp) => {
      idp.addHook("onSend", async (_req, reply: FastifyReply, payload) => {
        reply.header("x-supabase-api-version", "2024-01-01");
        reply.header("cache-control", "no-store");
        return payload;
      });

      idp.get("/health", async () => ({ name: "arena-identity", description: "built-in identity provider" }));
      idp.get("/settings", async () => ({
        external: { email: true, phone: false },
        disable_signup: false,
        mailer_autoconfirm: false,
        phone_autoconfirm: false,
        sms_provider: "",
      }));
      idp.get("/.well-known/jwks.json", async (_req, reply) => {
        reply.header("cache-control", "public, max-age=600");
        return { keys: [secrets.publicJwk] };
      });

      idp.post("/signup", limited, async (req) => {
        requireApiKey(req);
        const b = parse(Signup, req.body);
        const redirect = redirectTarget((req.query as Record<string, unknown>).redirect_to);
        const made = await identity.createUser(b.email, await hashPassword(b.password), b.data ?? {});
        if (made === "exists") {
          // Same answer whether or not the address is registered (no account enumeration); an unconfirmed
          // one gets its confirmation again.
          const user = await identity.userByEmail(b.email);
          if (user && !user.email_confirmed_at) await sendLink(user, "signup", redirect, b);
          return {
            ...userView({
              ...(user as IdentityUser),
              id: randomUUID(),
              email_confirmed_at: null,
              user_metadata: {},
            }),
            identities: [],
          };
        }
        await sendLink(made, "signup", redirect, b);
        return userView(made);
      });

      idp.post("/resend", limited, async (req) => {
        requireApiKey(req);
        const b = parse(Resend, req.body);
        const user = await identity.userByEmail(b.email);
        const redirect = redirectTarget((req.query as Record<string, unknown>).redirect_to);
        if (user && !user.email_confirmed_at) await sendLink(user, "signup", redirect);
        return {};
      });

      idp.post("/recover", limited, async (req) => {
        requireApiKey(req);
        const b = parse(Recover, req.body);
        const user = await identity.userByEmail(b.email);
        const redirect = redirectTarget((req.query as Record<string, unknown>).redirect_to);
        if (user) await sendLink(user, "recovery", redirect, b);
        return {};
      });

      // The emailed link: no apikey (it is opened from a mail client), single use, then back to the site.
      idp.get("/verify", async (req, reply) => {
        const q = req.query as Record<string, unknown>;
        const redirect = redirectTarget(q.redirect_to);
        const type = q.type === "recovery" ? "recovery" : "signup";
        const token = typeof q.token === "string" ? q.token : "";
        const used = token
          ? await identity.consumeOneTime(
              token,
              [type],
              type === "signup" ? SIGNUP_LINK_MS : RECOVERY_LINK_MS,
            )
          : null;
        if (!used) {
          const frag = new URLSearchParams({
            error: "access_denied",
            error_code: "otp_expired",
            error_description: "Email link is invalid or has expired",
          });
          return reply.redirect(`${redirect}#${frag}`, 303);
        }
        if (type === "signup") await identity.confirmEmail(used.user_id);
        const user = await identity.userById(used.user_id);
        if (!user) return reply.redirect(`${redirect}#error=access_denied&error_code=user_not_found`, 303);
        if (used.code_challenge) {
          // PKCE: only the browser holding the verifier can turn this code into a session.
          const code = await identity.createOneTime(user.id, "auth_code", {
            codeChallenge: used.code_challenge,
            method: used.code_challenge_method,
            purpose: type,
          });
          const u = new URL(redirect);
          u.searchParams.set("code", code);
          return reply.redirect(u.toString(), 303);
        }
        const s = await session(user);
        const frag = new URLSearchParams({
          access_token: s.access_token,
          expires_at: String(s.expires_at),
          expires_in: String(s.expires_in),
          refresh_token: s.refresh_token,
          token_type: "bearer",
          type,
        });
        return reply.redirect(`${redirect}#${frag}`, 303);
      });

      idp.post("/verify", limited, async (req) => {
        requireApiKey(req);
        const b = parse(VerifyBody, req.body);
        const kind = b.type === "recovery" ? "recovery" : "signup";
        const used = await identity.consumeOneTime(
          b.token_hash,
          [kind],
          kind === "signup" ? SIGNUP_LINK_MS : RECOVERY_LINK_MS,
        );
        if (!used) throw idpError(403, "otp_expired", "Email link is invalid or has expired");
        if (kind === "signup") await identity.confirmEmail(used.user_id);
        const user = await identity.userById(used.user_id);
        if (!user) throw idpError(404, "user_not_found", "User not found");
        return session(user);
      });

      idp.post("/token", limited, async (req) => {
        requireApiKey(req);
        const grant = (req.query as Record<string, unknown>).grant_type;
        if (grant === "password") {
          const b = parse(Credentials, req.body);
          const user = await identity.userByEmail(b.email);
          // Compare against a dummy hash for unknown emails, so timing does not reveal who is registered.
          const ok = await checkPassword(b.password, user?.password_hash ?? (await DUMMY_HASH_PROMISE));
          if (!user || !ok) throw idpError(400, "invalid_credentials", "Invalid login credentials");
          if (!user.email_confirmed_at) throw idpError(400, "email_not_confirmed", "Email not confirmed");
          return session(user);
        }
        if (grant === "refresh_token") {
          const b = parse(Refresh, req.body);
          const r = await identity.rotateRefresh(b.refresh_token);
          if (r === "reused")
            throw idpError(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used");
          if (!r)
            throw idpError(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found");
          const user = await identity.userById(r.userId);
          if (!user) throw idpError(400, "user_not_found", "User not found");
          return session(user, { sessionId: r.sessionId, refresh: r.token });
        }
        if (grant === "pkce") {
          const b = parse(Pkce, req.body);
          const used = await identity.consumeOneTime(b.auth_code, ["auth_code"], AUTH_CODE_MS);
          if (!used) throw idpError(404, "flow_state_not_found", "invalid or expired auth code");
          const want = used.code_challenge_method === "plain" ? b.code_verifier : s256(b.code_verifier);
          if (want !== used.code_challenge)
            throw idpError(400, "bad_code_verifier", "code verifier does not match the challenge");
          const user = await identity.userById(used.user_id);
          if (!user) throw idpError(404, "user_not_found", "User not found");
          return session(user);
        }
        throw idpError(400, "unsupported_grant_type", "grant_type must be password, refresh_token or pkce");
      });

      idp.get("/user", async (req) => {
        requireApiKey(req);
        return userView((await userFromAccess(req)).user);
      });

      idp.put("/user", limited, async (req) => {
        requireApiKey(req);
        const { user } = await userFromAccess(req);
        const b = parse(UpdateUser, req.body);
        if (b.password) await identity.setPassword(user.id, await hashPassword(b.password));
        const fresh = await identity.userById(user.id);
        return userView(fresh ?? user);
      });

      idp.post("/logout", async (req, reply) => {
        requireApiKey(req);
        const { user, sessionId } = await userFromAccess(req);
        const scope = (req.query as Record<string, unknown>).scope;
        if (scope === "global" || !sessionId) await identity.revokeUserSessions(user.id);
        else await identity.revokeSession(sessionId);
        return reply.code(204).send();
      });
    },
    { prefix: "/auth/v1" },
  );
}
