// Passwords for the built-in identity provider. Hashing: scrypt from node:crypto (memory-hard, no native
// add-on to build), stored as `scrypt$N$r$p$salt$hash`, compared in constant time. Strength: zxcvbn-ts with
// its common and English dictionaries refuses common passwords and ones built from the person's own email
// (OWASP ASVS 5.0 6.2), without composition rules.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import type { ZxcvbnFactory } from "@zxcvbn-ts/core";

const N = 16384;
const R = 8;
const P = 1;
const LEN = 32;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, LEN, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

/** False for a wrong password and for a stored hash that is not one (an empty hash: no usable password). */
export async function checkPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) {
    // Same work as a real comparison, so timing does not tell an account without a password.
    await derive(password, randomBytes(16), N, R, P);
    return false;
  }
  const key = await derive(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p));
  const want = Buffer.from(hash, "base64url");
  return key.length === want.length && timingSafeEqual(key, want);
}

/** A hash of a random password, compared against when the email is unknown so timing does not tell. */
export const DUMMY_HASH_PROMISE = hashPassword(randomBytes(12).toString("hex"));

// The dictionaries are about 50 MiB of the process once loaded, so they load with the first password checked
// (a sign-up or a password change), not at start (docs/performance-live-path.md, "Memory at start").
let strength: Promise<ZxcvbnFactory> | null = null;
async function loadStrength(): Promise<ZxcvbnFactory> {
  const [{ ZxcvbnFactory }, common, english] = await Promise.all([
    import("@zxcvbn-ts/core"),
    import("@zxcvbn-ts/language-common"),
    import("@zxcvbn-ts/language-en"),
  ]);
  return new ZxcvbnFactory({
    dictionary: { ...common.dictionary, ...english.dictionary },
    graphs: common.adjacencyGraphs,
    translations: english.translations,
  });
}
/** zxcvbn scores 0-4; 2 means about a million guesses or more ("somewhat guessable" and up). */
const MIN_SCORE = 2;

/**
 * Why a password is too easy to guess, or null. `context` holds words the person is known by (the email,
 * its parts) and the service's own name, which a guesser would try first.
 */
export async function weakPassword(password: string, context: string[]): Promise<string | null> {
  strength ??= loadStrength();
  const r = (await strength).check(password.normalize("NFKC"), [
    ...context,
    "arena",
    "ladder",
    "arena ladder",
  ]);
  if (r.score >= MIN_SCORE) return null;
  return r.feedback.warning || "this password is too easy to guess; use a longer phrase of unrelated words";
}
