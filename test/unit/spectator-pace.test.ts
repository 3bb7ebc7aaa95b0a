// Spectator pace (server/spectate/service.ts, issue 37): a ranked match that just ended is on air for its
// replay's length at watching speed (final_tick x SPECTATOR_TICK_MS), with the tick a spectator is at; the
// featured pick shows it when nothing is being played, and the pick falls back to the notable match after.
import { describe, expect, it } from "vitest";
import type { MatchT, StatusT } from "../../server/api/responses.ts";
import { onAir, pickFeatured, SPECTATOR_TICK_MS } from "../../server/spectate/service.ts";

const END = Date.UTC(2026, 10, 27, 12, 0, 0);
function match(id: string, over: Partial<MatchT> = {}): MatchT {
  return {
    id,
    mode: "ranked",
    voided: false,
    ended: new Date(END).toISOString(),
    final_tick: 200,
    winner: 0,
    reason: "last_standing",
    bots: [
      { id: 0, name: "a", display_name: "A" },
      { id: 1, name: "b", display_name: "B" },
    ],
    ...over,
  } as unknown as MatchT;
}
const status = { matches: [], online: [], capacity: { running: 0, max: 4 } } as unknown as StatusT;

describe("spectator pace", () => {
  it("keeps a ranked match on air for final_tick ticks at watching speed, with the spectator's tick", () => {
    const m = match("m1");
    expect(onAir([m], END)).toEqual([{ match: m, tick: 0, ticks: 200 }]);
    expect(onAir([m], END + 10 * SPECTATOR_TICK_MS + 5)[0]?.tick).toBe(10);
    expect(onAir([m], END + 200 * SPECTATOR_TICK_MS - 1)[0]?.tick).toBe(199);
    expect(onAir([m], END + 200 * SPECTATOR_TICK_MS)).toEqual([]);
    expect(onAir([m], END - 1)).toEqual([]);
  });

  it("leaves out voided and human games", () => {
    expect(onAir([match("v", { voided: true }), match("h", { mode: "human" })], END + 1)).toEqual([]);
  });

  it("features the newest on-air match when nothing is being played, then the notable one", () => {
    const recent = [match("new"), match("old", { ended: new Date(END - 60_000).toISOString() })];
    const href = (p: string) => p;
    const during = pickFeatured({ status, board: [], recent, ladder: null }, href, END + 1000);
    expect(during).toMatchObject({ kind: "paced", match_id: "new", watch_url: "/view/new" });
    expect(during.label).toBe("Just played: the replay at watching speed");
    const after = pickFeatured(
      { status, board: [], recent, ladder: null },
      href,
      END + 200 * SPECTATOR_TICK_MS,
    );
    expect(after.kind).toBe("finished");
  });
});
