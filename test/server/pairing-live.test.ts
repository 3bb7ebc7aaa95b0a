// Why this pairing, live (issue 33, part 4): two bots of different owners queue on the real server, the real
// matchmaker pairs them, the runner plays the match and stores its result with the pairing record; `GET
// /api/matches/<id>` returns it as `pairing`, lists do not carry it, and the match page says it in one
// sentence. A human game has none.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAP_NAMES } from "../../engine/rules.ts";
import { PairingRecord } from "../../server/store/pairing-record.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

type Msg = { type: string; [k: string]: unknown };

let srv: TestServer;
beforeAll(async () => {
  // No house bots: the two players can only meet each other.
  srv = await startServer({ houseBots: false, tickMs: 500, startupMs: 2000 });
});
afterAll(async () => {
  await srv?.stop();
});

const firstMove = (o: Msg) => ({ type: "turn", tick: o.tick, move: (o.moves as { dir: string }[])[0]?.dir });

describe("a live ranked match stores why it was paired", () => {
  it("carries the record in GET /api/matches/<id> and says it on the match page", async () => {
    const a = new BotClient(srv.wsUrl, await srv.register("pair-live-a", "owner-a"));
    const b = new BotClient(srv.wsUrl, await srv.register("pair-live-b", "owner-b"));
    await Promise.all([a.open(), b.open()]);
    // a queues first and waits alone; b's arrival pairs them.
    const helloA = a.queueForMatch();
    await new Promise((r) => setTimeout(r, 1_200));
    const [ha, hb] = await Promise.all([helloA, b.queueForMatch()]);
    expect(ha.match_id).toBe(hb.match_id);
    const id = ha.match_id as string;
    const ends = [a, b].map((bot) => {
      const since = bot.received.length;
      const stop = bot.autoplay(firstMove);
      bot.send({ type: "ready" });
      return bot.next("end", undefined, 60_000, since).finally(stop);
    });
    await Promise.all(ends);

    const res = await srv.get<{ pairing: unknown; map: string; bots: { name: string }[] }>(
      `/api/matches/${id}`,
    );
    expect(res.status).toBe(200);
    const p = PairingRecord.parse(res.body.pairing);
    // Two fresh versions at the same rating, nothing waited past a minute, no reserved discovery slot on
    // the first start: a competitive pairing.
    expect(p.reason).toBe("competitive");
    expect(p.rating_gap).toBe(0);
    expect(p.pair_games).toBe(0);
    expect(p.forecast).toBe(0.5);
    expect(p.weight).toBeCloseTo(
      Object.values(p.parts).reduce((s, v) => s + v, 0),
      1,
    );
    expect(p.map).toEqual({ reason: "least_played", games: 0, choices: MAP_NAMES.length });
    expect(MAP_NAMES).toContain(res.body.map);
    // a waited about 1.2 s more than b; the waits follow the fighters' order.
    const names = res.body.bots.map((x) => x.name);
    const waitA = p.waits_ms[names.indexOf("pair-live-a")]!;
    const waitB = p.waits_ms[names.indexOf("pair-live-b")]!;
    expect(waitA).toBeGreaterThanOrEqual(1_000);
    expect(waitA).toBeGreaterThan(waitB);
    // The window widens with the shorter wait (b's).
    expect(p.window).toBe(Math.round(400 + (20 * waitB) / 1000));

    // Lists are unchanged: no pairing on list entries.
    const list = await srv.get<Record<string, unknown>[]>("/api/matches?bot=pair-live-a");
    expect(list.body[0]!.id).toBe(id);
    expect("pairing" in list.body[0]!).toBe(false);

    const page = await fetch(`${srv.url}/match/${id}`).then((r) => r.text());
    expect(page).toContain("Why this pairing");
    expect(page).toMatch(
      /were paired as a competitive pairing: ratings 0 points apart, within the \d+-point window/,
    );
    expect(page).toContain('data-reason="competitive"');
    a.close();
    b.close();
  });
});
