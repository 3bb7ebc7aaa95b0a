// Tournaments on the real server (issue 34, part 3) with real WebSocket bots: a Swiss tournament of 8 bots over
// 3 rounds and a round-robin of 4, each with an absentee (one connected but never queueing, one that
// disconnects after the start) that forfeits its games, both played to the end at the same time. Checked: every
// game an ordinary hello ... end of mode `tournament` with rating_change null, no Swiss rematch, the round-robin
// meeting every pair once, the forfeits, the final standings (kept in the database) equal to a reference
// computed here from the recorded results by an independent function, and nothing in the ladder's ratings.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

let srv: TestServer;
let root: SignedIn;
let owner: SignedIn;
const clients = new Map<string, Player>();

type Msg = { type: string; [k: string]: unknown };

/** A bot that plays like a starter: queues, answers every observation, and queues again after each end. */
class Player {
  readonly hellos: Msg[] = [];
  readonly ends: Msg[] = [];
  private playing = false;
  constructor(
    readonly name: string,
    readonly c: BotClient,
  ) {}

  /** Start queueing (the absentee of the Swiss never does). */
  play(): void {
    this.playing = true;
    let tick = 0;
    this.c.ws.on("message", (data) => {
      const m = JSON.parse(data.toString()) as Msg;
      if (m.type === "hello") {
        this.hellos.push(m);
        this.c.send({ type: "ready" });
      } else if (m.type === "observation") {
        tick++;
        const opp = (m.opponents as { x: number | null; y: number | null; visible: boolean }[])[0];
        const turn: Record<string, unknown> = { type: "turn", tick: m.tick };
        const moves = m.moves as { dir: string }[];
        if (moves.length > 0) turn.move = moves[tick % moves.length]!.dir;
        if (opp?.visible && opp.x !== null) turn.attack = { name: "ranged", target: [opp.x, opp.y] };
        this.c.send(turn);
      } else if (m.type === "end") {
        this.ends.push(m);
        if (this.playing) this.c.send({ type: "queue", version: "v1" });
      }
    });
    this.c.send({ type: "queue", version: "v1" });
  }

  stop(): void {
    this.playing = false;
  }
}

async function register(who: SignedIn, name: string): Promise<Player> {
  const r = await call(srv.url, "POST", "/api/account/bots", { token: who.access, body: { name } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  const c = new BotClient(srv.wsUrl, r.body.token as string);
  await c.open();
  const p = new Player(name, c);
  clients.set(name, p);
  return p;
}

async function until<T>(fn: () => Promise<T | null | undefined | false>, ms = 240_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 250));
  }
}

interface GameJ {
  game: number;
  state: string;
  match_id: string | null;
  points_a: number | null;
  points_b: number | null;
  forfeit: "a" | "b" | "both" | null;
  winner: string | null;
  replay_url: string | null;
}
interface StandingJ {
  rank: number;
  bot: string;
  score: number;
  wins: number;
  draws: number;
  losses: number;
  forfeits: number;
  byes: number;
  buchholz: number;
  sonneborn_berger: number;
}
interface TournamentJ {
  id: string;
  state: string;
  format: string;
  round: number;
  round_count: number | null;
  final: boolean;
  note: string | null;
  entrants: { bot: string; seed: number | null }[];
  standings: StandingJ[];
  rounds: {
    round: number;
    pairings: { a: string; b: string | null; bye: boolean; points_a: number | null; games: GameJ[] }[];
  }[];
}

const get = async (id: string) => (await srv.get<TournamentJ>(`/api/tournaments/${id}`)).body;

/**
 * The reference standings, from the recorded games alone: score (a Swiss bye scores a won pairing), then the
 * sum of the opponents' scores (once per pairing), then the sum of points times the opponent's score, then
 * wins, then seed.
 */
function reference(t: TournamentJ, perPairing: number) {
  const seeds = t.entrants.map((e) => e.bot);
  const score: Record<string, number> = {};
  const wins: Record<string, number> = {};
  for (const s of seeds) {
    score[s] = 0;
    wins[s] = 0;
  }
  for (const r of t.rounds)
    for (const p of r.pairings) {
      if (p.bye) {
        score[p.a]! += t.format === "swiss" ? perPairing : 0;
        continue;
      }
      for (const g of p.games) {
        score[p.a]! += g.points_a!;
        score[p.b!]! += g.points_b!;
        if (g.points_a! > g.points_b!) wins[p.a]!++;
        if (g.points_b! > g.points_a!) wins[p.b!]!++;
      }
    }
  const bh: Record<string, number> = {};
  const sb: Record<string, number> = {};
  for (const s of seeds) {
    bh[s] = 0;
    sb[s] = 0;
  }
  for (const r of t.rounds)
    for (const p of r.pairings) {
      if (p.bye) continue;
      bh[p.a]! += score[p.b!]!;
      bh[p.b!]! += score[p.a]!;
      for (const g of p.games) {
        sb[p.a]! += g.points_a! * score[p.b!]!;
        sb[p.b!]! += g.points_b! * score[p.a]!;
      }
    }
  return [...seeds]
    .sort(
      (x, y) =>
        score[y]! - score[x]! ||
        bh[y]! - bh[x]! ||
        sb[y]! - sb[x]! ||
        wins[y]! - wins[x]! ||
        seeds.indexOf(x) - seeds.indexOf(y),
    )
    .map((bot) => ({ bot, score: score[bot], buchholz: bh[bot], sonneborn_berger: sb[bot] }));
}

beforeAll(async () => {
  srv = await startAccountServer({ adminEmails: ["root@tourney.test"], maxBots: 20, maxConcurrent: 12 });
  root = await signUp(srv, "root@tourney.test", "root");
  owner = await signUp(srv, "owner@tourney.test", "owner");
}, 120_000);

afterAll(async () => {
  for (const p of clients.values()) p.c.close();
  await srv?.stop();
});

describe("tournaments", () => {
  it("refuses non-admins and bad schedules", async () => {
    const body = {
      name: "x",
      ladder: "public",
      format: "swiss",
      rounds: 3,
      starts_at: new Date().toISOString(),
    };
    const denied = await call(srv.url, "POST", "/api/admin/tournaments", { token: owner.access, body });
    expect(denied.status).toBe(403);
    const noRounds = await call(srv.url, "POST", "/api/admin/tournaments", {
      token: root.access,
      body: { ...body, rounds: undefined },
    });
    expect(noRounds.status).toBe(400);
    const badLadder = await call(srv.url, "POST", "/api/admin/tournaments", {
      token: root.access,
      body: { ...body, ladder: "nowhere" },
    });
    expect(badLadder.status).toBe(400);
    expect((await srv.get("/api/tournaments/tn-nothing")).status).toBe(404);
  });

  it("a Swiss of 8 over 3 rounds and a round-robin of 4, with absentees, played to the end", async () => {
    const swiss: Player[] = [];
    for (let i = 1; i <= 8; i++) swiss.push(await register(owner, `sw-${i}`));
    const before = (await srv.get<unknown[]>("/api/leaderboard")).body;

    // The Swiss first: the eight connected bots check in at once (the window is open).
    const startSoon = (sec: number) => new Date(Date.now() + sec * 1000).toISOString();
    const created = await call(srv.url, "POST", "/api/admin/tournaments", {
      token: root.access,
      body: {
        name: "Swiss cup",
        ladder: "public",
        format: "swiss",
        rounds: 3,
        starts_at: startSoon(2),
        checkin_minutes: 1,
        forfeit_after_s: 2,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const swissId = created.body.id as string;
    expect(created.body.state).toBe("scheduled");
    expect(created.body.rated).toBe(false);
    expect((created.body.entrants as { bot: string }[]).map((e) => e.bot).sort()).toEqual(
      swiss.map((p) => p.name).sort(),
    );

    // The Swiss: seven play, sw-8 stays connected but never queues (absent).
    for (const p of swiss.slice(0, 7)) p.play();
    const running = await until(async () => {
      const t = await get(swissId);
      return t.state === "running" ? t : null;
    });
    expect(running.entrants.map((e) => e.bot).sort()).toEqual(swiss.map((p) => p.name).sort());

    // The round-robin, scheduled now the Swiss field is fixed: rr-b* check in; rr-b4 leaves after the start.
    const rr: Player[] = [];
    for (let i = 1; i <= 4; i++) rr.push(await register(root, `rr-b${i}`));
    const rrCreated = await call(srv.url, "POST", "/api/admin/tournaments", {
      token: root.access,
      body: {
        name: "Round-robin cup",
        ladder: "public",
        format: "round_robin",
        games_per_pairing: 2,
        starts_at: startSoon(2),
        checkin_minutes: 1,
        forfeit_after_s: 2,
      },
    });
    expect(rrCreated.status, JSON.stringify(rrCreated.body)).toBe(201);
    const rrId = rrCreated.body.id as string;
    expect((rrCreated.body.entrants as { bot: string }[]).map((e) => e.bot).sort()).toEqual(
      rr.map((p) => p.name).sort(),
    );
    for (const p of rr.slice(0, 3)) p.play();
    await until(async () => ((await get(rrId)).state === "running" ? true : null));
    rr[3]!.c.close();

    const swissDone = await until(async () => {
      const t = await get(swissId);
      return t.state === "done" ? t : null;
    });
    const rrDone = await until(async () => {
      const t = await get(rrId);
      return t.state === "done" ? t : null;
    });
    for (const p of [...swiss, ...rr]) p.stop();

    // --- The Swiss ---
    expect(swissDone.round_count).toBe(3);
    expect(swissDone.rounds).toHaveLength(3);
    expect(swissDone.final).toBe(true);
    const met = new Set<string>();
    for (const r of swissDone.rounds) {
      expect(r.pairings).toHaveLength(4);
      const seen = r.pairings.flatMap((p) => [p.a, p.b]);
      expect(new Set(seen).size).toBe(8);
      for (const p of r.pairings) {
        const key = [p.a, p.b].sort().join("/");
        expect(met.has(key), `rematch ${key}`).toBe(false);
        met.add(key);
        const g = p.games[0]!;
        expect(g.state).toBe("done");
        // The absentee forfeits every game; every other game was played as a match.
        if (p.a === "sw-8" || p.b === "sw-8") {
          expect(g.forfeit).toBe(p.a === "sw-8" ? "a" : "b");
          expect(g.winner).toBe(p.a === "sw-8" ? p.b : p.a);
          expect(g.match_id).toBeNull();
        } else {
          expect(g.forfeit).toBeNull();
          expect(g.match_id).not.toBeNull();
        }
      }
    }
    const absent = swissDone.standings.find((s) => s.bot === "sw-8")!;
    expect(absent).toMatchObject({ score: 0, forfeits: 3, losses: 3, rank: 8 });
    expect(swissDone.standings.map((s) => s.rank)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);

    // --- The round-robin: 3 rounds, every pair once, two games each ---
    expect(rrDone.round_count).toBe(3);
    const pairs = new Set<string>();
    for (const r of rrDone.rounds)
      for (const p of r.pairings) {
        expect(p.bye).toBe(false);
        pairs.add([p.a, p.b].sort().join("/"));
        expect(p.games).toHaveLength(2);
        for (const g of p.games) {
          expect(g.state).toBe("done");
          if (p.a === "rr-b4" || p.b === "rr-b4") expect(g.forfeit).toBe(p.a === "rr-b4" ? "a" : "b");
          else expect(g.match_id).not.toBeNull();
        }
      }
    expect(pairs.size).toBe(6);
    expect(rrDone.standings.find((s) => s.bot === "rr-b4")).toMatchObject({ score: 0, forfeits: 6 });

    // --- Standings equal the reference computed from the recorded results ---
    for (const [t, k] of [
      [swissDone, 1],
      [rrDone, 2],
    ] as const) {
      const ref = reference(t, k);
      expect(t.standings.map((s) => s.bot)).toEqual(ref.map((r) => r.bot));
      for (const [i, r] of ref.entries()) expect(t.standings[i]).toMatchObject(r);
    }

    // --- Every match: mode tournament, an ordinary hello ... end with rating_change null, a replay ---
    const matchIds = [...swissDone.rounds, ...rrDone.rounds].flatMap((r) =>
      r.pairings.flatMap((p) => p.games.map((g) => g.match_id).filter((x): x is string => x !== null)),
    );
    expect(matchIds.length).toBe(3 * 3 + 3 * 2);
    for (const id of matchIds) {
      const m = await srv.get<{ mode: string; winner: string | null }>(`/api/matches/${id}`);
      expect(m.body.mode).toBe("tournament");
    }
    // (A bot whose tournament ended goes back to the ranked queue: its later matches are ranked ones.)
    const ids = new Set(matchIds);
    const hellos = [...swiss, ...rr].flatMap((p) => p.hellos).filter((h) => ids.has(h.match_id as string));
    expect(hellos.length).toBe(matchIds.length * 2);
    for (const h of hellos) expect(h.mode).toBe("tournament");
    const ends = [...swiss, ...rr].flatMap((p) => p.ends).filter((e) => ids.has(e.match_id as string));
    expect(ends.length).toBe(matchIds.length * 2);
    for (const e of ends) expect(e.rating_change).toBeNull();
    const g0 = swissDone.rounds[0]!.pairings.find((p) => p.games[0]!.match_id)!.games[0]!;
    expect((await fetch(g0.replay_url!)).status).toBe(200);

    // --- Final standings kept; nothing in the ladder's ratings ---
    const row = await srv.app.ctx.store.db.query("SELECT standings FROM tournaments WHERE id = $1", [
      swissId,
    ]);
    const kept = typeof row[0]!.standings === "string" ? JSON.parse(row[0]!.standings) : row[0]!.standings;
    expect((kept as { player: string }[]).map((s) => s.player)).toEqual(
      swissDone.standings.map((s) => s.bot),
    );
    expect((await srv.get<unknown[]>("/api/leaderboard")).body).toEqual(before);
    const rated = new Set((await srv.app.ctx.ratingStore.ratedResults("public")).map((r) => r.match_id));
    for (const id of matchIds) expect(rated.has(id)).toBe(false);

    const list = (await srv.get<{ id: string; state: string }[]>("/api/tournaments")).body;
    expect(list.map((t) => t.id)).toEqual([rrId, swissId]);
    const page = await fetch(`${srv.url}/tournaments/${swissId}`);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain("Final standings");
    expect(text).toContain("sw-8");
  }, 600_000);

  it("a rated tournament's games are rated games of the ladder: in its ratings, with rating changes", async () => {
    // The bots of the test above leave first, so that only these three check in.
    for (const p of clients.values()) p.c.close();
    clients.clear();
    await until(async () => srv.app.ctx.lobby.all().every((p) => p.house || !p.conn));
    const field: Player[] = [];
    for (let i = 1; i <= 3; i++) field.push(await register(owner, `rated-${i}`));
    const made = await call(srv.url, "POST", "/api/admin/tournaments", {
      token: root.access,
      body: {
        name: "Rated round-robin",
        ladder: "public",
        format: "round_robin",
        rated: true,
        starts_at: new Date(Date.now() + 1000).toISOString(),
        checkin_minutes: 1,
        forfeit_after_s: 30,
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.rated).toBe(true);
    const id = made.body.id as string;
    for (const p of field) p.play();
    const done = await until(async () => {
      const t = await get(id);
      return t.state === "done" ? t : null;
    });
    for (const p of field) p.stop();
    expect((await srv.get<{ id: string; rated: boolean }[]>("/api/tournaments")).body[0]).toMatchObject({
      id,
      rated: true,
    });
    const matchIds = done.rounds.flatMap((r) =>
      r.pairings.flatMap((p) => p.games.map((g) => g.match_id).filter((x): x is string => x !== null)),
    );
    // Three bots: three rounds, each with one pairing and a rest; every game played.
    expect(matchIds).toHaveLength(3);
    const rated = new Set((await srv.app.ctx.ratingStore.ratedResults("public")).map((r) => r.match_id));
    for (const mid of matchIds) {
      const m = await srv.get<{ mode: string; pairing: { reason: string } | null }>(`/api/matches/${mid}`);
      expect(m.body.mode).toBe("ranked");
      expect(m.body.pairing?.reason).toBe("tournament");
      // Rated unless the match was voided (a void enters no rating in any mode).
      const voided = (await srv.get<{ voided: boolean }>(`/api/matches/${mid}`)).body.voided;
      expect(rated.has(mid)).toBe(!voided);
    }
    const ends = field.flatMap((p) => p.ends).filter((e) => matchIds.includes(e.match_id as string));
    expect(ends).toHaveLength(6);
    for (const e of ends) expect(typeof e.rating_change === "number" || e.rating_change === null).toBe(true);
    expect(ends.some((e) => typeof e.rating_change === "number")).toBe(true);
    // The standings are scored the same way as an unrated tournament's.
    const ref = reference(done, 1);
    expect(done.standings.map((s) => s.bot)).toEqual(ref.map((r) => r.bot));
    const page = await (await fetch(`${srv.url}/tournaments/${id}`)).text();
    expect(page).toContain("Rated: this tournament's games are rated games of the ladder");
  }, 300_000);
});
