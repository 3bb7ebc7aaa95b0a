// The house bots: registry and metadata, schema-valid turns that the engine accepts, and a quick check of
// the strength ordering at its widest gap (the full ordering is test/bench/ladder-order.ts).
import { describe, expect, it } from "vitest";
import { HOUSE_BOTS, houseBot } from "../../engine/house/index.ts";
import type { Strategy } from "../../engine/house/types.ts";
import { TurnMessage } from "../../engine/protocol.ts";
import { MAP_NAMES } from "../../engine/rules.ts";
import { playMatch, strategySeat } from "../../engine/sim/play.ts";
import { createDecide, starter } from "../../starters/typescript/strategy.ts";

const NAMES = ["kiter", "brawler", "ts-starter", "champion"];

/** Wraps a strategy so every turn it returns is checked against the published turn schema. */
function checked(s: Strategy, invalid: string[]): Strategy {
  return {
    ...s,
    create(hello) {
      const decide = s.create(hello);
      return (obs) => {
        const turn = decide(obs);
        const r = TurnMessage.safeParse(turn);
        if (!r.success || turn.tick !== obs.tick || (turn.move !== undefined && turn.dash !== undefined)) {
          invalid.push(`${s.name} tick ${obs.tick}: ${JSON.stringify(turn)}`);
        }
        return turn;
      };
    },
  };
}

async function play(a: Strategy, b: Strategy, seed: number, map: string) {
  return playMatch([strategySeat(a), strategySeat(b)], {
    matchId: `house-${a.name}-${b.name}-${seed}`,
    seed,
    map,
  });
}

describe("house bot registry", () => {
  it("lists the four house bots weakest first with their lobby metadata", () => {
    expect(Object.keys(HOUSE_BOTS)).toEqual(NAMES);
    expect(NAMES.map((n) => [HOUSE_BOTS[n]!.display_name, HOUSE_BOTS[n]!.difficulty])).toEqual([
      ["Kiter", "Easy"],
      ["Brawler", "Medium"],
      ["Starter", "Hard"],
      ["Champion", "Very hard"],
    ]);
    for (const n of NAMES) {
      expect(HOUSE_BOTS[n]!.name).toBe(n);
      expect(HOUSE_BOTS[n]!.version).toMatch(/^\d+\.\d+\.\d+$/);
    }
    expect(houseBot("champion")).toBe(HOUSE_BOTS.champion);
    expect(HOUSE_BOTS["ts-starter"]).toBe(starter);
    expect(starter.create).toBe(createDecide);
  });

  it("refuses unknown names with a message listing the valid ones", () => {
    expect(() => houseBot("nobody")).toThrow(
      /unknown house bot "nobody".*kiter, brawler, ts-starter, champion/,
    );
    expect(() => houseBot("toString")).toThrow(/unknown house bot/);
  });
});

describe("house bot turns", () => {
  it("are schema-valid and never refused for schema, unknown_attack or conflicting_moves", async () => {
    const invalid: string[] = [];
    const refused: Record<string, Record<string, number>> = {};
    const turns: Record<string, number> = {};
    let seed = 1;
    // Every bot against every bot (mirrors included), on every map.
    for (const a of NAMES) {
      for (const b of NAMES) {
        const map = MAP_NAMES[seed % MAP_NAMES.length]!;
        const { stats } = await play(
          checked(HOUSE_BOTS[a]!, invalid),
          checked(HOUSE_BOTS[b]!, invalid),
          seed++,
          map,
        );
        for (const f of stats.fighters) {
          refused[f.name] ??= {};
          const r = refused[f.name]!;
          for (const [k, v] of Object.entries(f.rejected)) r[k] = (r[k] ?? 0) + v;
          turns[f.name] = (turns[f.name] ?? 0) + stats.ticks;
          expect(f.refused_turns, `${f.name} whole turns refused`).toBe(0);
          expect(f.disqualified).toBe(false);
        }
      }
    }
    expect(invalid).toEqual([]);
    for (const n of NAMES) {
      const r = refused[n] ?? {};
      expect(r.schema ?? 0, `${n} schema refusals`).toBe(0);
      expect(r.unknown_attack ?? 0, `${n} unknown_attack refusals`).toBe(0);
      expect(r.conflicting_moves ?? 0, `${n} conflicting_moves refusals`).toBe(0);
      expect(r.bad_text ?? 0, `${n} bad_text refusals`).toBe(0);
      // Not-ready, blocked and not-visible parts can happen (a step into the opponent's tile) but stay rare.
      const other = (r.not_ready ?? 0) + (r.blocked ?? 0) + (r.not_visible ?? 0);
      expect(other / turns[n]!, `${n} refused parts per turn`).toBeLessThan(0.01);
    }
  });
});

describe("house bot strength", () => {
  it("champion beats kiter in most of 30 matches over every map and both seats", async () => {
    let champion = 0;
    for (let i = 1; i <= 30; i++) {
      const swap = i % 2 === 0;
      const pair: [Strategy, Strategy] = swap
        ? [HOUSE_BOTS.kiter!, HOUSE_BOTS.champion!]
        : [HOUSE_BOTS.champion!, HOUSE_BOTS.kiter!];
      const { match } = await play(pair[0], pair[1], i, MAP_NAMES[i % MAP_NAMES.length]!);
      if (match.result!.winner === (swap ? 1 : 0)) champion++;
    }
    expect(champion).toBeGreaterThanOrEqual(27);
  });
  // How fast a house bot decides is a figure of `npm run bench` (house bot decision), not a test.
});
