// Keyset paging of the match lists (issue 38): `GET /api/matches?before=<match id>` returns only matches older
// than that one, so a client walking pages with the id of each page's last match sees every match exactly once,
// even while new matches are stored between its requests. On the real server (PGlite, or PostgreSQL with
// DATABASE_URL), for the whole list, a ladder's and a bot's; an unknown cursor is a 400.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BotRow } from "../../server/store/types.ts";
import { matchRecord } from "../helpers/match-records.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let a: BotRow;
let b: BotRow;
let c: BotRow;
let n = 0;

type M = { id: string; bots: { name: string }[] };

/** Stores `count` matches (newest last), each between two of the three bots in turn; returns their ids. */
async function store(count: number): Promise<string[]> {
  const pairs: [BotRow, BotRow][] = [
    [a, b],
    [b, c],
    [c, a],
  ];
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const [x, y] = pairs[n % 3]!;
    const id = `cursor-${String(++n).padStart(4, "0")}`;
    await srv.app.ctx.matchStore.saveMatch(matchRecord(id, [x, y]));
    ids.push(id);
  }
  return ids;
}

/** Walks the list from the newest with pages of `limit`, storing `between` new matches before each next page. */
async function walk(
  query: string,
  limit: number,
  between: number,
): Promise<{ seen: string[]; pages: number }> {
  const seen: string[] = [];
  let before: string | undefined;
  let pages = 0;
  for (;;) {
    const url = `/api/matches?limit=${limit}${query}${before ? `&before=${before}` : ""}`;
    const res = await srv.get<M[]>(url);
    expect(res.status, url).toBe(200);
    pages++;
    seen.push(...res.body.map((m) => m.id));
    if (res.body.length < limit) return { seen, pages };
    // A cursor that did not move the page on would walk forever.
    expect(pages, "pages walked").toBeLessThan(50);
    before = res.body.at(-1)!.id;
    await store(between);
  }
}

beforeAll(async () => {
  srv = await startServer();
  const made = async (name: string) =>
    (await srv.app.ctx.botStore.createBot({ name, owner: name, house: false })).bot;
  a = await made("cursor-a");
  b = await made("cursor-b");
  c = await made("cursor-c");
});
afterAll(() => srv?.stop());

describe("match list keyset cursor", () => {
  it("pages through every match exactly once, newest first, while new matches arrive", async () => {
    const initial = await store(23);
    const { seen, pages } = await walk("", 5, 2);
    expect(pages).toBe(5);
    // No duplicates, no gaps: exactly the matches stored before the walk began (the new ones are newer than the
    // first page, so the walk never reaches them), newest first.
    expect(seen).toEqual([...initial].reverse());
    // The new matches are at the head of a fresh first page.
    const head = await srv.get<M[]>("/api/matches?limit=8");
    expect(head.body.map((m) => m.id)).toEqual(
      Array.from({ length: 8 }, (_, i) => `cursor-${String(n - i).padStart(4, "0")}`),
    );
  });

  it("pages a ladder's list and a bot's list the same way", async () => {
    const all = (await srv.get<M[]>("/api/matches?limit=500")).body.map((m) => m.id);
    const ladder = await walk("&ladder=public", 7, 1);
    expect(ladder.seen).toEqual(all);

    const ofA = (await srv.get<M[]>("/api/matches?limit=500&bot=cursor-a")).body;
    expect(ofA.every((m) => m.bots.some((x) => x.name === "cursor-a"))).toBe(true);
    const walked = await walk("&bot=cursor-a", 4, 3);
    expect(walked.seen).toEqual(ofA.map((m) => m.id));
    expect(new Set(walked.seen).size).toBe(walked.seen.length);
  });

  it("a cursor at the oldest match gives an empty page; an unknown one is a 400", async () => {
    const oldest = "cursor-0001";
    expect((await srv.get<M[]>(`/api/matches?before=${oldest}`)).body).toEqual([]);
    const bad = await srv.get<{ error: string; code: string }>("/api/matches?before=no-such-match");
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("bad_request");
    expect(bad.body.error).toContain("no-such-match");
    expect((await srv.get("/api/matches?before=")).status).toBe(400);
  });
});
