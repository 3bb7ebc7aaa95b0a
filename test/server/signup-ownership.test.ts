// Issue 31, item 1: a later sign-up cannot take an address, a configured admin's included. The owner signs up
// from a browser (PKCE); a stranger then signs up the same address with a password of their own, without PKCE
// and with PKCE; the owner's link still works, the newest email never confirms the stranger's password, and a
// resend after the stranger's sign-up mails only links that carry the owner's own credentials.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, mailText, outboxMail, startAccountServer } from "../helpers/accounts.ts";
import type { TestServer } from "../helpers/server.ts";

let srv: TestServer;
let apikey: string;

beforeAll(async () => {
  srv = await startAccountServer({
    adminEmails: ["chief@example.com", "second@example.com", "third@example.com"],
    authRateLimit: 10_000,
  });
  apikey = (await srv.get<{ accounts: { publishable_key: string } }>("/api")).body.accounts.publishable_key;
}, 60_000);

afterAll(async () => {
  await srv?.stop();
});

const idp = (method: string, path: string, body?: unknown) =>
  call(`${srv.url}/auth/v1`, method, path, { ...(body !== undefined ? { body } : {}), headers: { apikey } });

/** A browser's PKCE pair: the verifier stays with its browser, the challenge goes with the sign-up. */
function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** A sign-up from a browser: its PKCE challenge goes with it. */
const browserSignUp = (email: string, password: string, browser: { challenge: string }) =>
  idp("POST", "/signup", {
    email,
    password,
    code_challenge: browser.challenge,
    code_challenge_method: "s256",
  });

const signIn = (email: string, password: string) =>
  idp("POST", "/token?grant_type=password", { email, password });

/** Every email to `to` written at or after `after`, oldest first (the no-SMTP outbox folder). */
async function mailsTo(to: string, after: number, atLeast: number): Promise<string[]> {
  const { readdir, readFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  await outboxMail(srv.dataDir, to, after); // waits for the first
  const dir = join(srv.dataDir, "outbox");
  for (let i = 0; i < 100; i++) {
    const found: string[] = [];
    for (const f of (await readdir(dir)).sort()) {
      if (Number(f.split("-")[0]) < after) continue;
      const raw = await readFile(join(dir, f), "utf8");
      if (raw.toLowerCase().includes(`to: ${to.toLowerCase()}`)) found.push(raw);
    }
    if (found.length >= atLeast) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`fewer than ${atLeast} emails to ${to}`);
}

const linkOf = (raw: string): string | null => {
  const text = mailText(raw);
  return /(https?:\/\/[^\s"<>]+\/auth\/v1\/verify\?[^\s"<>]+)/.exec(text)?.[1] ?? null;
};

/** Opens an emailed link as a mail client would: where it sends the browser. */
async function open(link: string) {
  const u = new URL(link);
  const res = await fetch(`${srv.url}${u.pathname}${u.search}`, { redirect: "manual" });
  const location = new URL(res.headers.get("location")!);
  const frag = new URLSearchParams(location.hash.slice(1));
  return {
    code: location.searchParams.get("code"),
    error: frag.get("error_code"),
    access: frag.get("access_token"),
  };
}

/** The owner's browser finishing a link: the code it was sent, exchanged with this browser's verifier. */
const exchange = (code: string, verifier: string) =>
  idp("POST", "/token?grant_type=pkce", { auth_code: code, code_verifier: verifier });

/** The owner's sign-in works and reaches the admin console; the stranger's password does neither. */
async function ownerHoldsAdmin(email: string, ownerPassword: string, strangerPassword: string) {
  const stranger = await signIn(email, strangerPassword);
  expect(stranger.body.code).toBe("invalid_credentials");
  const owner = await signIn(email, ownerPassword);
  expect(owner.status).toBe(200);
  const token = owner.body.access_token as string;
  expect((await call(srv.url, "GET", "/api/admin/overview", { token })).status).toBe(200);
}

describe("1. a later sign-up never replaces or carries a pending one's credentials", () => {
  it("a stranger's sign-up without PKCE is not recorded: the owner's link works, the newest email has no link", async () => {
    const email = "chief@example.com";
    const owner = pkce();
    const t0 = Date.now() - 1;
    expect((await browserSignUp(email, "owner's own long passphrase", owner)).status).toBe(200);
    const [ownerMail] = await mailsTo(email, t0, 1);
    const t1 = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    const later = await idp("POST", "/signup", { email, password: "stranger's chosen passphrase" });
    expect(later.status).toBe(200); // the same answer: nothing tells the stranger what happened

    // The newest email is a notice without any link; the stranger's password was never stored.
    const [newest] = await mailsTo(email, t1, 1);
    expect(newest).toContain("not recorded");
    expect(linkOf(newest!)).toBeNull();
    expect((await signIn(email, "stranger's chosen passphrase")).body.code).toBe("invalid_credentials");

    // The owner's link still works (no otp_expired) and confirms the owner's own password.
    const opened = await open(linkOf(ownerMail!)!);
    expect(opened.error).toBeNull();
    expect((await exchange(opened.code!, owner.verifier)).status).toBe(200);
    await ownerHoldsAdmin(email, "owner's own long passphrase", "stranger's chosen passphrase");
  });

  it("a stranger's PKCE sign-up is bound to the stranger's browser: the owner opening its email confirms nothing", async () => {
    const email = "second@example.com";
    const owner = pkce();
    const stranger = pkce();
    const t0 = Date.now() - 1;
    await browserSignUp(email, "owner's own long passphrase", owner);
    const [ownerMail] = await mailsTo(email, t0, 1);
    const t1 = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    await browserSignUp(email, "stranger's chosen passphrase", stranger);
    const [strangerMail] = await mailsTo(email, t1, 1);
    const strangerLink = linkOf(strangerMail!)!;
    expect(strangerLink).toMatch(/\/auth\/v1\/verify\?token=[\w-]+&type=signup/);

    // The owner opens the newest email in the owner's browser: the code it gets needs the stranger's
    // verifier, which the owner's browser does not have; nothing is confirmed.
    const wrong = await open(strangerLink);
    expect((await exchange(wrong.code!, owner.verifier)).body.code).toBe("bad_code_verifier");
    expect((await signIn(email, "stranger's chosen passphrase")).body.code).toBe("email_not_confirmed");
    // A link of a PKCE sign-up cannot be redeemed without the browser either (POST /verify).
    const url = new URL(strangerLink);
    const posted = await idp("POST", "/verify", {
      type: "signup",
      token_hash: url.searchParams.get("token"),
    });
    expect([posted.status, posted.body.code]).toEqual([403, "pkce_required"]);

    // The owner's own link still works, and confirming it voids the stranger's sign-up for good.
    const opened = await open(linkOf(ownerMail!)!);
    expect((await exchange(opened.code!, owner.verifier)).status).toBe(200);
    expect((await open(strangerLink)).error).toBe("otp_expired");
    await ownerHoldsAdmin(email, "owner's own long passphrase", "stranger's chosen passphrase");
  });

  it("a resend after the stranger's sign-up mails only links carrying the owner's credentials", async () => {
    const email = "third@example.com";
    const owner = pkce();
    const t0 = Date.now() - 1;
    await browserSignUp(email, "owner's own long passphrase", owner);
    const [ownerMail] = await mailsTo(email, t0, 1);
    await idp("POST", "/signup", { email, password: "stranger's chosen passphrase" });
    const t1 = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    expect((await idp("POST", "/resend", { type: "signup", email })).status).toBe(200);
    // Mail leaves through the outbox in its own time: wait for the resent link, then for anything after it.
    const links = async () =>
      (await mailsTo(email, t0, 1)).map(linkOf).filter((l): l is string => l !== null);
    for (let i = 0; i < 100 && (await links()).length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    const all = await links();
    expect(all).toHaveLength(2); // the first link and one resent: one pending sign-up, the owner's
    const resent = all.slice(1);
    expect(t1).toBeGreaterThan(t0);
    // The resent link replaced the first one: the old one is void, the new one works in the owner's browser.
    expect((await open(linkOf(ownerMail!)!)).error).toBe("otp_expired");
    const opened = await open(resent[0]!);
    expect(opened.access).toBeNull(); // no session without the verifier
    expect((await exchange(opened.code!, owner.verifier)).status).toBe(200);
    await ownerHoldsAdmin(email, "owner's own long passphrase", "stranger's chosen passphrase");
  });

  it("the same person signing up again (same password) gets a fresh link in place of the old one", async () => {
    const email = "repeat@example.com";
    const t0 = Date.now() - 1;
    await idp("POST", "/signup", { email, password: "repeated long passphrase" });
    const [first] = await mailsTo(email, t0, 1);
    const t1 = Date.now();
    await new Promise((r) => setTimeout(r, 5));
    await idp("POST", "/signup", { email, password: "repeated long passphrase" });
    const [second] = await mailsTo(email, t1, 1);
    expect(linkOf(second!)).toMatch(/\/auth\/v1\/verify\?token=[\w-]+&type=signup/);
    expect((await open(linkOf(first!)!)).error).toBe("otp_expired");
    expect((await open(linkOf(second!)!)).access).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect((await signIn(email, "repeated long passphrase")).status).toBe(200);
  });
});
