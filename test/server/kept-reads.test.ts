// Reads kept by what they are made from (issue 38; server/kernel/kept.ts) on the real server: a repeated view of
// a page or a bot's, an owner's or the leaderboard's JSON is the same answer (the same bytes and ETag, a 304 for
// a client that sends the ETag back), and a result makes every one of them new at once: the bot page and its
// JSON show the match, the owner's page its record, the home page's and the dashboard's recent matches it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let token = "";

async function view(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${srv.url}${path}`, { headers });
  return { status: res.status, etag: res.headers.get("etag"), text: await res.text() };
}

const PATHS = ["/bot/kept-bot", "/user/kay", "/", "/ladder", "/api/bots/kept-bot", "/api/users/kay"];

beforeAll(async () => {
  // Short startup window: the match below is a forfeit, over as soon as the window closes.
  srv = await startServer({ tickMs: 200, startupMs: 300 });
  token = await srv.register("kept-bot", "kay");
});

afterAll(async () => {
  await srv?.stop();
});

describe("kept reads", () => {
  it("answer a repeated view with the same text, and JSON with the same ETag (304 when it is sent back)", async () => {
    for (const path of PATHS) {
      const a = await view(path);
      const b = await view(path);
      expect(a.status, path).toBe(200);
      expect(b.text, path).toBe(a.text);
      if (path.startsWith("/api/")) {
        expect(a.etag, path).toMatch(/^".+"$/);
        expect(b.etag, path).toBe(a.etag);
        const again = await view(path, { "if-none-match": a.etag! });
        expect(again.status, path).toBe(304);
        expect(again.text, path).toBe("");
        // Sent as it was built: the same JSON the answer's fields say.
        expect(JSON.parse(a.text)).toBeTypeOf("object");
      }
    }
    const board = await view("/api/leaderboard");
    expect((await view("/api/leaderboard")).etag).toBe(board.etag);
    expect((await view("/api/leaderboard", { "if-none-match": board.etag! })).status).toBe(304);
    // Another tag is answered in full.
    expect((await view("/api/bots/kept-bot", { "if-none-match": '"other"' })).status).toBe(200);
  });

  it("make every answer new after a result", async () => {
    const before = new Map<string, Awaited<ReturnType<typeof view>>>();
    for (const path of PATHS) before.set(path, await view(path));
    const bot = JSON.parse(before.get("/api/bots/kept-bot")!.text) as { recent_matches: unknown[] };
    expect(bot.recent_matches).toEqual([]);

    // One rated match: the bot queues, is paired with a house bot, never sends `ready`, forfeits.
    const live = new BotClient(srv.wsUrl, token);
    await live.open();
    live.send({ type: "queue", version: "v1" });
    const hello = await live.next("hello");
    const matchId = hello.match_id as string;
    await live.next("end", undefined, 15_000);
    live.close();
    await live.closed();
    // The result is stored once the match list names it.
    for (let i = 0; i < 100; i++) {
      const list = (await srv.get<{ id: string }[]>("/api/matches?limit=5")).body;
      if (list.some((m) => m.id === matchId)) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    const after = await view("/api/bots/kept-bot");
    expect(after.etag).not.toBe(before.get("/api/bots/kept-bot")!.etag);
    const json = JSON.parse(after.text) as {
      recent_matches: { id: string }[];
      versions: { label: string; losses: number }[];
    };
    expect(json.recent_matches.map((m) => m.id)).toEqual([matchId]);
    expect(json.versions.find((v) => v.label === "v1")?.losses).toBe(1);
    // The stale tag is not answered with a 304.
    expect(
      (await view("/api/bots/kept-bot", { "if-none-match": before.get("/api/bots/kept-bot")!.etag! })).status,
    ).toBe(200);
    for (const path of ["/bot/kept-bot", "/", "/ladder"]) {
      const page = await view(path);
      expect(page.text, path).not.toBe(before.get(path)!.text);
      expect(page.text, path).toContain(matchId);
    }
    // The owner's record counts the loss.
    const user = JSON.parse((await view("/api/users/kay")).text) as { bots: { losses: number }[] };
    expect(user.bots[0]!.losses).toBe(1);
    expect((await view("/user/kay")).text).not.toBe(before.get("/user/kay")!.text);
  });
});
