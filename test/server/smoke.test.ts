// A bot written from SPEC section 6 connects, queues and plays a full match against a house bot.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EndMessage, HelloMessage, ObservationMessage } from "../../engine/protocol.ts";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startServer();
});
afterAll(async () => {
  await srv?.stop();
});

describe("a full match against a house bot", () => {
  it("queues, gets hello, plays every observation to end, and the match is stored", async () => {
    const token = await srv.register("smoke-bot");
    const bot = new BotClient(srv.wsUrl, token);
    await bot.open();
    bot.send({ type: "queue", version: "v1" });
    const queued = await bot.next("queued");
    expect(queued).toMatchObject({ type: "queued", version: "v1" });
    const hello = await bot.next("hello");
    expect(HelloMessage.safeParse(hello).error).toBeUndefined();
    // playUntilEnd answers hellos that arrive later; this one is already here, so accept it now (without
    // `ready` the bot would forfeit at tick 0 and no observation would be played).
    bot.send({ type: "ready" });
    let observations = 0;
    const end = await bot.playUntilEnd((o) => {
      observations++;
      expect(ObservationMessage.safeParse(o).error).toBeUndefined();
      return { type: "turn", tick: o.tick, move: (o.moves as { dir: string }[])[0]?.dir };
    });
    expect(EndMessage.safeParse(end).error).toBeUndefined();
    expect(end.reason).not.toBe("forfeit");
    expect(observations).toBe(end.final_tick); // ticks 0 .. final_tick - 1 were played
    const id = end.match_id as string;
    const match = await srv.get<{ id: string; final_tick: number; bots: { name: string }[] }>(
      `/api/matches/${id}`,
    );
    expect(match.status).toBe(200);
    expect(match.body.final_tick).toBe(end.final_tick);
    expect(match.body.bots.map((b) => b.name)).toContain("smoke-bot");
    const stats = await srv.get(`/api/matches/${id}/stats`);
    expect(stats.status).toBe(200);
    const replay = await fetch(`${srv.url}/replays/${id}.jsonl.gz`);
    expect(replay.status).toBe(200);
    expect(replay.headers.get("content-type")).toBe("application/gzip");
    bot.close();
  });
});
