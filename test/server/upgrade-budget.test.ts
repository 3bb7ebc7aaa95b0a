// The server's budget of unauthenticated WebSocket upgrades (issue 31, part 3): a storm of made-up tokens
// spread over many addresses, each under every per-address budget, is refused beyond --upgrades-per-second
// with `503 server_busy` and Retry-After before any token check, while HTTP requests and bots with valid
// tokens still get in (a bot whose token checks out gives its unit back, so reconnect bursts pass).
// Timing figures for the storm are in the benchmark (`npm run bench -- --storm`), not here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UpgradeBudget } from "../../server/socket/upgrade-budget.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";
import { socketAttempt } from "../helpers/socket-attempt.ts";

/** One upgrade with `token` from `localAddress`: the HTTP refusal, or the socket's first message. */
const attempt = (url: string, token: string, localAddress: string) =>
  socketAttempt(url, token, { localAddress, hangUpAfterFirst: true });

describe("the server's budget of unauthenticated upgrades", () => {
  let srv: TestServer;
  beforeAll(async () => {
    // The per-address budgets are far away: only the server-wide one can refuse here.
    srv = await startServer({
      upgradesPerSecond: 5,
      socketConnectsPerMinute: 100_000,
      socketAuthFailuresPerMinute: 100_000,
    });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("refuses a bad-token storm from 40 addresses beyond the budget with 503 server_busy, HTTP still served", async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) => attempt(srv.wsUrl, `storm-${i}`, `127.0.5.${i + 1}`)),
    );
    const checked = outcomes.filter((o) => o.first?.code === "invalid_token");
    const refused = outcomes.filter((o) => o.status === 503);
    expect(checked.length + refused.length).toBe(40);
    // The bucket holds 5 and refills 5 a second: a handful are checked, the rest never reach a token check.
    expect(checked.length).toBeGreaterThanOrEqual(5);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    for (const r of refused) {
      expect(r.body).toMatchObject({ code: "server_busy" });
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    // A normal request is not touched by the budget.
    expect((await fetch(`${srv.url}/api`)).status).toBe(200);
  });

  it("lets bots with valid tokens in, more of them than the budget, since each gives its unit back", async () => {
    // A budget of one upgrade a second: without the units given back, the second bot would be refused.
    const tight = await startServer({ upgradesPerSecond: 1 });
    try {
      const tokens = await Promise.all(Array.from({ length: 6 }, (_, i) => tight.register(`budget-ok-${i}`)));
      const bots: BotClient[] = [];
      for (const t of tokens) {
        const b = new BotClient(tight.wsUrl, t);
        await b.open();
        // The unit comes back when the token checks out, just after the handshake: wait for the bot to be
        // in the lobby before the next one knocks, as a bot reconnecting after its backoff would.
        const id = (await tight.app.ctx.botStore.botByToken(t))?.id;
        for (let i = 0; id && i < 500 && !tight.app.ctx.lobby.get(id)?.conn; i++)
          await new Promise((r) => setTimeout(r, 10));
        bots.push(b);
      }
      const last = bots.at(-1)!;
      last.send({ type: "queue", version: "v1" });
      await last.next("queued");
      for (const b of bots) b.close();
    } finally {
      await tight.stop();
    }
  });

  it("is a token bucket that refills continuously and takes back the units of authenticated upgrades", () => {
    let now = 0;
    const budget = new UpgradeBudget(4, () => now);
    for (let i = 0; i < 4; i++) expect(budget.take()).toBeNull();
    expect(budget.take()).toBe(1);
    budget.give();
    expect(budget.take()).toBeNull();
    now += 500; // two units back
    expect(budget.take()).toBeNull();
    expect(budget.take()).toBeNull();
    expect(budget.take()).toBe(1);
    expect(new UpgradeBudget(0).take()).toBeNull(); // 0: no budget
  });
});
