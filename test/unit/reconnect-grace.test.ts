// The reconnect grace is a time, not a count of ticks (SPEC 3.3, issue 14 part 6): a disconnected seat's idles
// do not add to its run of failures; the host disqualifies it when `reconnect_grace_ms` has passed, and that
// decision is a replay input that re-simulates. The simulator measures the time as the deadlines of the ticks
// the seat missed, which is what those ticks take on the server.
import { describe, expect, it } from "vitest";
import { DEFAULT_DEADLINES, Match, type TurnInput } from "../../engine/match.ts";
import { readReplay } from "../../engine/replay.ts";
import { playMatch, type Seat } from "../../engine/sim/play.ts";
import { verifyReplay } from "../../engine/verify.ts";

const fighters = [
  { name: "one", display_name: "One", version: "v1" },
  { name: "two", display_name: "Two", version: "v1" },
] as [
  { name: string; display_name: string; version: string },
  { name: string; display_name: string; version: string },
];

function match(deadlines = DEFAULT_DEADLINES): Match {
  return new Match({ matchId: "grace", seed: 7, map: "arena-21", fighters, deadlines });
}

const away: TurnInput = { idle: "disconnected", ms: 0 };
const timeout: TurnInput = { idle: "timeout", ms: 0 };
const empty = (m: Match): TurnInput => ({ raw: { type: "turn", tick: m.tick }, ms: 1 });

describe("the host (engine/match.ts)", () => {
  it("does not count disconnected ticks as failures, however many", () => {
    const m = match();
    for (let i = 0; i < 40; i++) m.play([away, empty(m)]);
    expect(m.over).toBe(false);
    expect(m.stats().fighters[0]).toMatchObject({ disqualified: false, server_idles: { disconnected: 40 } });
  });

  it("still disqualifies after 10 consecutive timeouts, and a disconnected run neither adds to nor breaks that run", () => {
    const m = match();
    for (let i = 0; i < 6; i++) m.play([timeout, empty(m)]);
    for (let i = 0; i < 20; i++) m.play([away, empty(m)]);
    for (let i = 0; i < 3; i++) m.play([timeout, empty(m)]);
    expect(m.over).toBe(false);
    m.play([timeout, empty(m)]);
    expect(m.result).toMatchObject({ winner: 1, reason: "disqualified" });
  });

  it("disqualify() ends the match as `disqualified`, records a server input, and the replay re-simulates", () => {
    const m = match();
    for (let i = 0; i < 3; i++) m.play([away, empty(m)]);
    m.disqualify([0]);
    expect(m.result).toEqual({ winner: 1, reason: "disqualified", finalTick: 3 });
    expect(m.stats().fighters[0]!.disqualified).toBe(true);
    const lines = readReplay(m.replay.gzip()).lines;
    expect(lines.at(-2)).toEqual({ type: "disqualify", tick: 3, fighters: [0] });
    expect(lines.at(-1)).toMatchObject({ type: "end", reason: "disqualified", disqualified: [true, false] });
    expect(verifyReplay(m.replay.gzip())).toMatchObject({ ok: true, winner: 1, reason: "disqualified" });
  });

  it("disqualifying both seats leaves no winner; an ended match ignores it", () => {
    const m = match();
    m.play([away, away]);
    m.disqualify([1, 0]);
    expect(m.result).toMatchObject({ winner: null, reason: "disqualified" });
    const before = m.replay.lineCount;
    m.disqualify([0]);
    expect(m.replay.lineCount).toBe(before);
    expect(verifyReplay(m.replay.gzip())).toMatchObject({ ok: true, winner: null });
  });

  it("a replay whose disqualify line names no fighter id is refused, not re-simulated", () => {
    const m = match();
    m.play([away, empty(m)]);
    m.disqualify([0]);
    const text = m.replay.jsonl().replace('"fighters":[0]', '"fighters":[5]');
    expect(verifyReplay(new TextEncoder().encode(text))).toMatchObject({
      ok: false,
      error: expect.stringContaining("disqualify must list fighter ids"),
    });
  });
});

describe("the simulator (engine/sim/play.ts)", () => {
  /** A seat whose bot is gone from the start: every turn is a disconnected idle. */
  const gone = (): Seat => ({
    fighter: fighters[0],
    start: () => true,
    turn: () => away,
  });
  /** A seat that answers every tick with an empty turn, so nothing but the grace can end the match early. */
  const opponent = (): Seat => ({
    fighter: fighters[1],
    start: () => true,
    turn: (obs) => ({ raw: { type: "turn", tick: obs.tick }, ms: 1 }),
  });

  it.each([
    { tick_ms: 100, grace: 3_000, ticks: 30 },
    { tick_ms: 1_000, grace: 10_000, ticks: 10 },
    { tick_ms: 5_000, grace: 10_000, ticks: 2 },
    { tick_ms: 3_000, grace: 10_000, ticks: 4 },
  ])(
    "with $tick_ms ms ticks and a $grace ms grace, a gone seat is disqualified after $ticks ticks",
    async (c) => {
      const deadlines = { ...DEFAULT_DEADLINES, tick_ms: c.tick_ms, reconnect_grace_ms: c.grace };
      const { match: m } = await playMatch([gone(), opponent()], {
        matchId: "g",
        seed: 3,
        map: "arena-21",
        deadlines,
      });
      expect(m.result).toMatchObject({ winner: 1, reason: "disqualified", finalTick: c.ticks });
      expect(verifyReplay(m.replay.gzip())).toMatchObject({ ok: true, reason: "disqualified" });
    },
  );
});
