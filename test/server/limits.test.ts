// SPEC 8 limits through the real server: bots per owner, new versions per day, the hourly quota (the bot
// stays queued, is told once, and the throttle is audited), and the live policy in GET /api.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer({ tickMs: 100, startupMs: 500, maxBots: 2, newVersionsPerDay: 2, hourlyQuota: 1 });
});
afterAll(async () => {
  await srv?.stop();
});

const post = async (path: string, body: unknown, token?: string) => {
  const res = await fetch(`${srv.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe("limits", () => {
  it("reports the live policy, including the competitive limits", async () => {
    const api = await srv.get<{ operational_policy: Record<string, unknown> }>("/api");
    expect(api.body.operational_policy).toMatchObject({
      maxBotsPerOwner: 2,
      newVersionsPerDay: 2,
      matchesPerHourPerBot: 1,
      matchesPerDayPerOwner: 50000,
      qualifyingGames: 30,
    });
  });

  it("refuses a registration past the owner's bot limit with 409 bot_limit, and audits registrations", async () => {
    expect((await post("/api/bots", { name: "lim-a1", owner: "limowner" })).status).toBe(201);
    expect((await post("/api/bots", { name: "lim-a2", owner: "limowner" })).status).toBe(201);
    const third = await post("/api/bots", { name: "lim-a3", owner: "limowner" });
    expect(third).toMatchObject({ status: 409, body: { code: "bot_limit" } });
    const audit = await srv.app.ctx.auditStore.auditEntries("registration", 50);
    expect(audit.map((e) => e.subject)).toEqual(expect.arrayContaining(["lim-a1", "lim-a2"]));
    expect((await post("/api/bots", { name: "lim-h", owner: "house" })).body.code).toBe("invalid_bot");
  });

  it("caps new version labels per day, over HTTP (429) and on the socket (quota_exceeded)", async () => {
    const token = await srv.register("lim-v");
    expect((await post("/api/me/versions", { label: "one" }, token)).status).toBe(201);
    expect((await post("/api/me/versions", { label: "two" }, token)).status).toBe(201);
    expect((await post("/api/me/versions", { label: "one" }, token)).status).toBe(201); // reuse is free
    expect(await post("/api/me/versions", { label: "three" }, token)).toMatchObject({
      status: 429,
      body: { code: "quota_exceeded" },
    });
    const bot = new BotClient(srv.wsUrl, token);
    await bot.open();
    bot.send({ type: "queue", version: "four" });
    expect(await bot.next("error")).toMatchObject({ code: "quota_exceeded" });
    bot.close();
  });

  it("holds a bot back at its hourly quota: it stays queued, is told once, and the throttle is audited", async () => {
    const token = await srv.register("lim-q");
    const bot = new BotClient(srv.wsUrl, token);
    await bot.open();
    bot.send({ type: "queue", version: "v1" });
    await bot.playUntilEnd();
    const since = bot.received.length;
    bot.send({ type: "queue", version: "v1" });
    await bot.next("queued", () => true, 5_000, since);
    const err = await bot.next("error", (m) => m.code === "quota_exceeded", 5_000, since);
    expect(String(err.message)).toContain("hourly_quota");
    // Several more passes (run here rather than waited for): no second notice, no match. A message the
    // server must answer comes back after anything those passes sent, since a socket keeps order.
    for (let i = 0; i < 5; i++) srv.app.ctx.ladders.main.matchmaker.pass();
    bot.send({ type: "leave-me-alone" });
    await bot.next("error", (m) => m.code === "schema", 5_000, since);
    expect(bot.received.slice(since).filter((m) => m.code === "quota_exceeded")).toHaveLength(1);
    expect(bot.received.slice(since).some((m) => m.type === "hello")).toBe(false);
    const status = await srv.get<{ online: { name: string; state: string }[] }>("/api/status");
    expect(status.body.online.find((o) => o.name === "lim-q")?.state).toBe("waiting");
    // The matchmaker's pass is synchronous and writes its audit entry without waiting for it (a slow database
    // must not hold a pass), so the entry is looked for until it is there, not read once.
    let entry: { detail: unknown } | undefined;
    for (let i = 0; i < 100 && !entry; i++) {
      entry = (await srv.app.ctx.auditStore.auditEntries("throttle", 10)).find((e) => e.subject === "lim-q");
      if (!entry) await new Promise((r) => setTimeout(r, 50));
    }
    expect(entry?.detail).toMatchObject({ reason: "hourly_quota" });
    bot.close();
  });
});
