// Human play on the real server (SPEC 1.7, 4.4 play ticket, 8.4): a signed-in person takes a one-minute,
// single-use ticket, opens /human and plays an online house bot to the end; the game is stored as mode
// `human`, unrated, and leaves the house bot's record alone. Player bots and unknown names are
// `unknown_opponent`.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let kim: SignedIn;

beforeAll(async () => {
  srv = await startAccountServer({ adminEmails: ["root@example.com"] });
  kim = await signUp(srv, "kim@example.com", "kim");
}, 60_000);

afterAll(async () => {
  await srv?.stop();
});

async function ticket(who: SignedIn): Promise<string> {
  const r = await call(srv.url, "POST", "/api/account/play-ticket", { token: who.access });
  expect(r.status).toBe(200);
  expect(r.body.expires_in_ms).toBe(60_000);
  return r.body.ticket as string;
}

/** The /human socket, with the BotClient's message helpers. */
function human(t: string, opponent: string): BotClient {
  return new BotClient(
    `${srv.url.replace(/^http/, "ws")}/human?ticket=${encodeURIComponent(t)}&opponent=${opponent}`,
    null,
  );
}

describe("human play", () => {
  it("plays a house bot to the end: two-minute deadline, mode human, unrated", async () => {
    const record = async () =>
      (
        await srv.get<{ name: string; wins: number; losses: number; draws: number }[]>("/api/leaderboard")
      ).body.find((r) => r.name === "kiter") ?? null;
    const before = await record();
    const t = await ticket(kim);
    const c = human(t, "kiter");
    await c.open();
    const hello = await c.next("hello", undefined, 10_000, 0);
    expect(hello.deadlines).toMatchObject({ tick_ms: 120_000, max_consecutive_failures: 10 });
    c.send({ type: "ready" });
    // Walk toward the middle each tick, the way the page's keyboard handler sends turns.
    const end = await c.playUntilEnd((o) => {
      const moves = (o.moves as { dir: string }[] | undefined) ?? [];
      return { type: "turn", tick: o.tick, ...(moves[0] ? { move: moves[0].dir } : {}) };
    });
    expect(end.match_id).toBe(hello.match_id);
    expect(end.rating_change).toBeNull();
    c.close();

    const m = await srv.get<{ mode: string; bots: { name: string; rating_before?: number }[] }>(
      `/api/matches/${hello.match_id}`,
    );
    expect(m.body.mode).toBe("human");
    expect(m.body.bots.map((b) => b.name).sort()).toEqual(["kim", "kiter"]);
    expect(m.body.bots.every((b) => b.rating_before === undefined)).toBe(true);
    expect(await record()).toEqual(before);
    // The replay is there for the viewer.
    expect((await fetch(`${srv.url}/replays/${hello.match_id}.jsonl.gz`)).status).toBe(200);
  }, 120_000);

  it("a ticket works once; player bots and unknown names are unknown_opponent", async () => {
    const t = await ticket(kim);
    const first = human(t, "no-such-bot");
    expect((await first.next("error", undefined, 5_000, 0)).code).toBe("unknown_opponent");
    await first.closed();
    const again = human(t, "kiter");
    expect((await again.next("error", undefined, 5_000, 0)).code).toBe("invalid_ticket");
    await again.closed();

    const key = (await call(srv.url, "POST", "/api/account/keys", { token: kim.access, body: {} })).body
      .key as string;
    const made = await call(srv.url, "POST", "/api/bots", { token: key, body: { name: "kims-bot" } });
    const bot = new BotClient(srv.wsUrl, made.body.token as string);
    await bot.open();
    const vsPlayer = human(await ticket(kim), "kims-bot");
    expect((await vsPlayer.next("error", undefined, 5_000, 0)).code).toBe("unknown_opponent");
    await vsPlayer.closed();
    bot.close();

    const none = new WebSocket(`${srv.url.replace(/^http/, "ws")}/human`);
    const code = await new Promise<string>((resolve) =>
      none.on("message", (d) => resolve((JSON.parse(d.toString()) as { code: string }).code)),
    );
    expect(code).toBe("invalid_ticket");
    none.close();
  });

  it("ten timeouts in a row disqualify the person, as for bots", async () => {
    // The same server code with the two-minute turn shortened, so ten timeouts take a second.
    const quick = await startAccountServer({}, { humanTickMs: 100 });
    try {
      const sam = await signUp(quick, "sam@example.com", "sam");
      const r = await call(quick.url, "POST", "/api/account/play-ticket", { token: sam.access });
      const c = new BotClient(
        `${quick.url.replace(/^http/, "ws")}/human?ticket=${encodeURIComponent(r.body.ticket as string)}&opponent=brawler`,
        null,
      );
      const hello = await c.next("hello", undefined, 10_000, 0);
      expect(hello.deadlines).toMatchObject({ tick_ms: 100 });
      c.send({ type: "ready" });
      const end = await c.next("end", undefined, 30_000, 0);
      expect(end.reason).toBe("disqualified");
      const me = (
        end.stats as { fighters: { id: number; disqualified: boolean; server_idles: { timeout?: number } }[] }
      ).fighters[hello.bot_id as number]!;
      expect(me.disqualified).toBe(true);
      expect(me.server_idles.timeout).toBe(10);
      c.close();
    } finally {
      await quick.stop();
    }
  }, 60_000);

  it("the ticket route needs a session with a handle and an unbanned account", async () => {
    expect((await call(srv.url, "POST", "/api/account/play-ticket")).body.code).toBe("missing_authorization");
    const nova = await signUp(srv, "nova@example.com");
    expect((await call(srv.url, "POST", "/api/account/play-ticket", { token: nova.access })).body.code).toBe(
      "handle_required",
    );
    const root = await signUp(srv, "root@example.com", "root");
    const zed = await signUp(srv, "zed@example.com", "zed");
    const t = await ticket(zed);
    await call(srv.url, "POST", "/api/admin/accounts/zed/ban", { token: root.access });
    expect((await call(srv.url, "POST", "/api/account/play-ticket", { token: zed.access })).body.code).toBe(
      "account_banned",
    );
    // A ticket taken before the ban does not outlive it.
    const c = human(t, "kiter");
    expect((await c.next("error", undefined, 5_000, 0)).code).toBe("account_banned");
    await c.closed();
  });
});
