// The account and admin routes on the real server (SPEC 3.4-3.6, 4.2, 4.4, 4.6): bot lifecycle through an
// account (register, rename, token, avatar, delete or retire, claim), the socket refusals that follow, the
// bot limit, agent keys, and the admin console's moderation, roles, owners, usage and audit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type SignedIn, signIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let ada: SignedIn;
let root: SignedIn;

beforeAll(async () => {
  srv = await startAccountServer({
    adminEmails: ["root@example.com"],
    maxBots: 3,
    tickMs: 200,
    startupMs: 5000,
  });
  [ada, root] = await Promise.all([
    signUp(srv, "ada@example.com", "ada"),
    signUp(srv, "root@example.com", "root"),
  ]);
}, 60_000);

afterAll(async () => {
  await srv?.stop();
});

const as = (who: SignedIn | string | null) => (typeof who === "string" || who === null ? who : who.access);
const api = (who: SignedIn | string | null, method: string, path: string, body?: unknown) =>
  call(srv.url, method, path, { token: as(who), ...(body !== undefined ? { body } : {}) });

/**
 * A bot socket the server has authenticated: its token is checked after the upgrade, so a moderation action sent
 * the moment the socket opens could otherwise reach the token check first and be answered `invalid_token`.
 */
async function connect(token: string): Promise<BotClient> {
  const bot = new BotClient(srv.wsUrl, token);
  await bot.open();
  const id = (await srv.app.ctx.botStore.botByToken(token))?.id;
  for (let i = 0; id && i < 500 && !srv.app.ctx.lobby.get(id)?.conn; i++)
    await new Promise((r) => setTimeout(r, 10));
  return bot;
}

/** The connection error a socket gets, and its close. */
async function refusedWith(token: string): Promise<string> {
  const bot = new BotClient(srv.wsUrl, token);
  const err = await bot.next("error", undefined, 5_000);
  await bot.closed();
  return err.code as string;
}

async function playOne(token: string, version = "v1"): Promise<void> {
  const bot = await connect(token);
  await bot.queueForMatch(version);
  bot.send({ type: "ready" });
  await bot.playUntilEnd();
  bot.close();
  await bot.closed();
}

describe("an account's bots", () => {
  it("registers, renames (case-only too; the old name is freed), rotates the token and sets the avatar", async () => {
    const made = await api(ada, "POST", "/api/account/bots", { name: "lovelace" });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: "lovelace",
      token: expect.stringMatching(/^bt_/),
      note: expect.any(String),
    });
    const token = made.body.token as string;

    expect((await api(ada, "PUT", "/api/account/bots/lovelace/name", { name: "Lovelace" })).body).toEqual({
      name: "Lovelace",
    });
    expect((await api(ada, "PUT", "/api/account/bots/lovelace/name", { name: "engine" })).body).toEqual({
      name: "engine",
    });
    // Taken names, any case, including house bots; a bad format.
    expect((await api(ada, "PUT", "/api/account/bots/engine/name", { name: "Champion" })).body.code).toBe(
      "invalid_bot",
    );
    expect((await api(ada, "PUT", "/api/account/bots/engine/name", { name: "a" })).body.code).toBe(
      "invalid_bot",
    );
    // The old name is free again.
    const reuse = await api(ada, "POST", "/api/account/bots", { name: "lovelace" });
    expect(reuse.status).toBe(201);
    expect((await api(ada, "DELETE", "/api/account/bots/lovelace")).body).toEqual({
      name: "lovelace",
      outcome: "deleted",
    });

    // The token is kept by a rename; rotation replaces it and closes a connected socket.
    const bot = await connect(token);
    const rotated = await api(ada, "POST", "/api/account/bots/engine/token");
    expect(rotated.body).toMatchObject({ name: "engine", token: expect.stringMatching(/^bt_/) });
    expect((await bot.next("error", undefined, 5_000, 0)).code).toBe("invalid_token");
    await bot.closed();
    expect((await api(token, "GET", "/api/me")).status).toBe(401);
    expect((await api(rotated.body.token as string, "GET", "/api/me")).body).toMatchObject({
      name: "engine",
      owner: "ada",
    });

    expect((await api(ada, "PUT", "/api/account/bots/engine/avatar", { avatar: "ronin" })).body).toEqual({
      name: "engine",
      avatar: "ronin",
    });
    expect((await api(ada, "PUT", "/api/account/bots/engine/avatar", { avatar: "dragon" })).body.code).toBe(
      "unknown_avatar",
    );
    expect((await api(ada, "PUT", "/api/account/bots/engine/avatar", { avatar: null })).body).toEqual({
      name: "engine",
      avatar: null,
    });
    // Another account's bot does not exist for you.
    expect((await api(root, "PUT", "/api/account/bots/engine/avatar", { avatar: null })).body.code).toBe(
      "no_such_bot",
    );
  }, 30_000);

  it("refuses a rename during a match (bot_in_match)", async () => {
    const made = await api(ada, "POST", "/api/account/bots", { name: "busy-bot" });
    const bot = await connect(made.body.token as string);
    await bot.queueForMatch();
    expect((await api(ada, "PUT", "/api/account/bots/busy-bot/name", { name: "idle-bot" })).body.code).toBe(
      "bot_in_match",
    );
    bot.send({ type: "ready" });
    await bot.playUntilEnd();
    bot.close();
    await bot.closed();
    // After the match: the played bot is retired, not deleted, and then refused on the socket.
    const del = await api(ada, "DELETE", "/api/account/bots/busy-bot");
    expect(del.body).toEqual({ name: "busy-bot", outcome: "retired" });
    expect((await api(ada, "DELETE", "/api/account/bots/busy-bot")).body).toEqual({
      name: "busy-bot",
      outcome: "retired",
    });
    expect(await refusedWith(made.body.token as string)).toBe("retired");
    const page = await srv.get<{ name: string }>("/api/bots/busy-bot");
    expect(page.status).toBe(200);
  }, 60_000);

  it("limits bots per account, not counting retired ones", async () => {
    const bea = await signUp(srv, "bea@example.com", "bea");
    for (const n of ["b-one", "b-two", "b-three"])
      expect((await api(bea, "POST", "/api/account/bots", { name: n })).status).toBe(201);
    const over = await api(bea, "POST", "/api/account/bots", { name: "b-four" });
    expect(over.status).toBe(409);
    expect(over.body.code).toBe("bot_limit");
    expect((await api(bea, "DELETE", "/api/account/bots/b-one")).body.outcome).toBe("deleted");
    expect((await api(bea, "POST", "/api/account/bots", { name: "b-four" })).status).toBe(201);
    // Nothing half-written by the refusal: the account lists exactly the bots that exist.
    const names = ((await api(bea, "GET", "/api/account")).body.bots as { name: string }[]).map(
      (b) => b.name,
    );
    expect(names.sort()).toEqual(["b-four", "b-three", "b-two"]);
  });

  it("DELETE /api/bots/<name> with an agent key deletes an unplayed bot and refuses a played one", async () => {
    const key = (await api(ada, "POST", "/api/account/keys", { label: "ci" })).body.key as string;
    const made = await api(key, "POST", "/api/bots", { name: "key-bot" });
    expect(made.status).toBe(201);
    const played = await api(key, "POST", "/api/bots", { name: "key-played" });
    await playOne(played.body.token as string);
    expect((await api(key, "DELETE", "/api/bots/key-bot")).body).toEqual({
      name: "key-bot",
      outcome: "deleted",
    });
    const refused = await api(key, "DELETE", "/api/bots/key-played");
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("bot_has_played");
    expect((await api(ada, "DELETE", "/api/account/bots/key-played")).body.outcome).toBe("retired");
    expect((await api(key, "DELETE", "/api/bots/key-played")).body).toEqual({
      name: "key-played",
      outcome: "retired",
    });
    expect((await api(key, "DELETE", "/api/bots/engine")).status).toBe(200); // ada's own unplayed bot
    expect((await api(key, "DELETE", "/api/bots/champion")).body.code).toBe("no_such_bot");
    // Agent-key use is audited under the key's id.
    const audit = await api(root, "GET", "/api/admin/audit?kind=registration");
    expect(JSON.stringify(audit.body)).toMatch(/agent_key:key_/);
  }, 60_000);

  it("agent keys: at most 10, revocable, never shown again", async () => {
    const cy = await signUp(srv, "cy@example.com", "cy");
    const keys: string[] = [];
    for (let i = 0; i < 10; i++) {
      const k = await api(cy, "POST", "/api/account/keys", { label: `k${i}` });
      expect(k.status).toBe(201);
      keys.push(k.body.id as string);
    }
    const over = await api(cy, "POST", "/api/account/keys", {});
    expect(over.body.code).toBe("key_limit");
    expect((await api(cy, "DELETE", `/api/account/keys/${keys[0]}`)).status).toBe(200);
    expect((await api(cy, "DELETE", `/api/account/keys/${keys[0]}`)).body.code).toBe("no_such_key");
    expect((await api(cy, "POST", "/api/account/keys", {})).status).toBe(201);
  });

  it("a bot without an account owner is refused on the socket with account_required", async () => {
    const { token } = await srv.app.ctx.botStore.createBot({ name: "orphan", owner: "orphan", house: false });
    expect(await refusedWith(token!)).toBe("account_required");
  });
});

describe("admin", () => {
  it("refuses non-admins and accepts the configured admin's session and agent key", async () => {
    expect((await api(null, "GET", "/api/admin/overview")).body.code).toBe("admin_required");
    expect((await api(ada, "GET", "/api/admin/overview")).body.code).toBe("not_admin");
    const overview = await api(root, "GET", "/api/admin/overview");
    expect(overview.status).toBe(200);
    expect(overview.body.you).toMatchObject({ handle: "root" });
    const key = (await api(root, "POST", "/api/account/keys", {})).body.key as string;
    expect((await api(key, "GET", "/api/admin/admins")).body).toEqual([{ handle: "root", configured: true }]);
    // Addresses never leave the service.
    expect(JSON.stringify(overview.body)).not.toContain("@example.com");
    expect(JSON.stringify((await api(root, "GET", "/api/admin/accounts")).body)).not.toContain(
      "@example.com",
    );
  });

  it("roles: grant, own_role, configured_admin, admin_account", async () => {
    const dee = await signUp(srv, "dee@example.com", "dee");
    expect((await api(root, "POST", "/api/admin/accounts/DEE/role", { role: "admin" })).body).toEqual({
      handle: "dee",
      role: "admin",
      admin: true,
    });
    expect((await api(dee, "GET", "/api/admin/overview")).status).toBe(200);
    expect((await api(dee, "POST", "/api/admin/accounts/dee/role", { role: "player" })).body.code).toBe(
      "own_role",
    );
    expect((await api(dee, "POST", "/api/admin/accounts/root/role", { role: "player" })).body.code).toBe(
      "configured_admin",
    );
    expect((await api(root, "POST", "/api/admin/accounts/dee/ban")).body.code).toBe("admin_account");
    expect((await api(root, "POST", "/api/admin/accounts/dee/role", { role: "player" })).body.role).toBe(
      "player",
    );
    expect((await api(dee, "GET", "/api/admin/overview")).body.code).toBe("not_admin");
    expect((await api(root, "POST", "/api/admin/accounts/dee/role", { role: "boss" })).status).toBe(400);
    expect((await api(root, "POST", "/api/admin/accounts/nobody/role", { role: "admin" })).status).toBe(404);
  });

  it("bot moderation: suspend refuses the socket, activate restores, ban rotates the token", async () => {
    const made = await api(ada, "POST", "/api/account/bots", { name: "naughty" });
    const token = made.body.token as string;
    const bot = await connect(token);
    expect((await api(root, "POST", "/api/admin/bots/naughty/suspend")).body).toEqual({
      name: "naughty",
      status: "suspended",
    });
    expect((await bot.next("error", undefined, 5_000, 0)).code).toBe("suspended");
    await bot.closed();
    expect(await refusedWith(token)).toBe("suspended");
    expect((await api(ada, "PUT", "/api/account/bots/naughty/name", { name: "nice" })).body.code).toBe(
      "bot_moderated",
    );
    expect((await api(ada, "DELETE", "/api/account/bots/naughty")).body.code).toBe("bot_moderated");
    expect((await api(root, "POST", "/api/admin/bots/naughty/activate")).body.status).toBe("active");
    const back = await connect(token);
    expect((await api(root, "POST", "/api/admin/bots/naughty/ban")).body.status).toBe("banned");
    expect((await back.next("error", undefined, 5_000, 0)).code).toBe("banned");
    expect(await refusedWith(token)).toBe("invalid_token"); // the ban replaced the token
    expect((await api(root, "POST", "/api/admin/bots/no-such/ban")).body.code).toBe("no_such_bot");
  });

  it("account ban: routes, keys and bots refused until unban; delete bans the bots and frees the account", async () => {
    const eve = await signUp(srv, "eve@example.com", "eve");
    const key = (await api(eve, "POST", "/api/account/keys", {})).body.key as string;
    const made = await api(eve, "POST", "/api/account/bots", { name: "eves-bot" });
    const token = made.body.token as string;
    const bot = await connect(token);

    const banned = await api(root, "POST", "/api/admin/accounts/eve/ban");
    expect(banned.body).toMatchObject({ handle: "eve", banned: expect.any(String) });
    expect((await bot.next("error", undefined, 5_000, 0)).code).toBe("account_banned");
    await bot.closed();
    expect(await refusedWith(token)).toBe("account_banned");
    expect((await api(eve, "GET", "/api/account")).body.code).toBe("account_banned");
    expect((await api(key, "POST", "/api/bots", { name: "eves-other" })).body.code).toBe("account_banned");
    expect((await api(root, "POST", "/api/admin/accounts/eve/role", { role: "admin" })).body.code).toBe(
      "account_banned",
    );

    expect((await api(root, "POST", "/api/admin/accounts/eve/unban")).body.banned).toBeNull();
    expect((await api(eve, "GET", "/api/account")).status).toBe(200);
    const again = await connect(token);
    again.close();
    await again.closed();

    const deleted = await api(root, "DELETE", "/api/admin/accounts/eve");
    expect(deleted.body).toEqual({ deleted: eve.id, handle: "eve", banned_bots: ["eves-bot"] });
    expect(await refusedWith(token)).toBe("invalid_token");
    expect((await srv.get<{ name: string }>("/api/bots/eves-bot")).status).toBe(200);
    expect((await api(key, "POST", "/api/bots", { name: "eves-third" })).status).toBe(401);
    // The deleted account's session ended with it; signing in again gives a new, empty account.
    expect((await api(eve, "GET", "/api/account")).body.code).toBe("invalid_session");
    const fresh = await api(await signIn(srv, "eve@example.com"), "GET", "/api/account");
    expect(fresh.body).toMatchObject({ handle: null, bots: [], agent_keys: [] });
  }, 30_000);

  it("accounts search, owners, usage and audit", async () => {
    const found = await api(root, "GET", "/api/admin/accounts?q=ADA");
    expect(found.body.found).toBe(1);
    expect((found.body.accounts as { handle: string }[])[0]).toMatchObject({
      handle: "ada",
      admin: false,
      configured: false,
      banned: null,
    });
    const byBot = await api(root, "GET", "/api/admin/accounts?q=naughty");
    expect((byBot.body.accounts as { handle: string }[]).map((a) => a.handle)).toEqual(["ada"]);
    expect((await api(root, "GET", "/api/admin/accounts?limit=0")).status).toBe(400);
    // q is text, not a LIKE pattern: `_` and `%` match only themselves.
    expect((await api(ada, "POST", "/api/account/bots", { name: "snake_case" })).status).toBe(201);
    const handles = async (q: string) =>
      (
        (await api(root, "GET", `/api/admin/accounts?q=${encodeURIComponent(q)}`)).body.accounts as {
          handle: string;
        }[]
      ).map((a) => a.handle);
    expect(await handles("e_c")).toEqual(["ada"]);
    expect(await handles("_")).toEqual(["ada"]);
    expect(await handles("a_a")).toEqual([]);
    expect(await handles("%")).toEqual([]);
    expect(await handles("sn%se")).toEqual([]);

    const owner = await api(root, "POST", "/api/admin/owners", { name: "legacy-team", max_bots: 2 });
    expect(owner.status).toBe(201);
    expect(owner.body.owner_key).toMatch(/^ok_/);
    // Not an anonymous ladder: a legacy owner key cannot register here.
    const reg = await call(srv.url, "POST", "/api/bots", {
      headers: { "x-owner-key": owner.body.owner_key as string },
      body: { name: "legacy-bot" },
    });
    expect(reg.status).toBe(401);
    expect((await api(root, "GET", "/api/admin/owners")).body).toEqual([
      expect.objectContaining({ name: "legacy-team", max_bots: 2, bots: [] }),
    ]);
    expect((await api(root, "POST", "/api/admin/owners", { name: "legacy-team" })).status).toBe(409);

    const usage = await api(root, "GET", "/api/admin/usage");
    expect(usage.body).toMatchObject({
      limits: { maxBotsPerOwner: 3 },
      capacity: { running: expect.any(Number) },
    });
    expect((usage.body.bots as { name: string }[]).some((b) => b.name === "key-played")).toBe(true);

    const audit = (await api(root, "GET", "/api/admin/audit?limit=500")).body as unknown as {
      kind: string;
    }[];
    const kinds = new Set(audit.map((e) => e.kind));
    for (const k of ["registration", "admin", "agent_key", "handle"]) expect(kinds).toContain(k);
  });
});
