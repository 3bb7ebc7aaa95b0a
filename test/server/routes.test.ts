// HTTP routes on the live server: registration on the anonymous development ladder (SPEC 4.2), the bot-token
// routes (SPEC 4.3) and their effect on the bot socket, the discovery index and status, and unknown routes.
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { VERSIONS } from "../../engine/versions.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

type Json = Record<string, unknown>;

let srv: TestServer;
beforeAll(async () => {
  // No house bots: a queued bot stays waiting.
  srv = await startServer({ houseBots: false });
});
afterAll(async () => {
  await srv?.stop();
});

async function call(
  method: string,
  path: string,
  o: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined || o.raw !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${srv.url}${path}`, {
    method,
    headers,
    ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : o.raw !== undefined ? { body: o.raw } : {}),
  });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}

function expectError(r: { status: number; body: Json }, status: number, code?: string): void {
  expect(r.status).toBe(status);
  expect(typeof r.body.error).toBe("string");
  if (code) expect(r.body.code).toBe(code);
}

async function connect(token: string): Promise<BotClient> {
  const bot = new BotClient(srv.wsUrl, token);
  await bot.open();
  return bot;
}

describe("POST /api/bots", () => {
  it("registers a bot and shows its token once", async () => {
    const r = await call("POST", "/api/bots", { body: { name: "Reg_Bot-1", owner: "someone" } });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body).sort()).toEqual(["bot_endpoint", "name", "note", "token"]);
    expect(r.body.name).toBe("Reg_Bot-1");
    expect(r.body.token).toEqual(expect.any(String));
    expect((r.body.token as string).length).toBeGreaterThan(20);
    expect(r.body.bot_endpoint).toMatch(/^ws:\/\/.+\/bot$/);
    expect(r.body.note).toEqual(expect.any(String));
    const me = await call("GET", "/api/me", { token: r.body.token as string });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: "Reg_Bot-1", owner: "someone", house: false, online: false });
  });

  it("refuses invalid names and taken names in any case with 400 invalid_bot", async () => {
    const bad: unknown[] = [
      { name: "a" },
      { name: "x".repeat(25) },
      { name: "a b" },
      { name: "" },
      { name: "héllo" },
      { name: 42 },
      {},
      { name: "fine-name", owner: "!" },
    ];
    for (const body of bad) expectError(await call("POST", "/api/bots", { body }), 400, "invalid_bot");
    expect((await call("POST", "/api/bots", { body: { name: "x".repeat(24) } })).status).toBe(201);
    expect((await call("POST", "/api/bots", { body: { name: "Taken-Name" } })).status).toBe(201);
    for (const name of ["Taken-Name", "taken-name", "TAKEN-NAME"])
      expectError(await call("POST", "/api/bots", { body: { name } }), 400, "invalid_bot");
  });

  it("answers a malformed body with 400 {error, code}", async () => {
    expectError(await call("POST", "/api/bots", { raw: "{" }), 400);
    expect((await call("POST", "/api/bots", { raw: "{" })).body.code).toEqual(expect.any(String));
  });
});

describe("bot-token routes", () => {
  it("GET /api/me: 401 missing_authorization without the header, invalid_token for a bad token", async () => {
    expectError(await call("GET", "/api/me"), 401, "missing_authorization");
    expectError(await call("GET", "/api/me", { token: "bt_nope" }), 401, "invalid_token");
    expectError(
      await call("GET", "/api/me", { headers: { authorization: "Basic abc" } }),
      401,
      "invalid_token",
    );
    for (const path of ["/api/me/versions", "/api/me/token", "/api/me/versions/v1/retire"])
      expectError(await call("POST", path), 401, "missing_authorization");
  });

  it("returns MyBot and creates, lists and retires versions", async () => {
    const token = await srv.register("ver-bot");
    const me = await call("GET", "/api/me", { token });
    expect(Object.keys(me.body).sort()).toEqual(
      [
        "avatar",
        "created",
        "display_name",
        "house",
        "name",
        "online",
        "owner",
        "owner_url",
        "regressions",
        "versions",
      ].sort(),
    );
    expect(me.body).toMatchObject({ name: "ver-bot", owner_url: null, avatar: null, versions: [] });
    expect(Number.isNaN(Date.parse(me.body.created as string))).toBe(false);

    const v = await call("POST", "/api/me/versions", { token, body: { label: "v1", notes: "first" } });
    expect(v.status).toBe(201);
    expect(v.body).toMatchObject({
      label: "v1",
      notes: "first",
      retired: false,
      wins: 0,
      losses: 0,
      draws: 0,
    });
    expect(v.body.win_rate).toBeNull();
    for (const k of ["rating", "rating_deviation", "leaderboard_score"])
      expect(Number.isInteger(v.body[k]), k).toBe(true);
    expect(Number.isNaN(Date.parse(v.body.created as string))).toBe(false);
    const label32 = "L".repeat(32);
    expect((await call("POST", "/api/me/versions", { token, body: { label: label32 } })).status).toBe(201);
    for (const body of [
      { label: "L".repeat(33) },
      { label: "" },
      {},
      { label: 7 },
      { label: "nul\u0000" },
      { label: "\ud800" },
      { label: "ok", notes: "nul\u0000" },
    ])
      expectError(await call("POST", "/api/me/versions", { token, body }), 400);

    const retired = await call("POST", "/api/me/versions/v1/retire", { token });
    expect(retired).toMatchObject({ status: 200, body: { ok: true } });
    expectError(await call("POST", "/api/me/versions/nope/retire", { token }), 404);
    const after = await call("GET", "/api/me", { token });
    const versions = after.body.versions as { label: string; retired: boolean }[];
    expect(versions.map((x) => [x.label, x.retired]).sort()).toEqual([
      [label32, false],
      ["v1", true],
    ]);
  });

  it("a retired version cannot be queued; retiring a queued version takes it out of the queue", async () => {
    const token = await srv.register("retire-bot");
    const bot = await connect(token);
    await call("POST", "/api/me/versions", { token, body: { label: "old" } });
    await call("POST", "/api/me/versions/old/retire", { token });
    bot.send({ type: "queue", version: "old" });
    expect(await bot.next("error")).toMatchObject({ code: "version_retired" });

    bot.send({ type: "queue", version: "new" });
    await bot.next("queued");
    const since = bot.received.length;
    expect((await call("POST", "/api/me/versions/new/retire", { token })).body).toEqual({ ok: true });
    expect(await bot.next("error", undefined, 10_000, since)).toMatchObject({ code: "version_retired" });
    const status = await srv.get<{ online: { name: string; state: string }[] }>("/api/status");
    expect(status.body.online).toContainEqual(expect.objectContaining({ name: "retire-bot", state: "idle" }));
    // Queueing a version created by queueing shows up in /api/me.
    bot.send({ type: "queue", version: "newer" });
    await bot.next("queued");
    const me = await call("GET", "/api/me", { token });
    expect(me.body.online).toBe(true);
    expect((me.body.versions as { label: string }[]).map((x) => x.label).sort()).toEqual([
      "new",
      "newer",
      "old",
    ]);
    bot.close();
  });

  it("POST /api/me/token rotates: the old token stops working and its socket is closed", async () => {
    const oldToken = await srv.register("rotate-bot");
    const bot = await connect(oldToken);
    const r = await call("POST", "/api/me/token", { token: oldToken });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body)).toEqual(["token"]);
    const newToken = r.body.token as string;
    expect(newToken).not.toBe(oldToken);
    expect(await bot.next("error", undefined, 10_000, 0)).toMatchObject({ code: "invalid_token" });
    expect(await bot.closed()).toBe(1008);

    expectError(await call("GET", "/api/me", { token: oldToken }), 401, "invalid_token");
    expect((await call("GET", "/api/me", { token: newToken })).body.name).toBe("rotate-bot");
    const stale = await connect(oldToken);
    expect(await stale.next("error", undefined, 10_000, 0)).toMatchObject({ code: "invalid_token" });
    expect(await stale.closed()).toBe(1008);
    const fresh = await connect(newToken);
    fresh.send({ type: "queue", version: "v1" });
    expect(await fresh.next("queued")).toMatchObject({ version: "v1" });
    fresh.close();
  });
});

describe("a token changed while a socket's lookup is under way", () => {
  it("refuses the socket when the lookup ends, instead of letting the old token in", async () => {
    const oldToken = await srv.register("race-bot");
    // The socket's token check reads the bot directory (kept in memory from the store).
    const bots = srv.app.ctx.botDirectory;
    const lookup = bots.byToken.bind(bots);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let looked!: () => void;
    const lookedUp = new Promise<void>((r) => {
      looked = r;
    });
    // The socket's token lookup (the first one) finds the bot, then waits until the token has been rotated;
    // any later lookup goes through.
    let first = true;
    bots.byToken = async (t: string) => {
      const found = await lookup(t);
      if (!first) return found;
      first = false;
      looked();
      await held;
      return found;
    };
    try {
      const bot = new BotClient(srv.wsUrl, oldToken);
      await bot.open();
      await lookedUp;
      const r = await call("POST", "/api/me/token", { token: oldToken });
      expect(r.status).toBe(200);
      release();
      expect(await bot.next("error", undefined, 10_000, 0)).toMatchObject({ code: "invalid_token" });
      expect(await bot.closed()).toBe(1008);
    } finally {
      bots.byToken = lookup;
      release();
    }
  });
});

describe("discovery and status", () => {
  it("GET /api has every ApiIndex field", async () => {
    const r = await call("GET", "/api");
    expect(r.status).toBe(200);
    const b = r.body;
    expect(b.bot_endpoint).toMatch(/^ws:\/\/.+\/bot$/);
    // The built-in identity provider is on by default; the anonymous option only adds anonymous play.
    expect(b.accounts).toMatchObject({ identity_url: expect.stringMatching(/\/auth\/v1$/) });
    expect(b.authentication_required).toBe(false);
    expect(b.mcp).toEqual(expect.stringMatching(/\/mcp$/));
    for (const k of ["openapi", "llms_txt", "docs", "bot_code"]) expect(b[k], k).toEqual(expect.any(String));
    const versions = b.versions as Json;
    for (const k of ["release", "engine", "protocol", "rules", "rules_hash"])
      expect(versions[k], k).toEqual(expect.any(String));
    expect(Number.isInteger(versions.schema)).toBe(true);
    expect(versions.schema as number).toBeGreaterThan(0);
    expect(versions.protocol).toBe("0.6");
    expect(versions.release).toBe(VERSIONS.release);
    const onboarding = b.onboarding as Json;
    for (const k of [
      "account_url",
      "signup_url",
      "guide_url",
      "handle_endpoint",
      "registration_endpoint",
      "claim_endpoint",
    ])
      expect(onboarding[k], k).toEqual(expect.any(String));
    for (const k of ["signup_endpoint", "token_endpoint"]) {
      expect(onboarding, k).toHaveProperty(k);
      expect(onboarding[k] === null || typeof onboarding[k] === "string", k).toBe(true);
    }
    expect(b.operational_policy).toMatchObject({
      startup_ms: expect.any(Number),
      tick_ms: expect.any(Number),
      match_budget_ms: expect.any(Number),
      max_consecutive_failures: 10,
      reconnect_grace_ms: expect.any(Number),
      max_message_bytes: 4096,
      messages_per_tick: 5,
      idle_messages_per_second: 50,
      matchIntervalMs: expect.any(Number),
      maxConcurrentMatches: expect.any(Number),
      maxConcurrentPerOwner: expect.any(Number),
      matchesPerHourPerBot: expect.any(Number),
      replaysPerBot: 200,
    });
    expect(Object.keys(b.changelog as Json).sort()).toEqual(["json", "markdown", "page"]);
    expect(Object.keys(b.simulator as Json).sort()).toEqual(["docs", "javascript", "python", "script"]);
    expect(b.maps).toEqual(["arena-21", "columns-21", "pillars-21"]);
    expect((b.endpoints as unknown[]).length).toBeGreaterThan(0);
    for (const e of b.endpoints as unknown[]) expect(e).toEqual(expect.any(String));
  });

  it("GET /api/status reports online bots, matches, capacity and draining", async () => {
    const token = await srv.register("status-bot");
    const bot = await connect(token);
    bot.send({ type: "queue", version: "s1" });
    await bot.next("queued");
    const r = await call("GET", "/api/status");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      matches: [],
      capacity: { running: 0, max: expect.any(Number) },
      draining: false,
    });
    expect(r.body.online).toContainEqual(
      expect.objectContaining({
        name: "status-bot",
        display_name: "status-bot",
        version: "s1",
        state: "waiting",
      }),
    );
    expect((await call("GET", "/api/status?ladder=public")).status).toBe(200);
    expectError(await call("GET", "/api/status?ladder=nope"), 404, "unknown_ladder");
    bot.close();
  });

  it("unknown routes answer 404 JSON {error, code}; the socket lives only at /bot", async () => {
    for (const [method, path] of [
      ["GET", "/api/nope"],
      ["POST", "/api/nope"],
      ["GET", "/api/me/nope"],
    ] as const) {
      const r = await call(method, path);
      expectError(r, 404, "not_found");
      expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    }
    const ws = new WebSocket(srv.wsUrl.replace(/\/bot$/, "/elsewhere"));
    ws.on("error", () => {});
    const [, res] = (await once(ws, "unexpected-response")) as [unknown, { statusCode: number }];
    expect(res.statusCode).toBe(404);
  });
});
