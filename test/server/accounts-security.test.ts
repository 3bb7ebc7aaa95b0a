// Security of the account side (SPEC 4.2-4.6, 5, 7.1): every route refuses the wrong kind of credential with
// the SPEC's status and code; forged, expired, wrong-audience, wrong-issuer and OAuth-client tokens are
// refused; banned accounts and foreign origins are refused; no secret reaches the log or a later response;
// secrets are stored hashed; sign-in and registration are rate limited; bad input gets a clear error and
// writes nothing.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { generateKeyPair, importJWK, type JWK, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb } from "../../server/db/open.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let logText = "";
let ada: SignedIn; // a player with a handle
let nova: SignedIn; // no handle yet
let banned: SignedIn;
let root: SignedIn;
let adaKey: string;
let bannedKey: string;
let botToken: string;
const secrets: string[] = [];

beforeAll(async () => {
  const logStream = new PassThrough();
  logStream.on("data", (c: Buffer) => {
    logText += c.toString();
  });
  srv = await startAccountServer(
    { adminEmails: ["root@example.com"], logLevel: "trace", tickMs: 200 },
    { logStream },
  );
  [ada, nova, banned, root] = await Promise.all([
    signUp(srv, "ada@example.com", "ada"),
    signUp(srv, "nova@example.com"),
    signUp(srv, "mallory@example.com", "mallory"),
    signUp(srv, "root@example.com", "root"),
  ]);
  adaKey = (await call(srv.url, "POST", "/api/account/keys", { token: ada.access, body: {} })).body
    .key as string;
  bannedKey = (await call(srv.url, "POST", "/api/account/keys", { token: banned.access, body: {} })).body
    .key as string;
  botToken = (await call(srv.url, "POST", "/api/bots", { token: adaKey, body: { name: "ada-bot" } })).body
    .token as string;
  expect(
    (await call(srv.url, "POST", "/api/admin/accounts/mallory/ban", { token: root.access })).status,
  ).toBe(200);
  secrets.push(
    ada.access,
    ada.refresh,
    nova.access,
    root.access,
    adaKey,
    bannedKey,
    botToken,
    "a long test password",
  );
}, 60_000);

afterAll(async () => {
  await srv?.stop();
});

/** Tokens a careful verifier must refuse, made with the real key (to isolate each check) or a stranger's. */
async function badTokens(sub: string): Promise<Record<string, string>> {
  const stored = JSON.parse(readFileSync(join(srv.dataDir, "identity-keys.json"), "utf8")) as {
    kid: string;
    private_jwk: JWK;
    publishable_key: string;
  };
  const real = await importJWK(stored.private_jwk, "ES256");
  const iss = `${srv.url}/auth/v1`;
  const claims = { role: "authenticated", email: "ada@example.com" };
  const sign = (
    key: Parameters<SignJWT["sign"]>[0],
    o: { aud?: string; iss?: string; exp?: number; extra?: object; alg?: string } = {},
  ) =>
    new SignJWT({ ...claims, ...(o.extra ?? {}) })
      .setProtectedHeader({ alg: o.alg ?? "ES256", kid: stored.kid })
      .setSubject(sub)
      .setIssuer(o.iss ?? iss)
      .setAudience(o.aud ?? "authenticated")
      .setIssuedAt()
      .setExpirationTime(o.exp ?? Math.floor(Date.now() / 1000) + 600)
      .sign(key);
  const stranger = (await generateKeyPair("ES256")).privateKey;
  const header = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
  const body = Buffer.from(
    JSON.stringify({ ...claims, sub, iss, aud: "authenticated", exp: Math.floor(Date.now() / 1000) + 600 }),
  ).toString("base64url");
  return {
    forged: await sign(stranger),
    expired: await sign(real, { exp: Math.floor(Date.now() / 1000) - 60 }),
    wrongAudience: await sign(real, { aud: "someone-else" }),
    wrongIssuer: await sign(real, { iss: "https://evil.example/auth/v1" }),
    oauthClient: await sign(real, { extra: { client_id: "some-oauth-client" } }),
    algNone: `${header}.${body}.`,
    // Algorithm confusion: HS256 keyed with public material must not verify.
    hs256: await sign(new TextEncoder().encode(stored.publishable_key.padEnd(32, "x")), { alg: "HS256" }),
    serviceRole: await sign(real, { extra: { role: "service_role" } }),
  };
}

const SESSION_ROUTES: [string, string, unknown?][] = [
  ["GET", "/api/account"],
  ["PUT", "/api/account/handle", { handle: "someone" }],
  ["PUT", "/api/account/notifications", { email_announcements: false }],
  ["POST", "/api/account/bots", { name: "new-bot" }],
  ["PUT", "/api/account/bots/ada-bot/name", { name: "other-name" }],
  ["POST", "/api/account/bots/ada-bot/token"],
  ["PUT", "/api/account/bots/ada-bot/avatar", { avatar: "ronin" }],
  ["DELETE", "/api/account/bots/ada-bot"],
  ["POST", "/api/account/claim", { token: "bt_x" }],
  ["POST", "/api/account/keys", {}],
  ["DELETE", "/api/account/keys/key_x"],
];
const ADMIN_ROUTES: [string, string, unknown?][] = [
  ["GET", "/api/admin/overview"],
  ["GET", "/api/admin/admins"],
  ["GET", "/api/admin/accounts"],
  ["GET", "/api/admin/usage"],
  ["GET", "/api/admin/audit"],
  ["GET", "/api/admin/owners"],
  ["POST", "/api/admin/owners", { name: "team" }],
  ["POST", "/api/admin/accounts/ada/role", { role: "admin" }],
  ["POST", "/api/admin/accounts/ada/ban"],
  ["POST", "/api/admin/accounts/ada/unban"],
  ["DELETE", "/api/admin/accounts/ada"],
  ["POST", "/api/admin/bots/ada-bot/suspend"],
  ["POST", "/api/admin/bots/ada-bot/activate"],
  ["POST", "/api/admin/bots/ada-bot/ban"],
];
const BOT_ROUTES: [string, string, unknown?][] = [
  ["GET", "/api/me"],
  ["POST", "/api/me/versions", { label: "v9" }],
  ["POST", "/api/me/versions/v1/retire"],
  ["POST", "/api/me/token"],
];

async function expectRefused(
  routes: [string, string, unknown?][],
  token: string | null,
  status: number,
  code: string,
  headers: Record<string, string> = {},
) {
  for (const [method, path, body] of routes) {
    const r = await call(srv.url, method, path, { token, headers, ...(body !== undefined ? { body } : {}) });
    expect({ route: `${method} ${path}`, status: r.status, code: r.body.code }).toEqual({
      route: `${method} ${path}`,
      status,
      code,
    });
    expect(typeof r.body.error).toBe("string");
  }
}

describe("the wrong credential kind is refused with the SPEC's status and code", () => {
  it("session routes: nothing, a bot token, an agent key, bad JWTs, a banned account, a foreign origin", async () => {
    await expectRefused(SESSION_ROUTES, null, 401, "missing_authorization");
    await expectRefused(SESSION_ROUTES, botToken, 401, "invalid_session");
    await expectRefused(SESSION_ROUTES, adaKey, 401, "invalid_session");
    for (const [, token] of Object.entries(await badTokens(ada.id)))
      await expectRefused(SESSION_ROUTES.slice(0, 2), token, 401, "invalid_session");
    await expectRefused(SESSION_ROUTES, banned.access, 403, "account_banned");
    await expectRefused(SESSION_ROUTES.slice(0, 3), ada.access, 403, "foreign_origin", {
      origin: "https://evil.example",
    });
    // The same request from this site's own pages is fine.
    const own = await call(srv.url, "GET", "/api/account", {
      token: ada.access,
      headers: { origin: srv.url },
    });
    expect(own.status).toBe(200);
    expect(own.headers.get("cache-control")).toBe("private, no-store");
    expect(own.headers.get("vary")).toMatch(/authorization/i);
  });

  it("admin routes: nothing or a non-account credential is admin_required; a player is not_admin", async () => {
    await expectRefused(ADMIN_ROUTES, null, 401, "admin_required");
    await expectRefused(ADMIN_ROUTES, botToken, 401, "admin_required");
    await expectRefused(ADMIN_ROUTES, (await badTokens(root.id)).forged!, 401, "admin_required");
    await expectRefused(ADMIN_ROUTES, (await badTokens(root.id)).expired!, 401, "admin_required");
    await expectRefused(ADMIN_ROUTES, ada.access, 403, "not_admin");
    await expectRefused(ADMIN_ROUTES, adaKey, 403, "not_admin");
    await expectRefused(ADMIN_ROUTES.slice(0, 1), bannedKey, 403, "account_banned");
  });

  it("registration and deletion: account credentials only, with a handle, unbanned", async () => {
    const none = await call(srv.url, "POST", "/api/bots", { body: { name: "anon-bot", owner: "x" } });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ code: "authentication_required", account_url: `${srv.url}/account` });
    await expectRefused([["POST", "/api/bots", { name: "tok-bot" }]], botToken, 401, "invalid_credential");
    await expectRefused(
      [["POST", "/api/bots", { name: "tok-bot" }]],
      (await badTokens(ada.id)).expired!,
      401,
      "invalid_session",
    );
    await expectRefused([["POST", "/api/bots", { name: "tok-bot" }]], bannedKey, 403, "account_banned");
    await expectRefused([["POST", "/api/bots", { name: "tok-bot" }]], nova.access, 409, "handle_required");
    const viaHeader = await call(srv.url, "POST", "/api/bots", {
      headers: { "x-owner-key": "ok_not-a-real-key" },
      body: { name: "tok-bot" },
    });
    expect(viaHeader.body.code).toBe("invalid_owner_key");

    await expectRefused([["DELETE", "/api/bots/ada-bot"]], null, 401, "missing_authorization");
    await expectRefused([["DELETE", "/api/bots/ada-bot"]], ada.access, 401, "invalid_credential");
    await expectRefused([["DELETE", "/api/bots/ada-bot"]], botToken, 401, "invalid_credential");
    await expectRefused([["DELETE", "/api/bots/ada-bot"]], "ak_unknown", 401, "invalid_token");
  });

  it("bot-token routes refuse account credentials", async () => {
    await expectRefused(BOT_ROUTES, null, 401, "missing_authorization");
    await expectRefused(BOT_ROUTES, adaKey, 401, "invalid_token");
    await expectRefused(BOT_ROUTES, ada.access, 401, "invalid_token");
  });

  it("the bot socket refuses account credentials", async () => {
    for (const token of [adaKey, ada.access]) {
      const bot = new BotClient(srv.wsUrl, token);
      expect((await bot.next("error", undefined, 5_000, 0)).code).toBe("invalid_token");
      await bot.closed();
    }
  });
});

describe("bad input", () => {
  it("every field is validated with a clear {error, code}", async () => {
    const bad: [string, string, unknown, string][] = [
      ["PUT", "/api/account/handle", {}, "invalid_handle"],
      ["PUT", "/api/account/handle", { handle: "-dash-first" }, "invalid_handle"],
      ["PUT", "/api/account/handle", { handle: "a" }, "invalid_handle"],
      ["PUT", "/api/account/handle", { handle: "x".repeat(40) }, "invalid_handle"],
      ["PUT", "/api/account/handle", { handle: "has space" }, "invalid_handle"],
      ["PUT", "/api/account/handle", { handle: 7 }, "invalid_handle"],
      ["PUT", "/api/account/notifications", { email_announcements: "yes" }, "bad_request"],
      ["PUT", "/api/account/notifications", { email_preferences: { weekly_digest: 1 } }, "bad_request"],
      ["PUT", "/api/account/notifications", { email_preferences: { unknown_kind: true } }, "bad_request"],
      ["PUT", "/api/account/notifications", { surprise: true }, "bad_request"],
      ["POST", "/api/account/bots", {}, "invalid_bot"],
      ["POST", "/api/account/bots", { name: "no spaces" }, "invalid_bot"],
      ["POST", "/api/account/bots", { name: "x".repeat(25) }, "invalid_bot"],
      ["POST", "/api/account/bots", { name: "ada-bot" }, "invalid_bot"],
      ["POST", "/api/account/bots", { name: "KITER" }, "invalid_bot"],
      ["PUT", "/api/account/bots/ada-bot/name", { name: "!" }, "invalid_bot"],
      ["PUT", "/api/account/bots/ada-bot/avatar", { avatar: 3 }, "bad_request"],
      ["PUT", "/api/account/bots/ada-bot/avatar", {}, "bad_request"],
      ["PUT", "/api/account/bots/ada-bot/avatar", { avatar: "GLADIATOR" }, "unknown_avatar"],
      ["POST", "/api/account/claim", {}, "bad_request"],
      ["POST", "/api/account/claim", { token: "bt_unknown" }, "invalid_token"],
      ["POST", "/api/account/keys", { label: "x".repeat(65) }, "bad_request"],
      ["POST", "/api/account/keys", { label: 5 }, "bad_request"],
      ["PUT", "/api/account/handle", "{not json", "bad_request"],
      ["PUT", "/api/account/handle", "[]", "invalid_handle"],
    ];
    for (const [method, path, body, code] of bad) {
      const r = await call(srv.url, method, path, { token: ada.access, body });
      expect({ route: `${method} ${path} ${JSON.stringify(body)}`, code: r.body.code }).toEqual({
        route: `${method} ${path} ${JSON.stringify(body)}`,
        code,
      });
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
      expect(typeof r.body.error).toBe("string");
    }
    const adminBad: [string, string, unknown][] = [
      ["POST", "/api/admin/accounts/ada/role", { role: "king" }],
      ["POST", "/api/admin/owners", { name: "" }],
      ["POST", "/api/admin/owners", { name: "ok", max_bots: 0 }],
      ["POST", "/api/admin/owners", { name: "ok-name", max_bots: "3" }],
      ["GET", "/api/admin/audit?limit=abc", undefined],
      ["GET", "/api/admin/accounts?limit=100000", undefined],
    ];
    for (const [method, path, body] of adminBad) {
      const r = await call(srv.url, method, path, {
        token: root.access,
        ...(body !== undefined ? { body } : {}),
      });
      expect({ route: `${method} ${path}`, status: r.status }).toEqual({
        route: `${method} ${path}`,
        status: 400,
      });
      expect(typeof r.body.error).toBe("string");
    }
    // The identity provider answers bad input in its own (GoTrue) shape, with the service's fields too.
    const index = (await srv.get<{ accounts: { identity_url: string; publishable_key: string } }>("/api"))
      .body;
    const idp = (path: string, body: unknown, apikey = index.accounts.publishable_key) =>
      call(index.accounts.identity_url, "POST", path, { body, headers: { apikey } });
    expect((await idp("/signup", { email: "not-an-email", password: "long enough pw" })).body).toMatchObject({
      code: "validation_failed",
      error_code: "validation_failed",
    });
    expect((await idp("/signup", { email: "short@example.com", password: "short" })).body.code).toBe(
      "weak_password",
    );
    expect(
      (await idp("/signup", { email: "x@example.com", password: "long enough pw" }, "wrong")).status,
    ).toBe(401);
    expect((await idp("/token?grant_type=magic", {})).body.code).toBe("unsupported_grant_type");
    expect((await idp("/token?grant_type=refresh_token", { refresh_token: "nope" })).body.code).toBe(
      "refresh_token_not_found",
    );
  });

  it("nothing is half-written when a request fails", async () => {
    const before = (await call(srv.url, "GET", "/api/account", { token: ada.access })).body;
    // A taken handle changes neither the handle nor the bots' owner.
    expect(
      (await call(srv.url, "PUT", "/api/account/handle", { token: ada.access, body: { handle: "ROOT" } }))
        .body.code,
    ).toBe("handle_taken");
    const me = await call(srv.url, "GET", "/api/me", { token: botToken });
    expect(me.body.owner).toBe("ada");
    // A refused registration leaves no bot behind.
    await call(srv.url, "POST", "/api/account/bots", { token: ada.access, body: { name: "Ada-Bot" } });
    const after = (await call(srv.url, "GET", "/api/account", { token: ada.access })).body;
    expect(after.bots).toEqual(before.bots);
    expect(after.handle).toBe("ada");
    // A handle change renames the owner on every bot of the account, in one step.
    expect(
      (await call(srv.url, "PUT", "/api/account/handle", { token: ada.access, body: { handle: "Ada.L" } }))
        .status,
    ).toBe(200);
    expect((await call(srv.url, "GET", "/api/me", { token: botToken })).body.owner).toBe("Ada.L");
  });
});

describe("rate limits", () => {
  it("sign-up, sign-in and recovery count against one budget per client address (--auth-rate-limit)", async () => {
    const limited = await startAccountServer({ authRateLimit: 4 });
    try {
      const index = (
        await limited.get<{ accounts: { identity_url: string; publishable_key: string } }>("/api")
      ).body;
      const idp = (path: string, body: unknown) =>
        call(index.accounts.identity_url, "POST", path, {
          headers: { apikey: index.accounts.publishable_key },
          body,
        });
      const statuses = [
        (await idp("/signup", { email: "one@example.com", password: "a long test password" })).status,
        (await idp("/signup", { email: "two@example.com", password: "a long test password" })).status,
        (await idp("/token?grant_type=password", { email: "one@example.com", password: "wrong guess" }))
          .status,
        (await idp("/token?grant_type=password", { email: "two@example.com", password: "wrong guess" }))
          .status,
      ];
      expect(statuses).toEqual([200, 200, 400, 400]);
      // Four requests on four routes used the budget up: the fifth, on a route of its own, is refused.
      const fifth = await idp("/recover", { email: "one@example.com" });
      expect(fifth.status).toBe(429);
      expect(fifth.body.code).toBe("rate_limited");
    } finally {
      await limited.stop();
    }
  }, 30_000);

  it("sign-in attempts per address and registrations per account are limited, and throttling is audited", async () => {
    const limited = await startAccountServer({
      authRateLimit: 3,
      registrationRateLimit: 2,
      adminEmails: ["boss@example.com"],
    });
    try {
      const boss = await signUp(limited, "boss@example.com", "boss");
      const index = (
        await limited.get<{ accounts: { identity_url: string; publishable_key: string } }>("/api")
      ).body;
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await call(index.accounts.identity_url, "POST", "/token?grant_type=password", {
          headers: { apikey: index.accounts.publishable_key },
          body: { email: "boss@example.com", password: `guess ${i}` },
        });
        statuses.push(r.status);
        if (r.status === 429) expect(r.body.code).toBe("rate_limited");
      }
      expect(statuses).toContain(429);
      const regs: number[] = [];
      for (const name of ["r-one", "r-two", "r-three"]) {
        regs.push(
          (await call(limited.url, "POST", "/api/account/bots", { token: boss.access, body: { name } }))
            .status,
        );
      }
      expect(regs).toEqual([201, 201, 429]);
      const audit = await call(limited.url, "GET", "/api/admin/audit?kind=throttle", { token: boss.access });
      expect((audit.body as unknown as { subject: string }[]).length).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  }, 30_000);
});

describe("secrets", () => {
  it("never appear in later responses or in the log, and are stored hashed", async () => {
    const account = JSON.stringify((await call(srv.url, "GET", "/api/account", { token: ada.access })).body);
    const me = JSON.stringify((await call(srv.url, "GET", "/api/me", { token: botToken })).body);
    const admin = JSON.stringify(
      (await call(srv.url, "GET", "/api/admin/accounts", { token: root.access })).body,
    );
    const audit = JSON.stringify(
      (await call(srv.url, "GET", "/api/admin/audit?limit=1000", { token: root.access })).body,
    );
    for (const s of secrets) {
      for (const text of [account, me, admin, audit]) expect(text.includes(s)).toBe(false);
      expect(logText.includes(s), "a secret reached the log").toBe(false);
    }
    expect(logText.length).toBeGreaterThan(1000); // the log was really captured
    expect(logText).toContain("/auth/v1/verify?token=[redacted]");

    const { dataDir, databaseUrl } = srv;
    // Close the server but keep its database (stop() would drop it), then read every table directly.
    await srv.app.close();
    const db = await openDb({ dataDir, ...(databaseUrl ? { databaseUrl } : {}) });
    try {
      const dump: string[] = [];
      for (const table of [
        "identity_users",
        "identity_refresh_tokens",
        "identity_one_time",
        "accounts",
        "agent_keys",
        "owner_keys",
        "bots",
        "audit",
      ]) {
        dump.push(JSON.stringify(await db.query(`SELECT * FROM ${table}`)));
      }
      const text = dump.join("\n");
      for (const s of secrets) expect(text.includes(s)).toBe(false);
      const sha = (v: string) => createHash("sha256").update(v).digest("hex");
      expect(text).toContain(sha(adaKey));
      expect(text).toContain(sha(botToken));
      expect(text).toContain(sha(ada.refresh));
      expect(text).toMatch(/scrypt\$16384\$8\$1\$/);
      // Only configured admins' emails are kept on accounts.
      const emails = (await db.query<{ email: string | null }>("SELECT email FROM accounts")).map(
        (r) => r.email,
      );
      expect(emails.filter(Boolean)).toEqual(["root@example.com"]);
    } finally {
      await db.close();
      await srv.stop();
    }
  });
});
