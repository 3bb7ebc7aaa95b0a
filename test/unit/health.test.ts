// Health summaries are computed from real match stats.
import { describe, expect, it } from "vitest";
import type { TurnInput } from "../../engine/match.ts";
import { summariseHealth, turnFigures } from "../../server/bots/health.ts";
import { fighterStats } from "../helpers/match-records.ts";
import { scenario } from "../helpers/scenario.ts";

describe("summariseHealth", () => {
  it("is null without stats", () => {
    expect(summariseHealth([])).toBeNull();
  });

  it("counts idles, refusals, replies and disqualifications of the right fighter", () => {
    const s = scenario({ a: [5, 10], b: [15, 10], walls: [[10, 10]] });
    const inputs = (a: TurnInput) => {
      const x: TurnInput[] = [];
      x[s.A] = a;
      x[s.B] = { raw: { type: "turn", tick: s.m.tick }, ms: 900 };
      return x as [TurnInput, TurnInput];
    };
    s.m.play(inputs({ raw: "junk", ms: 10 }));
    s.m.play(inputs({ raw: { type: "turn", tick: s.m.tick }, ms: 20 }));
    for (let i = 0; i < 10; i++) s.m.play(inputs({ idle: "timeout", ms: 1000 }));
    const stats = s.m.stats();
    const h = summariseHealth([{ fighter: s.A, stats }])!;
    expect(h).toMatchObject({
      matches: 1,
      turns: 12,
      idle_pct: 83.33,
      refused_pct: 8.33,
      idle_pct_by_reason: { timeout: 83.33 },
      refused_pct_by_reason: { schema: 8.33 },
      disqualifications: 1,
      disconnects: 0,
    });
    expect(h.reply_ms).toMatchObject({ replies: 2, mean: 15, max: 20 });
    const other = summariseHealth([{ fighter: s.B, stats }])!;
    expect(other).toMatchObject({ idle_pct: 0, near_limit_pct: 100, disqualifications: 0 });
  });

  it("counts a turn whose every move, dash and attack part was refused as refused, and a lone bad shout not", () => {
    const s = scenario({ a: [5, 10], b: [15, 10], walls: [[10, 10]] });
    const bad = <T>(v: unknown) => v as T; // parts a bot may send that no turn schema allows
    s.play({ move: bad("sideways"), attack: bad({ name: "laser", target: [0, 0] }) }); // nothing done
    s.play({ move: bad("sideways") }); // nothing done
    s.play({ move: bad("sideways"), dash: "N" }); // conflicting: both refused, nothing done
    s.play({ attack: bad({ name: "laser" }), move: s.m.observation(s.A).moves[0]!.dir }); // the move is played
    s.play({ shout: "" }); // a bad shout alone does not lose the turn
    const stats = s.m.stats();
    const f = stats.fighters[s.A]!;
    expect(f.refused_turns).toBe(0);
    expect(f.refused_all_parts).toBe(3);
    expect(f.refused_ticks_by_reason).toEqual({
      schema: 2,
      unknown_attack: 2,
      conflicting_moves: 1,
      bad_text: 1,
    });
    const t = turnFigures(f, stats.ticks);
    expect(t).toMatchObject({ turns: 5, idle: 0, refused: 3, lost: 3 });
    expect(t.refusedPartsByReason).toEqual({
      schema: 2,
      unknown_attack: 2,
      conflicting_moves: 2,
      bad_text: 1,
    });
    expect(summariseHealth([{ fighter: s.A, stats }])).toMatchObject({
      refused_pct: 60,
      lost_pct: 60,
      refused_pct_by_reason: { schema: 40, unknown_attack: 40, conflicting_moves: 20, bad_text: 20 },
    });
    // The owner's diagnostics: runs per part and reason, by tick.
    expect(stats.diagnostics![s.A]!.refusals).toEqual([
      { tick: 0, to_tick: 1, part: "move", reason: "schema" },
      { tick: 0, to_tick: 0, part: "attack", reason: "unknown_attack" },
      { tick: 2, to_tick: 2, part: "move", reason: "conflicting_moves" },
      { tick: 2, to_tick: 2, part: "dash", reason: "conflicting_moves" },
      { tick: 3, to_tick: 3, part: "attack", reason: "unknown_attack" },
      { tick: 4, to_tick: 4, part: "shout", reason: "bad_text" },
    ]);
  });

  it("reads stats recorded before the per-tick counts: whole turns and parts per reason, at most the ticks", () => {
    const f = { ...fighterStats(0, "old", "v1"), rejected: { schema: 150 }, refused_turns: 2 };
    f.refused_turns_by_reason = { schema: 2 };
    const t = turnFigures(f, 100);
    expect(t).toMatchObject({ turns: 100, idle: 1, refused: 2, lost: 3 });
    expect(t.refusedTicksByReason).toEqual({ schema: 100 });
    expect(t.refusedPartsByReason).toEqual({ schema: 152 });
  });
});
