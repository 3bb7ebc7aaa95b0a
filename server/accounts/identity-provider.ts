// The built-in identity provider, served at /auth/v1 with the GoTrue shape SPEC 5.5 describes, so the same
// client code (for example @supabase/auth-js) works against it and against a hosted provider:
//   POST /signup?redirect_to=    email + password; the sign-up waits with its own password on its own link,
//                                 and no later sign-up replaces it (signups.ts; signup never bypasses it)
//   GET  /verify?token&type&redirect_to   the emailed link: a sign-up without PKCE is confirmed and the
//                                 session comes in the fragment; a PKCE link redirects with a code (?code=),
//                                 and a PKCE sign-up is confirmed only when that code is exchanged
//   POST /verify                  {type, token_hash} -> session (refused for a PKCE sign-up)
//   POST /token?grant_type=password | refresh_token | pkce
//   POST /resend, POST /recover, GET/PUT /user, POST /logout, GET /.well-known/jwks.json, GET /settings
// Access tokens are ES256 JWTs (one hour) naming their session (session-tokens.ts); a session ends at sign-out,
// a password change (every other session), a refresh-token reuse or the account's deletion, and its access
// tokens stop working at once; a banned account gets no new tokens. Refresh tokens rotate on every use. Inputs
// and errors are in idp-shapes.ts: GoTrue's `msg` and `error_code` next to the service's `{error, code}`, and
// the 2024-01-01 API version header tells clients to read `code`.
import { createHmac } from "node:crypto";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../config.ts";
import type { Mailer } from "../mail/transport.ts";
import { publicBase } from "../public-address.ts";
import { DeviceTrust } from "./device-trust.ts";
import type { GuessThrottle } from "./guessing.ts";
import type { IdentityStore, IdentityUser } from "./identity-store.ts";
import {
  Credentials,
  idpError,
  Pkce,
  parse,
  Recover,
  Refresh,
  Resend,
  requireStrong,
  Signup,
  s256,
  signupView,
  UpdateUser,
  userView,
  VerifyBody,
} from "./idp-shapes.ts";
import { LinkMail } from "./links.ts";
import { checkPassword, DUMMY_HASH_PROMISE, hashPassword } from "./passwords.ts";
import { type SessionKind, SessionTokens } from "./session-tokens.ts";
import type { SessionGate } from "./sessions.ts";
import type { IdentitySecrets } from "./signing-keys.ts";
import { PendingSignups, SIGNUP_LINK_MS } from "./signups.ts";

const RECOVERY_LINK_MS = 3600_000;
const AUTH_CODE_MS = 5 * 60_000;
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
  /** Failed password attempts per email (shared with the other nodes in a cluster). */
  guesses: GuessThrottle;
}

export function identityProvider(app: FastifyInstance, d: IdentityProviderDeps): void {
  const { config, identity, secrets, sessions } = d;
  const base = `${config.publicUrl}/auth/v1`;
  const accountPage = `${config.publicUrl}/account`;
  const links = new LinkMail(d.mailer, base);
  const signups = new PendingSignups(identity, links, accountPage);
  const { guesses } = d;
  const devices = new DeviceTrust(
    createHmac("sha256", secrets.refreshKey).update("device cookies").digest(),
    "/auth/v1",
    config.publicUrl.startsWith("https://"),
  );
  const tokens = new SessionTokens({ identity, secrets, sessions, banned: d.banned, issuer: base });
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

  function requireApiKey(req: FastifyRequest): void {
    const key = req.headers.apikey;
    if (typeof key !== "string" || key === "")
      throw idpError(401, "no_api_key", "send the header apikey: <publishable key>");
    if (key !== secrets.publishableKey) throw idpError(401, "invalid_api_key", "invalid apikey");
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
        if (user && !user.email_confirmed_at) await signups.record(user, b, redirect);
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
          if (user && !user.email_confirmed_at) await signups.resend(user, redirect);
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
       * become the account's) or a reset link. Null when it is no good. Its callers send a sign-up link made
       * with PKCE elsewhere first (browserSignup): only the code exchange with its verifier may activate it,
       * so one that still arrives here is not activated.
       */
      async function openLink(token: string, kind: "signup" | "recovery") {
        const used = token
          ? await identity.consumeOneTime(
              token,
              [kind],
              kind === "signup" ? SIGNUP_LINK_MS : RECOVERY_LINK_MS,
            )
          : null;
        if (!used) return null;
        if (kind === "signup") {
          if (!used.password_hash || used.code_challenge) return null;
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
        const s = await tokens.issue(req, user, type === "recovery" ? "recovery" : "otp");
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
        return tokens.issue(req, opened.user, kind === "recovery" ? "recovery" : "otp");
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
              ? await signups.matches(user, b.password)
              : await checkPassword(b.password, await DUMMY_HASH_PROMISE).then(() => false);
          if (!user || !ok) {
            if (device) devices.failed(device);
            throw idpError(400, "invalid_credentials", "Invalid login credentials");
          }
          guesses.succeeded(b.email);
          if (!confirmed) throw idpError(400, "email_not_confirmed", "Email not confirmed");
          const signedIn = await tokens.issue(req, user, "password");
          reply.header("set-cookie", devices.cookieFor(user.id));
          return signedIn;
        }
        if (grant === "refresh_token") {
          const b = parse(Refresh, req.body);
          // Refused before the rotation, so the token still works after an unban.
          const owner = await identity.refreshTokenUser(b.refresh_token);
          if (owner) await tokens.refuseBanned(owner);
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
          return tokens.issue(req, user, kind, { sessionId: r.sessionId, refresh: r.token });
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
          return tokens.issue(req, user, used.purpose === "recovery" ? "recovery" : "otp");
        }
        throw idpError(400, "unsupported_grant_type", "grant_type must be password, refresh_token or pkce");
      });

      idp.get("/user", async (req) => {
        requireApiKey(req);
        return userView((await tokens.fromAccess(req)).user);
      });

      // A new password needs the current one, or a session opened by a recovery link minutes ago. It voids
      // every reset link and ends every other session of the account.
      idp.put("/user", limited, async (req, reply) => {
        requireApiKey(req);
        const { user, sessionId } = await tokens.fromAccess(req);
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
        const { user, sessionId } = await tokens.fromAccess(req);
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
