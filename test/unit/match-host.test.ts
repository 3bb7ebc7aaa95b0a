// How the host (engine/match.ts) plays one tick from the seats' inputs, beyond turn validation: what an idle
// seat does (nothing: an idle is a stand-still turn), which refusals the stats count (the host's and the
// engine's, each once), and disqualification after max_consecutive_failures, of one seat or both (SPEC 3.3).
import { describe, expect, it } from "vitest";
import { houseBot } from "../../engine/house/index.ts";
import { Match, type TurnInput } from "../../engine/match.ts";
import type { GameEventT, IdleReason } from "../../engine/protocol.ts";
import { type ReplayFighter, readReplay } from "../../engine/replay.ts";
import { verifyReplay } from "../../engine/verify.ts";
import { scenario } from "../helpers/scenario.ts";

const empty = (m: Match): TurnInput => ({ raw: { type: "turn", tick: m.tick }, ms: 1 });
const idle = (why: IdleReason): TurnInput => ({ idle: why, ms: 7 });
interface TickLine {
  type: string;
  tick: number;
  turns: unknown[];
  state: unknown;
  events: GameEventT[];
  disqualified?: number[];
}
const lastTickLine = (m: Match): TickLine =>
  m.replay
    .linesFrom()
    .map((l) => JSON.parse(l) as TickLine)
    .filter((l) => l.type === "tick")
    .at(-1)!;

describe("an idle seat", () => {
  for (const why of ["timeout", "disconnected"] as const) {
    it(`stands still (${why}): the tick plays exactly as an empty turn would, for both fighters`, () => {
      // Placed so that any move, dash, attack or shout the idle turn made would show in the state or events.
      const o = { a: [10, 10] as [number, number], b: [13, 10] as [number, number] };
      const idled = scenario(o);
      const played = scenario(o);
      for (let t = 0; t < 6; t++) {
        const a: TurnInput[] = [];
        const b: TurnInput[] = [];
        a[idled.A] = idle(why);
        b[played.A] = empty(played.m);
        a[idled.B] = b[played.B] = { raw: { type: "turn", tick: t }, ms: 1 };
        const ev = idled.m.play(a as [TurnInput, TurnInput]);
        expect(ev).toEqual(played.m.play(b as [TurnInput, TurnInput]));
        expect(lastTickLine(idled.m).state).toEqual(lastTickLine(played.m).state);
      }
      expect(idled.m.observation(idled.A).self).toMatchObject({ x: 10, y: 10 });
      const st = idled.m.stats().fighters[idled.A]!;
      expect(st).toMatchObject({ moves: 0, dashes: 0, rejected: {}, refused_turns: 0 });
      expect(st.server_idles).toEqual({ [why]: 6 });
      expect(Object.values(st.weapons).every((w) => w.uses === 0)).toBe(true);
    });
  }

  it("is recorded in the replay as the idle it was, with the other seat's message as sent", () => {
    const s = scenario({ a: [5, 10], b: [12, 10] });
    const inputs: TurnInput[] = [];
    inputs[s.A] = idle("timeout");
    inputs[s.B] = { raw: "not json", ms: 3 };
    s.m.play(inputs as [TurnInput, TurnInput]);
    const turns: unknown[] = [];
    turns[s.A] = { idle: "timeout" };
    turns[s.B] = { raw: "not json" };
    expect(lastTickLine(s.m).turns).toEqual(turns);
  });
});

describe("refusals in the stats", () => {
  it("counts the engine's refusals of a part (not_visible), once each", () => {
    const s = scenario({ a: [5, 10], b: [12, 10], walls: [[8, 10]] });
    const ev = s.play({ attack: { name: "ranged", target: [12, 10] } });
    expect(ev.filter((e) => e.type === "rejected")).toEqual([
      { type: "rejected", by: s.A, part: "attack", reason: "not_visible" },
    ]);
    expect(s.m.stats().fighters[s.A]).toMatchObject({
      rejected: { not_visible: 1 },
      refused_turns: 0,
    });
    expect(s.m.stats().fighters[s.B]).toMatchObject({ rejected: {} });
  });

  it("counts the host's refusal of a part once, beside an engine refusal of the other fighter", () => {
    const s = scenario({ a: [5, 10], b: [12, 10], walls: [[8, 10]] });
    s.play({ move: "up" as never }, { attack: { name: "ranged", target: [5, 10] } });
    expect(s.m.stats().fighters[s.A]).toMatchObject({ rejected: { schema: 1 }, refused_turns: 0 });
    expect(s.m.stats().fighters[s.B]).toMatchObject({ rejected: { not_visible: 1 }, refused_turns: 0 });
  });

  it("counts a refused turn as a refused turn, not as a refused part", () => {
    const s = scenario({ a: [5, 10], b: [12, 10] });
    const inputs: TurnInput[] = [];
    inputs[s.A] = { raw: { type: "nope" }, ms: 1 };
    inputs[s.B] = empty(s.m);
    s.m.play(inputs as [TurnInput, TurnInput]);
    expect(s.m.stats().fighters[s.A]).toMatchObject({
      rejected: {},
      refused_turns: 1,
      refused_turns_by_reason: { schema: 1 },
    });
  });
});

describe("disqualification after max_consecutive_failures", () => {
  const failing = (s: ReturnType<typeof scenario>, a: TurnInput | null, b: TurnInput | null) => {
    const inputs: TurnInput[] = [];
    inputs[s.A] = a ?? empty(s.m);
    inputs[s.B] = b ?? empty(s.m);
    return s.m.play(inputs as [TurnInput, TurnInput]);
  };

  it("disqualifies one seat at its 10th failure in a row: the other wins, and the replay says who", () => {
    const s = scenario({ a: [5, 10], b: [12, 10] });
    for (let i = 0; i < 9; i++) failing(s, idle("timeout"), null);
    expect(s.m.over).toBe(false);
    expect(lastTickLine(s.m).disqualified).toBeUndefined();
    failing(s, { raw: 42, ms: 1 }, null);
    expect(s.m.result).toEqual({ winner: s.B, reason: "disqualified", finalTick: 10 });
    const st = s.m.stats().fighters;
    expect([st[s.A]!.disqualified, st[s.B]!.disqualified]).toEqual([true, false]);
    expect(lastTickLine(s.m).disqualified).toEqual([s.A]);
    const end = readReplay(s.m.replay.gzip()).lines.at(-1) as { disqualified: boolean[] };
    const flags = [false, false];
    flags[s.A] = true;
    expect(end).toMatchObject({ type: "end", reason: "disqualified", winner: s.B, disqualified: flags });
    expect(verifyReplay(s.m.replay.gzip())).toMatchObject({ ok: true, winner: s.B, reason: "disqualified" });
  });

  it("disqualifies both seats failing together with no winner (concede(-1))", () => {
    const s = scenario({ a: [5, 10], b: [12, 10] });
    for (let i = 0; i < 10; i++) failing(s, idle("timeout"), { raw: "junk", ms: 1 });
    expect(s.m.result).toEqual({ winner: null, reason: "disqualified", finalTick: 10 });
    expect(s.m.stats().fighters.map((f) => f.disqualified)).toEqual([true, true]);
    expect(lastTickLine(s.m).disqualified).toEqual([0, 1]);
    expect(readReplay(s.m.replay.gzip()).lines.at(-1)).toMatchObject({
      winner: null,
      disqualified: [true, true],
    });
    expect(verifyReplay(s.m.replay.gzip())).toMatchObject({ ok: true, winner: null, reason: "disqualified" });
  });

  it("lets a knockout on the 10th failure stand: a match the engine ended is not also a disqualification", () => {
    // A dry run: A shoots B whenever it can while B stands still; the tick of the knockout is k.
    const o = { a: [5, 10] as [number, number], b: [9, 10] as [number, number] };
    const shoot = (s: ReturnType<typeof scenario>) => ({
      raw: { type: "turn", tick: s.m.tick, attack: { name: "ranged", target: o.b } },
      ms: 1,
    });
    const dry = scenario(o);
    while (!dry.m.over && dry.m.tick < 500) failing(dry, shoot(dry), null);
    expect(dry.m.result).toMatchObject({ winner: dry.A });
    const k = dry.m.result!.finalTick - 1;
    const reason = dry.m.result!.reason;
    expect(reason).not.toBe("disqualified");
    expect(k).toBeGreaterThanOrEqual(9);
    // The same match with B failing on ticks k-9..k: its 10th failure is the tick it is knocked out.
    const s = scenario(o);
    while (s.m.tick < k - 9) failing(s, shoot(s), null);
    while (!s.m.over) failing(s, shoot(s), idle("timeout"));
    expect(s.m.result).toEqual({ winner: s.A, reason, finalTick: k + 1 });
    expect(s.m.stats().fighters[s.B]!.disqualified).toBe(false);
    expect(lastTickLine(s.m).disqualified).toBeUndefined();
  });

  it("records a grace disqualification's seats once each, in seat order, whatever order they came in", () => {
    for (const given of [
      [0, 1],
      [1, 0],
      [1, 0, 1],
    ]) {
      const s = scenario({ a: [5, 10], b: [12, 10] });
      failing(s, null, null);
      s.m.disqualify(given);
      const lines = readReplay(s.m.replay.gzip()).lines;
      expect(lines.at(-2)).toEqual({ type: "disqualify", tick: 1, fighters: [0, 1] });
      expect(s.m.result).toEqual({ winner: null, reason: "disqualified", finalTick: 1 });
    }
  });
});

describe("a tick line left for later (play with deferLine, as the pool worker sends observations first)", () => {
  const fighters: [ReplayFighter, ReplayFighter] = [
    { name: "one", display_name: "One", version: "v1" },
    { name: "two", display_name: "Two", version: "v1" },
  ];
  /**
   * A whole match of house bots' turns. Deferred, the owed line is written on odd ticks by recordTick() (as the
   * worker does after posting) and on even ones by the next play() itself; `dqAt` disqualifies seat 1 there.
   */
  const playOut = (defer: boolean, dqAt: number | null) => {
    const m = new Match({ matchId: "defer", seed: 11, map: "arena-21", fighters });
    const bots = [0, 1].map((f) => houseBot(f === 0 ? "kiter" : "brawler").create(m.hello(f)));
    while (!m.over) {
      const inputs = [0, 1].map((f) => ({ raw: bots[f]!(m.observation(f)), ms: 2 })) as [
        TurnInput,
        TurnInput,
      ];
      m.play(inputs, defer);
      // What the worker does between the play and the line: the observations are written.
      for (let f = 0; f < 2; f++) if (!m.over) m.writeObservation(f, new Uint8Array(64 * 1024), 0);
      if (m.tick === dqAt) m.disqualify([1]);
      else if (m.tick % 2 === 1) m.recordTick();
    }
    m.recordTick();
    return { jsonl: m.replay.jsonl(), result: m.result };
  };

  it("records the same replay, byte for byte, as writing each line at once", () => {
    const now = playOut(false, null);
    const later = playOut(true, null);
    expect(later.jsonl).toBe(now.jsonl);
    expect(later.result).toEqual(now.result);
    expect(now.jsonl.split("\n").filter((l) => l.includes('"type":"tick"')).length).toBeGreaterThan(20);
  });

  it("writes the owed line before a server input (a disqualification)", () => {
    const now = playOut(false, 40);
    const later = playOut(true, 40);
    expect(later.jsonl).toBe(now.jsonl);
    expect(later.jsonl).toContain('"type":"disqualify"');
  });
});
