// Health summaries are computed from real match stats.
import { describe, expect, it } from "vitest";
import type { TurnInput } from "../../engine/match.ts";
import { summariseHealth } from "../../server/bots/health.ts";
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
});
