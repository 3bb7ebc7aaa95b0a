// The built-in identity provider, served at /auth/v1 with the GoTrue shape SPEC 5.5 describes, so the same
// client code (for example @supabase/auth-js) works against it and against a hosted provider:
//   POST /signup?redirect_to=    email + password; the confirmation link carries this sign-up's password
//                                 and opening it makes that password the account's (signup never bypasses it)
//   GET  /verify?token&type&redirect_to   the emailed link: confirms, then redirects with a PKCE code
//                                 (?code=) or, without PKCE, the session in the fragment
//   POST /verify                  {type, token_hash} -> session
//   POST /token?grant_type=password | refresh_token | pkce
//   POST /resend, POST /recover, GET/PUT /user, POST /logout, GET /.well-known/jwks.json, GET /settings
// Access tokens are ES256 JWTs (one hour) naming their session; a session ends at sign-out, a password
// change (every other session), a refresh-token reuse or the account's deletion, and its access tokens stop
// working at once. Refresh tokens rotate on every use. Errors carry GoTrue's `msg` and `error_code` next to
// the service's `{error, code}`, and the 2024-01-01 API version header tells clients to read `code`.
import { createHash, createHmac, randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { createLocalJWKSet, jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import type { Config } from "../config.ts";
import { ApiError } from "../errors.ts";
import { publicBase } from "../public-address.ts";
import type { IdentityStore, IdentityUser, OneTimeRow } from "../store/identity-store.ts";
import { DeviceTrust } from "./device-trust.ts";
import { GuessThrottle } from "./guessing.ts";
import { LinkMail, REPEAT_EVERY_MS } from "./links.ts";
import type { Mailer } from "./mailer.ts";
import { checkPassword, DUMMY_HASH_PROMISE, hashPassword, weakPassword } from "./passwords.ts";
import type { SessionGate } from "./sessions.ts";
import type { IdentitySecrets } from "./signing-keys.ts";

export const ACCESS_TOKEN_SECONDS = 3600;
const SIGNUP_LINK_MS = 24 * 3600_000;
const RECOVERY_LINK_MS = 3600_000;
const AUTH_CODE_MS = 5 * 60_000;
/** Sign-ups of one address that may wait at once: the first, and browser-bound ones beside it. */
const PENDING_SIGNUPS_MAX = 3;
/** GoTrue's refresh_token_reuse_interval: a token just replaced still answers (two tabs refreshing). */
export const REFRESH_REUSE_MS = 10_000;
/** A session opened by a recovery link may set a new password without the current one for this long. */
export const RECOVERY_REAUTH_MS = 10 * 60_000;

export interface IdentityProviderDeps {
  config: Config;
  identity: IdentityStore;
  secrets: IdentitySecrets;
  mailer: Mailer;
  sessions: SessionGate;
  /** Whether the account behind an identity is banned: it may keep its sessions, but gets no new tokens. */
  banned(userId: string): Promise<boolean>;
}

const idpError = (status: number, code: string, msg: string, extra: Record<string, unknown> = {}) =>
  new ApiError(status, code, msg, { msg, error_code: code, ...extra });

const Email = z
  .string({ error: "email is required" })
  .trim()
  .max(254, "email is too long")
  .pipe(z.email({ error: "email is not a valid address" }));
const Password = z
  .string({ error: "password is required" })
  .min(8, "password must be at least 8 characters")
  .max(200, "password must be at most 200 characters");
// PKCE with S256 only (SPEC 5 rule 7): `plain` would hand the verifier to whoever reads the link's request.
const Challenge = {
  code_challenge: z.string().min(43).max(128).nullish(),
  code_challenge_method: z.enum(["s256", "S256"], { error: "code_challenge_method must be s256" }).nullish(),
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
  current_password: z.string().max(200).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

/**
 * GoTrue's validation: unknown fields are ignored, as GoTrue does (its clients send extras such as
 * gotrue_meta_security); an absent body is `{}`, a JSON `null` is not.
 */
function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const r = schema.safeParse(value === undefined ? {} : value);
  if (!r.success) {
    const msg = r.error.issues.map((i) => i.message).join("; ");
    const short = r.error.issues.some((i) => i.path[0] === "password" && i.code === "too_small");
    if (short) throw idpError(422, "weak_password", msg, { weak_password: { reasons: ["length"] } });
    throw idpError(400, "validation_failed", msg);
  }
  return r.data;
}

/** Common and context-derived passwords are refused with GoTrue's weak_password answer. */
async function requireStrong(password: string, email: string): Promise<void> {
  const [local = "", domain = ""] = email.toLowerCase().split("@");
  const problem = await weakPassword(password, [
    email,
    local,
    ...local.split(/[._+-]/),
    ...domain.split("."),
  ]);
  if (problem)
    throw idpError(422, "weak_password", `password is too easy to guess: ${problem}`, {
      weak_password: { reasons: ["pwned"] },
    });
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

/** What every sign-up answers, new address or not (GoTrue's stand-in user): nothing about a stored user. */
function signupView(email: string, data: Record<string, unknown>) {
  const now = new Date().toISOString();
  return userView({
    id: randomUUID(),
    email,
    password_hash: "",
    email_confirmed_at: null,
    user_metadata: data,
    created: now,
    updated: now,
    last_sign_in: null,
  });
}

type SessionKind = "password" | "otp" | "recovery";

export function identityProvider(app: FastifyInstance, d: IdentityProviderDeps): void {
  const { config, identity, secrets, sessions } = d;
  const base = `${config.publicUrl}/auth/v1`;
  const issuer = base;
  const accountPage = `${config.publicUrl}/account`;
  const links = new LinkMail(d.mailer, base);
  const guesses = new GuessThrottle();
  const devices = new DeviceTrust(
    createHmac("sha256", secrets.refreshKey).update("device cookies").digest(),
    "/auth/v1",
    config.publicUrl.startsWith("https://"),
  );
  const localKeys = createLocalJWKSet({ keys: [secrets.publicJwk] });
  const pending = new Set<Promise<void>>();

  /** A refresh token's successor, derived from it with a key only this server holds. */
  const successor = (parent: string) =>
    createHmac("sha256", secrets.refreshKey).update(parent).digest().subarray(0, 24).toString("base64url");

  /**
   * Work whose duration must not tell whether an email is registered (recover, resend): the answer goes out
   * first, the lookup and the email follow. Awaited on close.
   */
  function later(what: string, work: () => Promise<void>): void {
    const p = new Promise<void>((resolve) => setImmediate(resolve))
      .then(work)
      .catch((err) => app.log.warn({ err, what }, "identity email work failed"))
      .finally(() => pending.delete(p));
    pending.add(p);
  }
  app.addHook("onClose", async () => {
    await Promise.all([...pending]);
  });

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

  /** Browsers (they send Origin) sign up and recover with PKCE only (SPEC 5 rule 7). */
  function requirePkceFromBrowser(req: FastifyRequest, b: { code_challenge?: string | null | undefined }) {
    if (typeof req.headers.origin === "string" && req.headers.origin !== "" && !b.code_challenge)
      throw idpError(
        400,
        "validation_failed",
        "browsers must use PKCE: send code_challenge with code_challenge_method s256",
      );
  }

  async function accessToken(u: IdentityUser, sessionId: string, kind: SessionKind): Promise<string> {
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
      .setProtectedHeader({ alg: "ES256", kid: secrets.kid, typ: "JWT" })
      .setIssuer(issuer)
      .setAudience("authenticated")
      .setSubject(u.id)
      .setIssuedAt()
      .setExpirationTime(`${ACCESS_TOKEN_SECONDS}s`)
      .sign(secrets.privateKey);
  }

  /** A new session (sign-in, link, code), or new tokens for an existing one (refresh). */
  async function session(
    req: FastifyRequest,
    u: IdentityUser,
    kind: SessionKind,
    existing?: { sessionId: string; refresh: string },
  ) {
    await refuseBanned(u.id);
    let r = existing;
    if (!r) {
      const made = await identity.createSession(u.id, { ip: req.ip, recovery: kind === "recovery" });
      r = { sessionId: made.sessionId, refresh: made.token };
      await identity.signedIn(u.id);
    }
    const fresh = (await identity.userById(u.id)) ?? u;
    return {
      access_token: await accessToken(fresh, r.sessionId, kind),
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
  async function refuseBanned(userId: string): Promise<void> {
    if (await d.banned(userId)) throw idpError(403, "account_banned", "this account is banned");
  }

  async function mail(kind: "signup" | "recovery", u: IdentityUser, token: string, redirect: string) {
    try {
      await links.send(kind, u.email, token, redirect);
    } catch {
      throw idpError(503, "email_send_failed", "the email could not be sent; try again shortly with /resend");
    }
  }

  function requireApiKey(req: FastifyRequest): void {
    const key = req.headers.apikey;
    if (typeof key !== "string" || key === "")
      throw idpError(401, "no_api_key", "send the header apikey: <publishable key>");
    if (key !== secrets.publishableKey) throw idpError(401, "invalid_api_key", "invalid apikey");
  }

  /** The user and live session behind an access token; an ended session is refused like a bad token. */
  async function userFromAccess(req: FastifyRequest): Promise<{ user: IdentityUser; sessionId: string }> {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "");
    if (!m) throw idpError(401, "no_authorization", "send Authorization: Bearer <access token>");
    let sub: string;
    let sessionId: string;
    try {
      const { payload } = await jwtVerify(m[1]!, localKeys, {
        issuer,
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
    const user = (await sessions.active(sessionId, sub)) ? await identity.userById(sub) : null;
    if (!user)
      throw idpError(403, "session_not_found", "Session from session_id claim in JWT does not exist");
    return { user, sessionId };
  }

  /**
   * Counts a password attempt at an email, or refuses it (429) while the email's guessing delay runs,
   * unless it carries a device cookie of a browser that signed in to the account before (device-trust.ts;
   * never an address: behind a proxy or a NAT the attacker may share the owner's). Returns that device.
   */
  async function guessAttempt(
    req: FastifyRequest,
    reply: FastifyReply,
    email: string,
    user: IdentityUser | null,
  ): Promise<string | null> {
    const wait = guesses.wait(email);
    const device = user ? devices.trusted(req, user.id) : null;
    if (wait > 0 && !device) {
      const s = Math.ceil(wait / 1000);
      reply.header("retry-after", String(s));
      throw idpError(429, "rate_limited", `too many failed sign-ins for this account; try again in ${s} s`);
    }
    guesses.attempt(email);
    return device;
  }

  /**
   * Records a sign-up for an unconfirmed address, so that no sign-up can take another's place (issue 31):
   * - one that repeats a pending sign-up's password is that sign-up's own requester again: it replaces it;
   * - one made with PKCE is recorded beside the pending ones: its link confirms only in its requester's
   *   browser, so the address's owner opening it by mistake activates nothing;
   * - one made without PKCE while another person's sign-up waits is not recorded: its link would confirm its
   *   password for whoever opened the newest email. The address is told instead (a notice, no link).
   * Past the address's email allowance nothing is recorded (same answer): every recorded sign-up has had its
   * own email, so a resend never mails credentials nobody was told about.
   */
  async function recordSignup(
    user: IdentityUser,
    b: { password: string; data?: Record<string, unknown> | undefined; code_challenge?: string | null },
    redirect: string,
  ): Promise<void> {
    const pending = await identity.pendingSignups(user.id, SIGNUP_LINK_MS);
    let same: OneTimeRow | undefined;
    for (const p of pending.slice(-PENDING_SIGNUPS_MAX))
      if (p.password_hash && (await checkPassword(b.password, p.password_hash))) same = p;
    const others = pending.filter((p) => p !== same);
    if (others.length > 0 && !b.code_challenge) {
      if (links.allowed("notice", user.email, 0)) await notice(user.email, others[0]!.created);
      return;
    }
    if (others.length >= PENDING_SIGNUPS_MAX || !links.allowed("signup", user.email, 0)) return;
    const token = await identity.createOneTime(user.id, "signup", {
      codeChallenge: b.code_challenge ?? null,
      method: b.code_challenge ? "s256" : null,
      passwordHash: await hashPassword(b.password),
      metadata: b.data ?? {},
    });
    if (same) await identity.voidOneTime(same.token_hash);
    await mail("signup", user, token, redirect);
  }

  async function notice(email: string, waitingSince: string) {
    try {
      await links.notice(email, waitingSince, accountPage);
    } catch {
      throw idpError(503, "email_send_failed", "the email could not be sent; try again shortly");
    }
  }

  /** Whether a password is one of the address's pending sign-ups' (the newest few; each costs a hash). */
  async function matchesPendingSignup(user: IdentityUser, password: string): Promise<boolean> {
    const pending = (await identity.pendingSignups(user.id, SIGNUP_LINK_MS)).slice(-PENDING_SIGNUPS_MAX);
    if (pending.length === 0) {
      await checkPassword(password, await DUMMY_HASH_PROMISE);
      return false;
    }
    for (const p of pending)
      if (p.password_hash && (await checkPassword(password, p.password_hash))) return true;
    return false;
  }

  // One budget per client address for every route that takes a password, an email or a link (sign-in,
  // sign-up, recovery, resend, link redemption, password change), as --auth-rate-limit says: one limiter
  // shared by the routes, not one per route (the plugin's per-route option would give each its own count).
  const budget = app.rateLimit({ max: config.authRateLimit, timeWindow: "1 minute" });
  const limited = { onRequest: budget, config: { takesBody: true } };

  app.register(
    async (idp) => {
      // A page of another site may not sign up, sign in, refresh or change anything here (the account
      // routes' rule). The public documents stay readable from anywhere, and the emailed link is a navigation.
      const publicGets = new Set([
        "/auth/v1/health",
        "/auth/v1/settings",
        "/auth/v1/.well-known/jwks.json",
        "/auth/v1/verify",
      ]);
      idp.addHook("onRequest", async (req) => {
        const origin = req.headers.origin;
        if (typeof origin !== "string" || origin === "") return;
        if (req.method === "GET" && publicGets.has(req.routeOptions.url ?? "")) return;
        if (origin !== new URL(publicBase(config, req)).origin)
          throw idpError(403, "foreign_origin", "requests from another site's pages are refused here");
      });
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

      // Same answer for new and registered addresses (no enumeration). The password never lands on the user
      // row here: it rides on this sign-up's own link (recordSignup), and no other sign-up replaces it.
      idp.post("/signup", limited, async (req) => {
        requireApiKey(req);
        const b = parse(Signup, req.body);
        requirePkceFromBrowser(req, b);
        await requireStrong(b.password, b.email);
        const redirect = redirectTarget((req.query as Record<string, unknown>).redirect_to);
        const made = await identity.createUser(b.email, {});
        const user = made === "exists" ? await identity.userByEmail(b.email) : made;
        if (user && !user.email_confirmed_at) await recordSignup(user, b, redirect);
        return signupView(b.email, b.data ?? {});
      });

      // A new link for each pending sign-up, each carrying that sign-up's own credentials and PKCE challenge
      // (never another's), at most once a minute.
      idp.post("/resend", limited, async (req) => {
        requireApiKey(req);
        const b = parse(Resend, req.body);
        const redirect = redirectTarget((req.query as Record<string, unknown>).redirect_to);
        later("resend", async () => {
          const user = await identity.userByEmail(b.email);
          if (!user || user.email_confirmed_at) return;
          // At most one resend a minute, and within the address's sign-up email allowance.
          if (
            !links.allowed("resend", user.email, REPEAT_EVERY_MS) ||
            !links.allowed("signup", user.email, 0)
          )
            return;
          links.note("resend", user.email);
          for (const signup of await identity.pendingSignups(user.id, SIGNUP_LINK_MS)) {
            const token = await identity.createOneTime(user.id, "signup", {
              codeChallenge: signup.code_challenge,
              method: signup.code_challenge_method,
              passwordHash: signup.password_hash,
              metadata: signup.user_metadata,
            });
            await identity.voidOneTime(signup.token_hash);
            await links.send("signup", user.email, token, redirect);
          }
        });
        return {};
      });

      // A reset link for a confirmed account; it replaces the older ones.
      idp.post("/recover", limited, async (req) => {
        requireApiKey(req);
        const b = parse(Recover, req.body);
        requirePkceFromBrowser(req, b);
        const redirect = redirectTarget((req.query as Record<string, unknown>).redirect_to);
        later("recover", async () => {
          const user = await identity.userByEmail(b.email);
          if (!user?.email_confirmed_at || !links.allowed("recovery", user.email, 0)) return;
          const token = await identity.createOneTime(user.id, "recovery", {
            codeChallenge: b.code_challenge ?? null,
            method: b.code_challenge ? "s256" : null,
            replace: true,
          });
          await links.send("recovery", user.email, token, redirect);
        });
        return {};
      });

      /**
       * Uses an emailed link that confirms on opening: a sign-up link made without PKCE (its credentials
       * become the account's) or a reset link. Null when it is no good. A sign-up link made with PKCE is
       * refused here: only the code exchange with its verifier may activate it (browserSignup).
       */
      async function openLink(token: string, kind: "signup" | "recovery") {
        if (kind === "signup" && (await browserSignup(token))) return null;
        const used = token
          ? await identity.consumeOneTime(
              token,
              [kind],
              kind === "signup" ? SIGNUP_LINK_MS : RECOVERY_LINK_MS,
            )
          : null;
        if (!used) return null;
        if (kind === "signup") {
          if (!used.password_hash) return null;
          if (!(await identity.activateSignup(used.user_id, used.password_hash, used.user_metadata)))
            return null;
        }
        const user = await identity.userById(used.user_id);
        if (!user?.email_confirmed_at) return null;
        return { used, user };
      }

      /** The pending sign-up behind a link when it was made with PKCE (bound to its requester's browser). */
      async function browserSignup(token: string) {
        const row = token ? await identity.peekOneTime(token, ["signup"], SIGNUP_LINK_MS) : null;
        return row?.code_challenge && row.password_hash ? row : null;
      }

      const expired = (redirect: string) =>
        `${redirect}#${new URLSearchParams({
          error: "access_denied",
          error_code: "otp_expired",
          error_description: "Email link is invalid or has expired",
        })}`;

      // The emailed link: no apikey (it is opened from a mail client), then back to the site. A PKCE sign-up's
      // link only hands out a code bound to its challenge and stays usable until the code is exchanged (a
      // link opened in another browser first, or by someone else, confirms nothing); other links work once.
      idp.get("/verify", async (req, reply) => {
        const q = req.query as Record<string, unknown>;
        const redirect = redirectTarget(q.redirect_to);
        const type = q.type === "recovery" ? "recovery" : "signup";
        const token = typeof q.token === "string" ? q.token : "";
        const signup = type === "signup" ? await browserSignup(token) : null;
        if (signup) {
          const code = await identity.createOneTime(signup.user_id, "auth_code", {
            codeChallenge: signup.code_challenge,
            method: "s256",
            purpose: "signup",
            passwordHash: signup.password_hash,
            metadata: signup.user_metadata,
          });
          const u = new URL(redirect);
          u.searchParams.set("code", code);
          return reply.redirect(u.toString(), 303);
        }
        const opened = await openLink(token, type);
        if (!opened) return reply.redirect(expired(redirect), 303);
        const { used, user } = opened;
        if (used.code_challenge) {
          // PKCE: only the browser holding the verifier can turn this code into a session.
          const code = await identity.createOneTime(user.id, "auth_code", {
            codeChallenge: used.code_challenge,
            method: "s256",
            purpose: type,
          });
          const u = new URL(redirect);
          u.searchParams.set("code", code);
          return reply.redirect(u.toString(), 303);
        }
        const s = await session(req, user, type === "recovery" ? "recovery" : "otp");
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
        if (kind === "signup" && (await browserSignup(b.token_hash)))
          throw idpError(
            403,
            "pkce_required",
            "this sign-up was made with PKCE: open its link in the browser that signed up",
          );
        const opened = await openLink(b.token_hash, kind);
        if (!opened) throw idpError(403, "otp_expired", "Email link is invalid or has expired");
        return session(req, opened.user, kind === "recovery" ? "recovery" : "otp");
      });

      idp.post("/token", limited, async (req, reply) => {
        requireApiKey(req);
        const grant = (req.query as Record<string, unknown>).grant_type;
        if (grant === "password") {
          const b = parse(Credentials, req.body);
          const user = await identity.userByEmail(b.email);
          const device = await guessAttempt(req, reply, b.email, user);
          // An unconfirmed address has no password yet: a pending sign-up's (on its link) only tells the
          // person to confirm. Unknown emails are compared against a dummy hash, so timing does not tell.
          const confirmed = Boolean(user?.email_confirmed_at);
          const ok = confirmed
            ? await checkPassword(b.password, user!.password_hash)
            : user
              ? await matchesPendingSignup(user, b.password)
              : await checkPassword(b.password, await DUMMY_HASH_PROMISE).then(() => false);
          if (!user || !ok) {
            if (device) devices.failed(device);
            throw idpError(400, "invalid_credentials", "Invalid login credentials");
          }
          guesses.succeeded(b.email);
          if (!confirmed) throw idpError(400, "email_not_confirmed", "Email not confirmed");
          const signedIn = await session(req, user, "password");
          reply.header("set-cookie", devices.cookieFor(user.id));
          return signedIn;
        }
        if (grant === "refresh_token") {
          const b = parse(Refresh, req.body);
          // Refused before the rotation, so the token still works after an unban.
          const owner = await identity.refreshTokenUser(b.refresh_token);
          if (owner) await refuseBanned(owner);
          const r = await identity.rotateRefresh(b.refresh_token, REFRESH_REUSE_MS, successor);
          if (r && "reused" in r) {
            sessions.forget([r.reused]);
            throw idpError(400, "refresh_token_already_used", "Invalid Refresh Token: Already Used");
          }
          if (!r)
            throw idpError(400, "refresh_token_not_found", "Invalid Refresh Token: Refresh Token Not Found");
          const user = await identity.userById(r.userId);
          if (!user) throw idpError(400, "user_not_found", "User not found");
          const started = await identity.session(r.sessionId);
          const kind: SessionKind = started?.recovery_at ? "recovery" : "password";
          return session(req, user, kind, { sessionId: r.sessionId, refresh: r.token });
        }
        if (grant === "pkce") {
          const b = parse(Pkce, req.body);
          const used = await identity.consumeOneTime(b.auth_code, ["auth_code"], AUTH_CODE_MS);
          if (!used) throw idpError(404, "flow_state_not_found", "invalid or expired auth code");
          if (used.code_challenge_method !== "s256" || s256(b.code_verifier) !== used.code_challenge)
            throw idpError(400, "bad_code_verifier", "code verifier does not match the challenge");
          // A sign-up made with PKCE is activated here, by the browser that made it, and nowhere else.
          if (used.purpose === "signup" && used.password_hash) {
            const activated = await identity.activateSignup(
              used.user_id,
              used.password_hash,
              used.user_metadata,
            );
            if (!activated) throw idpError(404, "flow_state_not_found", "this sign-up is no longer pending");
          }
          const user = await identity.userById(used.user_id);
          if (!user?.email_confirmed_at) throw idpError(404, "user_not_found", "User not found");
          return session(req, user, used.purpose === "recovery" ? "recovery" : "otp");
        }
        throw idpError(400, "unsupported_grant_type", "grant_type must be password, refresh_token or pkce");
      });

      idp.get("/user", async (req) => {
        requireApiKey(req);
        return userView((await userFromAccess(req)).user);
      });

      // A new password needs the current one, or a session opened by a recovery link minutes ago. It voids
      // every reset link and ends every other session of the account.
      idp.put("/user", limited, async (req, reply) => {
        requireApiKey(req);
        const { user, sessionId } = await userFromAccess(req);
        const b = parse(UpdateUser, req.body);
        if (b.password) {
          await requireStrong(b.password, user.email);
          const s = await identity.session(sessionId);
          const recovering = s?.recovery_at && Date.now() - Date.parse(s.recovery_at) < RECOVERY_REAUTH_MS;
          if (!recovering) {
            if (b.current_password === undefined)
              throw idpError(
                400,
                "current_password_required",
                "send current_password to change the password, or use a password reset link",
              );
            const device = await guessAttempt(req, reply, user.email, user);
            if (!(await checkPassword(b.current_password, user.password_hash))) {
              if (device) devices.failed(device);
              throw idpError(400, "current_password_mismatch", "the current password is not correct");
            }
            guesses.succeeded(user.email);
          }
          const ended = await identity.setPassword(user.id, await hashPassword(b.password), sessionId);
          sessions.forget(ended);
        }
        const fresh = await identity.userById(user.id);
        return userView(fresh ?? user);
      });

      // scope: local (this session, the default), global (every session) or others (all but this one).
      idp.post("/logout", async (req, reply) => {
        requireApiKey(req);
        const { user, sessionId } = await userFromAccess(req);
        const scope = (req.query as Record<string, unknown>).scope ?? "local";
        // As GoTrue: an unknown scope is refused, not taken for the default (it would end this session).
        if (scope !== "local" && scope !== "global" && scope !== "others")
          throw idpError(400, "validation_failed", "scope must be local, global or others");
        if (scope === "global" || scope === "others") {
          const ended = await identity.endUserSessions(
            user.id,
            "signed_out",
            scope === "others" ? sessionId : null,
          );
          sessions.forget(ended);
        } else {
          await identity.endSession(sessionId, "signed_out");
          sessions.forget([sessionId]);
        }
        return reply.code(204).send();
      });
    },
    { prefix: "/auth/v1" },
  );
}
