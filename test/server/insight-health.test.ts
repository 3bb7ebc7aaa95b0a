// Issue 33, parts 1 and 2, on the real server (port 0, PGlite or PostgreSQL with DATABASE_URL) with a real
// WebSocket bot: a bot that sends an unknown direction and an unknown attack on every tick (and once answers
// a tick after its deadline) plays a house bot. Every figure of its health (GET /api/bots/<name>, the bot
// page), of the match page and of GET /api/me is checked against what it did; then the owner's diagnostics
// (GET /api/account/bots/<name>/matches/<id>/diagnostics and the MCP tool) list its refusals and its late
// reply, and are refused to another account, a bot token and a request without a credential.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Diagnostics } from "../../server/insight/schemas.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { agentKey, keyClient } from "../helpers/mcp.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

type Msg = { type: string; [k: string]: unknown };
type Json = Record<string, unknown>;

const TICK_MS = 200;
/** The tick the bot answers only after its deadline, when the next observation is already there. */
const LATE_TICK = 5;
const pct = (n: number, of: number) => Math.round((n / of) * 10_000) / 100;

let srv: TestServer;
let ada: SignedIn;
let bea: SignedIn;
let adaKey: string;
let beaKey: string;
let token: string;
let matchId: string;
let ticks: number;
let end: Msg;

beforeAll(async () => {
  srv = await startAccountServer({ tickMs: TICK_MS, startupMs: 1000 });
  ada = await signUp(srv, "ada@example.test", "ada");
  bea = await signUp(srv, "bea@example.test", "bea");
  adaKey = (await agentKey(srv.url, ada.access)).key;
  beaKey = (await agentKey(srv.url, bea.access)).key;
  const made = await call(srv.url, "POST", "/api/account/bots", {
    token: ada.access,
    body: { name: "broken" },
  });
  expect(made.status).toBe(201);
  token = made.body.token as string;

  const bot = new BotClient(srv.wsUrl, token);
  await bot.open();
  const hello = await bot.queueForMatch("v1");
  matchId = hello.match_id as string;
  const since = bot.received.length;
  const broken = (tick: number) => ({
    type: "turn",
    tick,
    move: "sideways",
    attack: { name: "laser", target: [0, 0] },
  });
  const stop = bot.autoplay((o) => {
    const tick = o.tick as number;
    if (tick === LATE_TICK) return undefined; // no answer in time: the server idles the tick
    if (tick === LATE_TICK + 1) bot.send(broken(LATE_TICK)); // the late answer, dropped but timed
    return broken(tick);
  });
  bot.send({ type: "ready" });
  end = await bot.next("end", undefined, 120_000, since);
  stop();
  bot.ws.close();
  ticks = (end.stats as { ticks: number }).ticks;
}, 180_000);

afterAll(async () => {
  await srv?.stop();
});

describe("health that tells the truth (issue 33, part 1)", () => {
  it("records the refused turns in the match's stats, without the owner's diagnostics", async () => {
    expect(ticks).toBeGreaterThan(LATE_TICK + 1);
    const stats = end.stats as { fighters: Json[]; diagnostics?: unknown };
    expect(stats.diagnostics).toBeUndefined();
    const f = stats.fighters.find((x) => x.name === "broken")!;
    expect(f.refused_turns).toBe(0); // no turn was refused as a whole: each part was
    expect(f.refused_all_parts).toBe(ticks - 1);
    expect(f.rejected).toEqual({ schema: ticks - 1, unknown_attack: ticks - 1 });
    expect(f.refused_ticks_by_reason).toEqual({ schema: ticks - 1, unknown_attack: ticks - 1 });
    expect(f.server_idles).toEqual({ timeout: 1 });
    const publicStats = await srv.get<Json>(`/api/matches/${matchId}/stats`);
    expect(publicStats.status).toBe(200);
    expect(publicStats.body.diagnostics).toBeUndefined();
    const listed = await srv.get<Json[]>("/api/matches?bot=broken&stats=1");
    expect((listed.body[0]!.stats as Json).diagnostics).toBeUndefined();
  });

  it("GET /api/bots/<name>: idle, refused and lost turns, by reason, and the way to ranked", async () => {
    const res = await srv.get<{ versions: Json[]; qualifying_games: number }>("/api/bots/broken");
    expect(res.status).toBe(200);
    const v = res.body.versions.find((x) => x.label === "v1")!;
    const h = v.health as Json;
    expect(h).toMatchObject({
      matches: 1,
      turns: ticks,
      idle_turns: 1,
      idle_pct: pct(1, ticks),
      idle_pct_by_reason: { timeout: pct(1, ticks) },
      refused_turns: ticks - 1,
      refused_pct: pct(ticks - 1, ticks),
      refused_pct_by_reason: { schema: pct(ticks - 1, ticks), unknown_attack: pct(ticks - 1, ticks) },
      refused_parts_by_reason: { schema: ticks - 1, unknown_attack: ticks - 1 },
      lost_turns: ticks,
      lost_pct: 100,
      disconnects: 0,
      disqualifications: 0,
    });
    expect(v).toMatchObject({ rated_games: 1, qualifying_games: 30, provisional: true });
    expect(res.body.qualifying_games).toBe(30);
  });

  it("the bot page shows the same figures and the rated games to ranked", async () => {
    const page = await (await fetch(`${srv.url}/bot/broken`)).text();
    const cell = (name: string) => new RegExp(`data-health="${name}">([^<]*)<`).exec(page)?.[1];
    expect(cell("idle")).toBe(`${pct(1, ticks)} %`);
    expect(cell("refused")).toBe(`${pct(ticks - 1, ticks)} %`);
    expect(cell("lost")).toBe("100 %");
    expect(cell("refused-by-reason")).toBe(
      `schema ${pct(ticks - 1, ticks)} %, unknown_attack ${pct(ticks - 1, ticks)} %`,
    );
    expect(page).toContain('data-standing="v1">1 of 30 rated games to ranked<');
    expect(page).toContain("badge provisional");
    expect(page).toMatch(/Until then its rating is provisional/);
  });

  it("the match page counts the lost turns and marks the rating provisional", async () => {
    const page = await (await fetch(`${srv.url}/match/${matchId}`)).text();
    // The broken bot's row: its turn cells come after its name.
    const row = page.slice(page.indexOf('href="/bot/broken"'));
    const cell = (name: string) => new RegExp(`data-turns="${name}"[^>]*>([^<]*)<`).exec(row)?.[1];
    expect(cell("idle")).toBe("1");
    expect(cell("refused")).toBe(String(ticks - 1));
    expect(cell("lost")).toBe(String(ticks));
    expect(row).toContain("badge provisional");
    expect(page).toContain("v1: 1 of 30 rated games to ranked.");
    // The diagnostics are not in the page: only an empty section the owner's browser fills.
    expect(page).toContain('id="diagnostics"');
    expect(page).not.toContain("deadline_misses");
    expect(page).not.toContain("late_ms");
  });

  it("GET /api/me carries the rated games and whether the rating is provisional", async () => {
    const me = await call(srv.url, "GET", "/api/me", { token });
    expect(me.status).toBe(200);
    const v = (me.body.versions as Json[]).find((x) => x.label === "v1")!;
    expect(v).toMatchObject({ rated_games: 1, qualifying_games: 30, provisional: true });
  });
});

describe("owner diagnostics per match (issue 33, part 2)", () => {
  const path = () => `/api/account/bots/broken/matches/${matchId}/diagnostics`;

  it("shows the owner every refused part, the missed deadline and how late its reply came", async () => {
    const res = await call(srv.url, "GET", path(), { token: ada.access });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(Diagnostics.safeParse(res.body).error).toBeUndefined();
    const d = res.body as ReturnType<typeof Diagnostics.parse>;
    expect(d).toMatchObject({ match_id: matchId, bot: "broken", version: "v1", detailed: true, ticks });
    expect(d.turns).toEqual({
      turns: ticks,
      idle: 1,
      idle_by_reason: { timeout: 1 },
      refused: ticks - 1,
      refused_ticks_by_reason: { schema: ticks - 1, unknown_attack: ticks - 1 },
      refused_parts_by_reason: { schema: ticks - 1, unknown_attack: ticks - 1 },
      lost: ticks,
    });
    // Runs of the same part and reason: ticks 0-4, then (after the idled tick 5) 6 to the last.
    expect(d.refusals).toEqual([
      { tick: 0, to_tick: LATE_TICK - 1, ticks: LATE_TICK, part: "move", reason: "schema" },
      { tick: 0, to_tick: LATE_TICK - 1, ticks: LATE_TICK, part: "attack", reason: "unknown_attack" },
      {
        tick: LATE_TICK + 1,
        to_tick: ticks - 1,
        ticks: ticks - LATE_TICK - 1,
        part: "move",
        reason: "schema",
      },
      {
        tick: LATE_TICK + 1,
        to_tick: ticks - 1,
        ticks: ticks - LATE_TICK - 1,
        part: "attack",
        reason: "unknown_attack",
      },
    ]);
    expect(d.refusals_dropped).toBe(0);
    expect(d.deadline_misses).toHaveLength(1);
    const miss = d.deadline_misses[0]!;
    expect(miss.tick).toBe(LATE_TICK);
    expect(miss.waited_ms).toBe(TICK_MS);
    // It answered once the next observation came, which is after the deadline and before the next one.
    expect(miss.late_ms).not.toBeNull();
    expect(miss.late_ms!).toBeGreaterThanOrEqual(0);
    expect(miss.late_ms!).toBeLessThan(TICK_MS * 10);
    expect(d.disconnect_runs).toEqual([]);
    expect(d.timing.replies).toBe(ticks - 1);
    expect(d.timing.histogram.reduce((a, b) => a + b, 0)).toBe(ticks - 1);
    expect(d.timing.budget_ms_left).toBeLessThan(d.timing.budget_ms);
  });

  it("answers the owner's agent key and the MCP tool get_match_diagnostics the same", async () => {
    const byKey = await call(srv.url, "GET", path(), { token: adaKey });
    expect(byKey.status).toBe(200);
    const bySession = await call(srv.url, "GET", path(), { token: ada.access });
    expect(byKey.body).toEqual(bySession.body);
    const client = await keyClient(srv.url, adaKey);
    try {
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain("get_match_diagnostics");
      const r = (await client.callTool({
        name: "get_match_diagnostics",
        arguments: { name: "broken", id: matchId },
      })) as CallToolResult;
      expect(r.isError ?? false).toBe(false);
      expect(JSON.parse((r.content[0] as { text: string }).text)).toEqual(bySession.body);
      const other = (await client.callTool({
        name: "get_match_diagnostics",
        arguments: { name: "someone-else", id: matchId },
      })) as CallToolResult;
      expect(other.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it("is refused to another account, a bot token and a request without a credential", async () => {
    for (const other of [bea.access, beaKey]) {
      const r = await call(srv.url, "GET", path(), { token: other });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("no_such_bot");
      expect(JSON.stringify(r.body)).not.toContain("unknown_attack");
    }
    const asBot = await call(srv.url, "GET", path(), { token });
    expect(asBot.status).toBe(401);
    expect(asBot.body.code).toBe("invalid_session");
    const none = await call(srv.url, "GET", path());
    expect(none.status).toBe(401);
    expect(none.body.code).toBe("missing_authorization");
    for (const r of [asBot, none]) expect(r.headers.get("cache-control")).toBe("private, no-store");
    // The owner asking about a match the bot did not play, or one that does not exist.
    const unknown = await call(srv.url, "GET", "/api/account/bots/broken/matches/nope/diagnostics", {
      token: ada.access,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("no_such_match");
  });
});
