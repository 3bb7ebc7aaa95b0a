// The settlement phase on the real server (issue 34, part 4) with real WebSocket bots, on a ladder whose
// window was shortened to twenty minutes: staff schedule a settlement (top 3, a budget of 6 extra games); from
// then the top 3 play only their frozen versions, a new version (of a top bot, or a label another bot did not
// have) is refused with `settlement_frozen` and not registered, the bots outside the top 3 play nothing, every settlement game pairs two of the top 3, the budget is respected; the
// final standings are published once (a second write is refused by the service and by the database, an
// UPDATE or DELETE by the trigger) and their JSON does not change when the ladder plays on afterwards. The
// ladder page shows the phase and links the final standings page, which renders them. A scheduled settlement
// can be changed (PUT) or cancelled before it begins, not after; one can end an event's window.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { ApiError } from "../../server/errors.ts";
import type { EventDefinition } from "../../server/ladders/event-definition.ts";
import { FinalStandings, Settlement } from "../../server/settlement/schemas.ts";
import type { BotRow } from "../../server/store/types.ts";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { ladderDef } from "../helpers/ladders.ts";
import { playRated } from "../helpers/rated-game.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

const LADDER = "season";
/** The window, shortened to end twenty minutes from now: the settlement ends by then at the latest. */
const CLOSES_AT = new Date(Date.now() + 20 * 60_000).toISOString();
const NAMES = ["st-one", "st-two", "st-three", "st-four", "st-five"];

/** An event on the public ladder: its page shows the public ladder's settlement phase. */
const PUBLIC_EVENT: EventDefinition = {
  id: "cup",
  name: "The cup",
  description: "",
  ladder_id: "public",
  opens_at: new Date(Date.now() - 3_600_000).toISOString(),
  closes_at: new Date(Date.now() + 3_600_000).toISOString(),
  timezone: "UTC",
  enabled: true,
  achievements: [
    { id: "one", name: "One", description: "", condition: { opponent: "official", matches: 1 } },
  ],
  opponents: [{ kind: "house", name: "kiter", display_name: "Kiter" }],
  metadata: null,
  submission_url: null,
  submission_instructions: "",
  flag_mode: "official",
};

let srv: TestServer;
let root: SignedIn;
const tokens = new Map<string, string>();
const rows = new Map<string, BotRow>();
const players = new Map<string, Player>();

type Msg = { type: string; [k: string]: unknown };

/** A bot that queues on the ladder with its version, plays idle turns, and queues again after each end. */
class Player {
  readonly client: BotClient;
  readonly hellos: Msg[] = [];
  readonly errors: Msg[] = [];
  stopped = false;
  /** Stop queuing again after this many ends (held until `resume`); null: always queue again. */
  pauseAfter: number | null = null;
  private ends = 0;
  private held = false;
  constructor(
    token: string,
    public version: string,
  ) {
    this.client = new BotClient(srv.wsUrl, token);
    this.client.ws.on("message", (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as Msg;
      if (m.type === "hello") {
        this.hellos.push(m);
        this.client.send({ type: "ready" });
      } else if (m.type === "observation") this.client.send({ type: "turn", tick: m.tick });
      else if (m.type === "end" && !this.stopped) {
        if (this.pauseAfter !== null && ++this.ends >= this.pauseAfter) this.held = true;
        else this.queue();
      } else if (m.type === "error") this.errors.push(m);
    });
  }
  async start(): Promise<void> {
    await this.client.open();
    this.queue();
  }
  queue(): void {
    this.client.send({ type: "queue", version: this.version, ladder_id: LADDER });
  }
  /** Queues again after a pause (see pauseAfter). */
  resume(): void {
    this.pauseAfter = null;
    if (this.held) {
      this.held = false;
      this.queue();
    }
  }
  /** Leaves the queue and queues again with another version. */
  requeue(version: string): void {
    this.version = version;
    this.client.send({ type: "leave" });
    this.queue();
  }
}

const api = (method: string, path: string, body?: unknown, who: SignedIn | null = root) =>
  call(srv.url, method, path, {
    ...(who ? { token: who.access } : {}),
    ...(body !== undefined ? { body } : {}),
  });

async function until<T>(fn: () => Promise<T | null | undefined | false>, ms = 240_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 200));
  }
}

type SettlementJ = {
  id: string;
  state: string;
  top_k: number;
  game_budget: number;
  began_at: string | null;
  ended_at: string | null;
  frozen: { rank: number; name: string; version: string }[] | null;
  games_started: number;
  games_played: number;
  games: { match_id: string; bots: string[]; ended: string | null }[];
  final_url: string | null;
};
const settlement = async () => (await srv.get<SettlementJ>(`/api/ladders/${LADDER}/settlement`)).body;
/** The ladder's rated results in the database. */
const ladderMatches = () => srv.app.ctx.ratingStore.ratedResults(LADDER);
const page = async (path: string) => {
  const r = await fetch(`${srv.url}${path}`);
  return { status: r.status, text: await r.text() };
};

beforeAll(async () => {
  srv = await startAccountServer(
    { adminEmails: ["root@settle.test"] },
    {
      manifest: {
        version: 1,
        ladders: [
          ladderDef("public"),
          ladderDef(LADDER, { name: "Season", house_bots: false, closes_at: CLOSES_AT }),
        ],
        events: [PUBLIC_EVENT],
      },
    },
  );
  root = await signUp(srv, "root@settle.test", "root");
  for (const [i, name] of NAMES.entries()) {
    const owner = await signUp(srv, `owner${i}@settle.test`, `owner${i}`);
    const r = await api("POST", "/api/account/bots", { name }, owner);
    expect(r.status).toBe(201);
    tokens.set(name, r.body.token as string);
    const row = (await srv.app.ctx.botStore.botByName(name))!;
    rows.set(name, row);
    await srv.app.ctx.botStore.ensureVersion(row.id, "v1");
  }
  // Ten games per pair: the earlier named bot scores 6.5 of 10 against each later one, so the order is known
  // and neighbours' rank intervals overlap. Forty games each: every version is ranked (30).
  for (let i = 0; i < NAMES.length; i++)
    for (let j = i + 1; j < NAMES.length; j++) {
      const [x, y] = [rows.get(NAMES[i]!)!, rows.get(NAMES[j]!)!];
      for (let g = 0; g < 10; g++) await playRated(srv, x, y, g < 6 ? 1 : g < 9 ? 0 : 0.5, LADDER);
    }
}, 180_000);

afterAll(async () => {
  for (const p of players.values()) {
    p.stopped = true;
    p.client.close();
  }
  await srv?.stop();
});

describe("a settlement phase", () => {
  it("is scheduled by staff only, with an end inside the window, one at a time", async () => {
    const board = (await srv.get<{ name: string }[]>(`/api/leaderboard?ladder=${LADDER}`)).body;
    expect(board.map((r) => r.name)).toEqual(NAMES);
    expect((await srv.get(`/api/ladders/${LADDER}/settlement`)).status).toBe(404);

    const anon = await api(
      "POST",
      `/api/admin/ladders/${LADDER}/settlement`,
      { top_k: 3, game_budget: 6 },
      null,
    );
    expect(anon.status).toBe(401);
    const late = await api("POST", `/api/admin/ladders/${LADDER}/settlement`, {
      top_k: 3,
      game_budget: 6,
      ends_at: new Date(Date.parse(CLOSES_AT) + 60_000).toISOString(),
    });
    expect(late.status).toBe(400);
    expect(late.body.code).toBe("invalid_settlement");
    // The public ladder never closes: its settlement needs an end.
    const endless = await api("POST", "/api/admin/ladders/public/settlement", { top_k: 3, game_budget: 6 });
    expect(endless.status).toBe(400);
    expect(endless.body.code).toBe("invalid_settlement");
    const bad = await api("POST", `/api/admin/ladders/${LADDER}/settlement`, { top_k: 1, game_budget: 6 });
    expect(bad.status).toBe(400);

    // One scheduled to start later can be cancelled (by staff only) before it begins; then there is none.
    const later = await api("POST", `/api/admin/ladders/${LADDER}/settlement`, {
      top_k: 3,
      game_budget: 6,
      starts_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(later.status, JSON.stringify(later.body)).toBe(201);
    expect(later.body).toMatchObject({ state: "scheduled" });
    // Changed before it begins (staff only): the body replaces the schedule, checked as a new one; same id.
    const change = {
      top_k: 4,
      game_budget: 9,
      starts_at: new Date(Date.now() + 120_000).toISOString(),
      duration_s: 300,
    };
    expect((await api("PUT", `/api/admin/ladders/${LADDER}/settlement`, change, null)).status).toBe(401);
    const changed = await api("PUT", `/api/admin/ladders/${LADDER}/settlement`, change);
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({
      id: (later.body as SettlementJ).id,
      state: "scheduled",
      top_k: 4,
      game_budget: 9,
      starts_at: change.starts_at,
      ends_at: new Date(Date.parse(change.starts_at) + 300_000).toISOString(),
      event_id: null,
    });
    expect((await settlement()).top_k).toBe(4);
    const pastClose = await api("PUT", `/api/admin/ladders/${LADDER}/settlement`, {
      ...change,
      duration_s: undefined,
      ends_at: new Date(Date.parse(CLOSES_AT) + 60_000).toISOString(),
    });
    expect(pastClose.status).toBe(400);
    expect(pastClose.body.code).toBe("invalid_settlement");
    expect((await settlement()).game_budget).toBe(9);
    expect((await api("DELETE", `/api/admin/ladders/${LADDER}/settlement`, undefined, null)).status).toBe(
      401,
    );
    const cancelled = await api("DELETE", `/api/admin/ladders/${LADDER}/settlement`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body).toEqual({ cancelled: (later.body as SettlementJ).id, ladder_id: LADDER });
    expect((await srv.get(`/api/ladders/${LADDER}/settlement`)).status).toBe(404);
    expect((await api("DELETE", `/api/admin/ladders/${LADDER}/settlement`)).body.code).toBe("no_settlement");
    expect(
      (await api("PUT", `/api/admin/ladders/${LADDER}/settlement`, { top_k: 3, game_budget: 6 })).body.code,
    ).toBe("no_settlement");

    // No end given: the ladder's (shortened) closing.
    const made = await api("POST", `/api/admin/ladders/${LADDER}/settlement`, { top_k: 3, game_budget: 6 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({ state: "settling", top_k: 3, game_budget: 6, ends_at: CLOSES_AT });
    expect((made.body as SettlementJ).frozen!.map((f) => [f.name, f.version])).toEqual([
      ["st-one", "v1"],
      ["st-two", "v1"],
      ["st-three", "v1"],
    ]);
    const again = await api("POST", `/api/admin/ladders/${LADDER}/settlement`, { top_k: 3, game_budget: 6 });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("settlement_exists");
    // One that has begun runs to its end.
    const stop = await api("DELETE", `/api/admin/ladders/${LADDER}/settlement`);
    expect(stop.status).toBe(409);
    expect(stop.body.code).toBe("settlement_started");
    const edit = await api("PUT", `/api/admin/ladders/${LADDER}/settlement`, { top_k: 2, game_budget: 1 });
    expect(edit.status).toBe(409);
    expect(edit.body.code).toBe("settlement_started");
    expect((await settlement()).top_k).toBe(3);

    // The ladder page shows the phase (contributed by the settlement feature, not the page's file).
    const ladderPage = await page(`/ladder?ladder=${LADDER}`);
    expect(ladderPage.text).toContain("Settling: versions frozen, 0 of 6 extra games played");
    expect((await page("/ladder")).text).not.toContain("settlement-notice");
  });

  it("freezes versions and plays its extra games only among the top K, within the budget", async () => {
    const s0 = await settlement();
    const before = new Set((await ladderMatches()).map((m) => m.match_id));
    // st-three comes back with a new version, st-five with a label it never had: both new versions, refused;
    // st-four queues the version it had: admitted as usual (it waits for the end).
    for (const [name, version] of [
      ["st-three", "v2"],
      ["st-four", "v1"],
      ["st-five", "v7"],
      ["st-one", "v1"],
      ["st-two", "v1"],
    ] as const) {
      const p = new Player(tokens.get(name)!, version);
      // st-one and st-two play two settlement games, then wait until st-three has queued: on a fast machine
      // they would otherwise play the whole budget before it does.
      if (name === "st-one" || name === "st-two") p.pauseAfter = 2;
      players.set(name, p);
      await p.start();
    }
    await until(
      async () => players.get("st-three")!.errors.length > 0 && players.get("st-five")!.errors.length > 0,
    );
    const [three] = players.get("st-three")!.errors;
    expect(three).toMatchObject({ type: "error", code: "settlement_frozen" });
    expect(three!.message).toContain('frozen version "v1"');
    const [five] = players.get("st-five")!.errors;
    expect(five).toMatchObject({ type: "error", code: "settlement_frozen" });
    expect(five!.message).toContain('"v7" is new');
    // Refused, not registered: neither label became a version.
    expect(await srv.app.ctx.botStore.version(rows.get("st-three")!.id, "v2")).toBeNull();
    expect(await srv.app.ctx.botStore.version(rows.get("st-five")!.id, "v7")).toBeNull();
    // st-five queues the version it had: admitted, and waits like st-four.
    players.get("st-five")!.version = "v1";
    players.get("st-five")!.queue();
    // Only st-one and st-two can play (st-three's frozen version is not queued): two games between them.
    await until(async () => (await settlement()).games_played >= 2);
    for (const name of ["st-three", "st-four", "st-five"])
      expect(players.get(name)!.hellos, name).toEqual([]);
    expect(players.get("st-four")!.errors).toEqual([]);
    expect(players.get("st-five")!.errors).toHaveLength(1);
    const mid = await settlement();
    for (const g of mid.games) expect([...g.bots].sort()).toEqual(["st-one", "st-two"]);
    // The frozen version queues: the pair st-two / st-three becomes possible.
    players.get("st-three")!.version = "v1";
    players.get("st-three")!.queue();
    await until(async () => srv.app.ctx.lobby.get(rows.get("st-three")!.id)?.state === "waiting");
    players.get("st-one")!.resume();
    players.get("st-two")!.resume();

    const done = await until(async () => {
      const s = await settlement();
      return s.state === "final" ? s : null;
    });
    expect(done.id).toBe(s0.id);
    // Once it has ended, a new version is admitted again.
    expect(srv.app.ctx.ladders.mayQueue(rows.get("st-three")!, LADDER, Date.now(), "v2")).toEqual({
      ladderId: LADDER,
    });
    // The answer is the documented one (/openapi.json's schema).
    expect(Settlement.strict().safeParse(done).success).toBe(true);
    // The budget: exactly the budget was started (the settlement ended by it) and every game was played.
    expect(done.games_started).toBe(6);
    expect(done.games_played).toBe(6);
    expect(done.games).toHaveLength(6);
    const top = new Set(["st-one", "st-two", "st-three"]);
    const settlementIds = new Set(done.games.map((g) => g.match_id));
    // Every rated game of the ladder that started before the settlement ended is a settlement game between
    // two of the top 3, at their frozen versions, paired as a settlement game (the ladder plays on after it).
    type MatchJ = {
      mode: string;
      started: string;
      bots: { name: string; version: string }[];
      pairing: { reason: string } | null;
    };
    const match = async (id: string) => (await srv.get<MatchJ>(`/api/matches/${id}`)).body;
    const endedAt = Date.parse(done.ended_at!);
    const during: string[] = [];
    for (const r of await ladderMatches()) {
      if (before.has(r.match_id)) continue;
      const m = await match(r.match_id);
      if (Date.parse(m.started) < endedAt) during.push(r.match_id);
    }
    expect(during.sort()).toEqual([...settlementIds].sort());
    for (const id of during) {
      const m = await match(id);
      expect(m.mode).toBe("ranked");
      expect(m.pairing?.reason).toBe("settlement");
      for (const b of m.bots) {
        expect(top.has(b.name), b.name).toBe(true);
        expect(b.version).toBe("v1");
      }
    }
    // st-three played once it queued its frozen version, never with v2; the two outside the top K only after
    // the settlement ended.
    const versions = (h: Msg) => (h.fighters as { name: string; version: string }[]).map((f) => f.version);
    expect(players.get("st-three")!.hellos.every((h) => versions(h).every((v) => v === "v1"))).toBe(true);
    expect(done.games.some((g) => g.bots.includes("st-three"))).toBe(true);
    for (const name of ["st-four", "st-five"])
      for (const h of players.get(name)!.hellos) {
        expect(settlementIds.has(h.match_id as string), name).toBe(false);
        const m = await match(h.match_id as string);
        if (m.started) expect(Date.parse(m.started)).toBeGreaterThanOrEqual(endedAt);
      }
  }, 300_000);

  it("publishes immutable final standings, as JSON and a page", async () => {
    const first = await srv.get<{
      settlement_id: string;
      games_played: number;
      standings: { rank: number; name: string; version: string; settled: boolean; rank_low: number | null }[];
    }>(`/api/ladders/${LADDER}/settlement/final`);
    expect(first.status).toBe(200);
    expect(first.body.games_played).toBe(6);
    expect(FinalStandings.safeParse(first.body).error).toBeUndefined();
    expect(first.body.standings).toHaveLength(5);
    expect(
      first.body.standings
        .filter((r) => r.settled)
        .map((r) => r.name)
        .sort(),
    ).toEqual(["st-one", "st-three", "st-two"].sort());
    for (const r of first.body.standings) expect(r.rank_low).not.toBeNull();

    // A second publication is refused, by the service and by the database.
    const svc = srv.app.ctx.settlement.settlement;
    const row = { id: first.body.settlement_id, ladder_id: LADDER, top_k: 3 } as never;
    const second = await svc.publish(row, 0, [], new Date().toISOString()).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(ApiError);
    expect((second as ApiError).code).toBe("settlement_final");
    const db = srv.app.ctx.store.db;
    await expect(db.query("UPDATE settlement_snapshots SET standings = '[]'::jsonb")).rejects.toThrow(
      /immutable/,
    );
    await expect(db.query("DELETE FROM settlement_snapshots")).rejects.toThrow(/immutable/);
    await expect(
      db.query(
        "INSERT INTO settlement_snapshots (settlement_id, ladder_id, top_k, games_played, standings) VALUES ($1, $2, 3, 0, '[]'::jsonb)",
        [first.body.settlement_id, LADDER],
      ),
    ).rejects.toThrow();

    // The ladder plays on (the matchmaker pairs again, the bots outside the top K too): the standings stay.
    const after = await until(async () => {
      const four = players.get("st-four")!.hellos.length + players.get("st-five")!.hellos.length;
      const finished = (await ladderMatches()).length;
      return four >= 1 ? finished : null;
    });
    await until(async () => (await ladderMatches()).length > after + 1);
    const board = (
      await srv.get<{ name: string; wins: number; losses: number; draws: number }[]>(
        `/api/leaderboard?ladder=${LADDER}`,
      )
    ).body;
    const games = (rs: { wins: number; losses: number; draws: number }[]) =>
      rs.reduce((n, r) => n + r.wins + r.losses + r.draws, 0);
    const snapGames = first.body.standings as unknown as { wins: number; losses: number; draws: number }[];
    expect(games(board)).toBeGreaterThan(games(snapGames));
    const later = await srv.get(`/api/ladders/${LADDER}/settlement/final`);
    expect(later.body).toEqual(first.body);

    // The final standings page, and the ladder page's link to it.
    const fin = await page(`/ladders/${LADDER}/final`);
    expect(fin.status).toBe(200);
    expect(fin.text).toContain("Final standings");
    for (const name of NAMES) expect(fin.text).toContain(`/bot/${name}`);
    expect(fin.text).toContain('id="final-standings"');
    const ladderPage = await page(`/ladder?ladder=${LADDER}`);
    expect(ladderPage.text).toContain(`href="/ladders/${LADDER}/final"`);
    expect(ladderPage.text).toContain('data-state="final"');
    expect((await page("/ladders/public/final")).status).toBe(404);
  }, 300_000);

  it("shows on the page of an event on a settling ladder", async () => {
    const before = await page("/events/cup");
    expect(before.status).toBe(200);
    expect(before.text).not.toContain("settlement-notice");
    // The event's window ends with a settlement on its (always-open) ladder: its end is the event's closing (the
    // bots have no ranked versions, so the settlement has nothing to play and waits for its end).
    for (const [body, why] of [
      [{ event: "nope" }, "no event"],
      [{ event: "cup", duration_s: 7200 }, "must not follow the event's closing"],
    ] as const) {
      const r = await api("POST", "/api/admin/ladders/public/settlement", {
        top_k: 2,
        game_budget: 2,
        ...body,
      });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.code).toBe("invalid_settlement");
      expect(r.body.error).toContain(why);
    }
    const made = await api("POST", "/api/admin/ladders/public/settlement", {
      top_k: 2,
      game_budget: 2,
      event: "cup",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      state: "settling",
      frozen: [],
      event_id: "cup",
      ends_at: PUBLIC_EVENT.closes_at,
    });
    const during = await page("/events/cup");
    expect(during.text).toContain('id="settlement-notice"');
    expect(during.text).toContain("Settling: versions frozen, 0 of 2 extra games played");
    expect((await page("/ladder")).text).toContain("Settling: versions frozen, 0 of 2 extra games played");
  });
});
