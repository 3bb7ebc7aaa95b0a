// Builds small hand-made situations for engine tests: a 21x21 map with the two spawns and walls placed
// where a test needs them, played through the real host (Match) with the real engine.wasm.
import { Match, type TurnInput } from "../../engine/match.ts";
import type { Turn } from "../../engine/protocol.ts";
import { RULES } from "../../engine/rules.ts";

type XY = [number, number];

export interface ScenarioOptions {
  a: XY;
  b: XY;
  walls?: XY[];
  pickups?: XY[];
  seed?: number;
  rules?: Partial<Record<keyof typeof RULES, unknown>>;
}

export function rows(o: Pick<ScenarioOptions, "a" | "b" | "walls" | "pickups">): string[] {
  const g: string[][] = Array.from({ length: 21 }, (_, y) =>
    Array.from({ length: 21 }, (_, x) => (x === 0 || y === 0 || x === 20 || y === 20 ? "#" : ".")),
  );
  for (const [x, y] of o.walls ?? []) g[y]![x] = "#";
  for (const [x, y] of o.pickups ?? []) g[y]![x] = "p";
  g[o.a[1]]![o.a[0]] = "A";
  g[o.b[1]]![o.b[0]] = "B";
  return g.map((r) => r.join(""));
}

export interface Scenario {
  m: Match;
  /** Fighter id standing on spawn A and on spawn B (the engine picks sides from the seed). */
  A: number;
  B: number;
  /** Plays one tick with the given parts per spawn side; returns that tick's events. */
  play(a?: Partial<Turn>, b?: Partial<Turn>): ReturnType<Match["play"]>;
}

export function scenario(o: ScenarioOptions): Scenario {
  const rules = { ...RULES, ...(o.rules ?? {}), maps: { test: rows(o) } } as unknown as typeof RULES;
  const m = new Match({
    matchId: "test",
    seed: o.seed ?? 1,
    map: "test",
    rules,
    fighters: [
      { name: "one", display_name: "One", version: "v1" },
      { name: "two", display_name: "Two", version: "v1" },
    ],
  });
  const s0 = m.observation(0).self;
  const A = s0.x === o.a[0] && s0.y === o.a[1] ? 0 : 1;
  const B = 1 - A;
  return {
    m,
    A,
    B,
    play(a = {}, b = {}) {
      const inputs: TurnInput[] = [];
      inputs[A] = { raw: { type: "turn", tick: m.tick, ...a }, ms: 1 };
      inputs[B] = { raw: { type: "turn", tick: m.tick, ...b }, ms: 1 };
      return m.play(inputs as [TurnInput, TurnInput]);
    },
  };
}
