// Per-address budgets on the WebSocket doors (issue 20): failed token checks and connects from one address are
// limited, answered `429 rate_limited` with Retry-After before any upgrade, and a bot token is checked from
// memory (the bot directory), not with a query per connect.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressLimits } from "../../server/socket/address-limits.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";
import { socketAttempt } from "../helpers/socket-attempt.ts";

/** Opens a socket and says how it went: the server's first message and close code, or the HTTP refusal. */
const attempt = (url: string, token: string | null) => socketAttempt(url, token);

describe("per-address limits on bot and human sockets", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ socketConnectsPerMinute: 6, socketAuthFailuresPerMinute: 3 });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("answers 429 rate_limited with Retry-After after too many failed token checks from one address", async () => {
    for (let i = 0; i < 3; i++) {
      const r = await attempt(srv.wsUrl, `made-up-${i}`);
      expect(r.first).toMatchObject({ type: "error", code: "invalid_token" });
      expect(r.close).toBe(1008);
    }
    const refused = await attempt(srv.wsUrl, "made-up-again");
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(refused.body).toMatchObject({ code: "rate_limited", error: expect.stringContaining("retry") });
    // The human door shares the address's budget.
    expect((await attempt(srv.wsUrl.replace(/\/bot$/, "/human"), null)).status).toBe(429);
    // HTTP routes are not affected.
    expect((await fetch(`${srv.url}/api`)).status).toBe(200);
  });

  it("limits connects per address, and refills over time", () => {
    let now = 0;
    const limits = new AddressLimits({ connectsPerMinute: 6, authFailuresPerMinute: 3 }, () => now);
    for (let i = 0; i < 6; i++) expect(limits.admit("10.0.0.1")).toBeNull();
    expect(limits.admit("10.0.0.1")).toBe(10); // one connect comes back every 10 s
    expect(limits.admit("10.0.0.2")).toBeNull(); // another address has its own budget
    now += 10_000;
    expect(limits.admit("10.0.0.1")).toBeNull();
    expect(limits.admit("10.0.0.1")).not.toBeNull();
    // Failures close the door until they have drained below the budget.
    for (let i = 0; i < 4; i++) limits.failed("10.0.0.3");
    expect(limits.admit("10.0.0.3")).toBe(40);
    now += 40_000;
    expect(limits.admit("10.0.0.3")).toBeNull();
  });
});

describe("the connect budget on the live server", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ socketConnectsPerMinute: 4, socketAuthFailuresPerMinute: 100 });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("lets a bot in while the address has budget, then refuses with 429 until it refills", async () => {
    const token = await srv.register("limited-bot");
    for (let i = 0; i < 4; i++) {
      const bot = new BotClient(srv.wsUrl, token);
      await bot.open();
      bot.ws.close();
      await bot.closed();
    }
    const r = await attempt(srv.wsUrl, token);
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ code: "rate_limited" });
  });
});
