// The whole account journey on the real server, with the official @supabase/auth-js client doing every
// identity call (proof that the built-in provider has the GoTrue shape) and a real SMTP server on loopback
// receiving the confirmation email: sign up, confirm through the emailed PKCE link, sign in, refresh, set a
// handle, create an agent key, register a bot with it, connect the bot and play a match to the end.
import { AuthClient } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Inbox, linkIn, startAccountServer, startInbox } from "../helpers/accounts.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

let srv: TestServer;
let inbox: Inbox;

beforeAll(async () => {
  inbox = await startInbox();
  srv = await startAccountServer({
    smtpUrl: `smtp://127.0.0.1:${inbox.port}`,
    tickMs: 200,
    startupMs: 1000,
  });
}, 60_000);

afterAll(async () => {
  await srv?.stop();
  await inbox?.close();
});

/** auth-js keeps the PKCE verifier in storage; in Node we hand it a Map, as a browser tab's localStorage. */
function memoryStorage() {
  const m = new Map<string, string>();
  return {
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => void m.set(k, v),
    removeItem: (k: string) => void m.delete(k),
  };
}

describe("account journey with @supabase/auth-js against the built-in identity provider", () => {
  it("signs up, confirms by email, signs in, refreshes, sets a handle, makes a key, registers and plays", async () => {
    const index = (await srv.get<{ accounts: { identity_url: string; publishable_key: string } }>("/api"))
      .body;
    expect(index.accounts.identity_url).toBe(`${srv.url}/auth/v1`);
    const auth = new AuthClient({
      url: index.accounts.identity_url,
      headers: { apikey: index.accounts.publishable_key },
      storage: memoryStorage(),
      persistSession: true,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      flowType: "pkce",
    });
    const email = "ada@example.com";
    const password = "correct horse battery staple";

    // Sign up: no session until the email is confirmed.
    const signup = await auth.signUp({ email, password, options: { emailRedirectTo: `${srv.url}/account` } });
    expect(signup.error).toBeNull();
    expect(signup.data.user?.email).toBe(email);
    expect(signup.data.session).toBeNull();

    const early = await auth.signInWithPassword({ email, password });
    expect(early.error?.code).toBe("email_not_confirmed");

    // The confirmation arrives over SMTP; its link redirects to the account page with a PKCE code that only
    // this client (holding the verifier) can exchange.
    const link = linkIn(await inbox.next(email));
    expect(link.startsWith(`${srv.url}/auth/v1/verify?`)).toBe(true);
    const confirmed = await fetch(link, { redirect: "manual" });
    expect(confirmed.status).toBe(303);
    const back = new URL(confirmed.headers.get("location")!);
    expect(`${back.origin}${back.pathname}`).toBe(`${srv.url}/account`);
    const code = back.searchParams.get("code")!;
    expect(code).toMatch(/^[\w-]{20,}$/);
    const exchanged = await auth.exchangeCodeForSession(code);
    expect(exchanged.error).toBeNull();
    expect(exchanged.data.session?.access_token).toMatch(JWT);
    // The link is single use.
    const again = await fetch(link, { redirect: "manual" });
    expect(again.headers.get("location")).toContain("error_code=otp_expired");

    // Sign in with the password, then refresh: both tokens are replaced, and the old refresh token is dead.
    const signin = await auth.signInWithPassword({ email, password });
    expect(signin.error).toBeNull();
    const first = signin.data.session!;
    const refreshed = await auth.refreshSession();
    expect(refreshed.error).toBeNull();
    const session = refreshed.data.session!;
    expect(session.refresh_token).not.toBe(first.refresh_token);
    expect(session.access_token).toMatch(JWT);
    const { data: who } = await auth.getUser(session.access_token);
    expect(who.user?.email_confirmed_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    const api = async (method: string, path: string, body?: unknown, token = session.access_token) => {
      const res = await fetch(`${srv.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return {
        status: res.status,
        body: (await res.json()) as Record<string, unknown>,
        headers: res.headers,
      };
    };

    // The account exists on first use, without a handle yet.
    const account = await api("GET", "/api/account");
    expect(account.status).toBe(200);
    expect(account.body).toMatchObject({ handle: null, bot_count: 0, email_announcements: true });
    expect(account.headers.get("cache-control")).toBe("private, no-store");
    expect((await api("POST", "/api/account/keys", {})).body).toMatchObject({ code: "handle_required" });

    expect((await api("PUT", "/api/account/handle", { handle: "Ada" })).body).toMatchObject({
      handle: "Ada",
    });

    const key = await api("POST", "/api/account/keys", { label: "my agent" });
    expect(key.status).toBe(201);
    expect(key.body.key).toMatch(/^ak_/);
    expect((await api("GET", "/api/account")).body.agent_keys).toEqual([
      expect.objectContaining({ id: key.body.id, label: "my agent" }),
    ]);
    expect(JSON.stringify((await api("GET", "/api/account")).body)).not.toContain(key.body.key as string);

    // Register with the agent key; the owner is the account's handle whatever the body says.
    const reg = await api(
      "POST",
      "/api/bots",
      { name: "ada-bot", owner: "someone-else" },
      key.body.key as string,
    );
    expect(reg.status).toBe(201);
    expect(reg.body).toMatchObject({ name: "ada-bot", bot_endpoint: expect.stringMatching(/\/bot$/) });
    const me = await fetch(`${srv.url}/api/me`, { headers: { authorization: `Bearer ${reg.body.token}` } });
    expect(await me.json()).toMatchObject({ name: "ada-bot", owner: "Ada" });

    // Connect and play a full match against a house bot.
    const bot = new BotClient(srv.wsUrl, reg.body.token as string);
    await bot.open();
    const hello = await bot.queueForMatch("v1");
    bot.send({ type: "ready" });
    const end = await bot.playUntilEnd();
    expect(end.match_id).toBe(hello.match_id);
    bot.close();

    const matches = await srv.get<{ bots: { name: string }[] }[]>("/api/matches?bot=ada-bot");
    expect(matches.body[0]!.bots.map((b) => b.name)).toContain("ada-bot");
    const mine = await api("GET", "/api/account");
    expect(mine.body.bots).toEqual([
      expect.objectContaining({ name: "ada-bot", played: true, status: "active" }),
    ]);
  }, 120_000);

  it("recovers a forgotten password through an emailed link and a new password", async () => {
    const auth = new AuthClient({
      url: `${srv.url}/auth/v1`,
      headers: {
        apikey: (await srv.get<{ accounts: { publishable_key: string } }>("/api")).body.accounts
          .publishable_key,
      },
      storage: memoryStorage(),
      persistSession: true,
      autoRefreshToken: false,
      detectSessionInUrl: false,
      flowType: "pkce",
    });
    const email = "grace@example.com";
    await auth.signUp({ email, password: "first password 1" });
    // A PKCE sign-up is confirmed by the code exchange in the browser that made it, not by opening the link.
    const confirm = await fetch(linkIn(await inbox.next(email)), { redirect: "manual" });
    const signupCode = new URL(confirm.headers.get("location")!).searchParams.get("code")!;
    expect((await auth.exchangeCodeForSession(signupCode)).error).toBeNull();
    // A repeated sign-up of a confirmed address answers the same way and sends nothing.
    const repeat = await auth.signUp({ email, password: "another password" });
    expect(repeat.error).toBeNull();

    expect((await auth.resetPasswordForEmail(email, { redirectTo: `${srv.url}/account` })).error).toBeNull();
    const link = linkIn(await inbox.next(email));
    expect(link).toContain("type=recovery");
    const res = await fetch(link, { redirect: "manual" });
    const code = new URL(res.headers.get("location")!).searchParams.get("code")!;
    expect((await auth.exchangeCodeForSession(code)).error).toBeNull();
    expect((await auth.updateUser({ password: "second password 2" })).error).toBeNull();
    expect((await auth.signInWithPassword({ email, password: "first password 1" })).error?.code).toBe(
      "invalid_credentials",
    );
    expect((await auth.signInWithPassword({ email, password: "second password 2" })).error).toBeNull();
  }, 60_000);
});
