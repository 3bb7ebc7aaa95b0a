// The built-in identity provider's inputs and answers in GoTrue's shape (server/accounts/identity-provider.ts): its
// error constructor (`msg` and `error_code` beside the service's `{error, code}`), the request schemas with
// GoTrue's validation rules, the password strength check, and the user views it answers with.
import { createHash, randomUUID } from "node:crypto";
import { z } from "zod";
import { ApiError } from "../errors.ts";
import type { IdentityUser } from "./identity-store.ts";
import { weakPassword } from "./passwords.ts";

export const idpError = (status: number, code: string, msg: string, extra: Record<string, unknown> = {}) =>
  new ApiError(status, code, msg, { msg, error_code: code, ...extra });

export const Email = z
  .string({ error: "email is required" })
  .trim()
  .max(254, "email is too long")
  .pipe(z.email({ error: "email is not a valid address" }));
export const Password = z
  .string({ error: "password is required" })
  .min(8, "password must be at least 8 characters")
  .max(200, "password must be at most 200 characters");
// PKCE with S256 only (SPEC 5 rule 7): `plain` would hand the verifier to whoever reads the link's request.
export const Challenge = {
  code_challenge: z.string().min(43).max(128).nullish(),
  code_challenge_method: z.enum(["s256", "S256"], { error: "code_challenge_method must be s256" }).nullish(),
};
export const Signup = z.object({
  email: Email,
  password: Password,
  data: z.record(z.string(), z.unknown()).optional(),
  ...Challenge,
});
export const Credentials = z.object({
  email: Email,
  password: z.string({ error: "password is required" }).max(200),
});
export const Refresh = z.object({
  refresh_token: z.string({ error: "refresh_token is required" }).min(1).max(200),
});
export const Pkce = z.object({
  auth_code: z.string({ error: "auth_code is required" }).min(1).max(200),
  code_verifier: z.string({ error: "code_verifier is required" }).min(43).max(128),
});
export const Resend = z.object({ type: z.enum(["signup"], { error: "type must be signup" }), email: Email });
export const Recover = z.object({ email: Email, ...Challenge });
export const VerifyBody = z.object({
  type: z.enum(["signup", "email", "recovery", "magiclink"], {
    error: "type must be signup, email or recovery",
  }),
  token_hash: z.string({ error: "token_hash is required" }).min(1).max(200),
});
export const UpdateUser = z.object({
  password: Password.optional(),
  current_password: z.string().max(200).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});

/**
 * GoTrue's validation: unknown fields are ignored, as GoTrue does (its clients send extras such as
 * gotrue_meta_security); an absent body is `{}`, a JSON `null` is not.
 */
export function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
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
export async function requireStrong(password: string, email: string): Promise<void> {
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

export function s256(verifier: string): string {
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
export function signupView(email: string, data: Record<string, unknown>) {
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
