// A deterministic bot for determinism tests: every choice comes from its own seeded generator and the
// observation, so two runs with the same seed send the same turns. It uses every kind of turn part,
// and now and then a broken one, so replays exercise refusals too.
import type { Strategy } from "../../engine/house/types.ts";
import type { ObservationT, Turn } from "../../engine/protocol.ts";

export function scriptedBot(seed: number): Strategy {
  return {
    name: `scripted-${seed}`,
    display_name: `Scripted ${seed}`,
    difficulty: null,
    version: "1",
    create() {
      let s = seed >>> 0 || 1;
      const next = (n: number) => {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        return s % n;
      };
      return (o: ObservationT): Turn => {
        const t: Turn = { type: "turn", tick: o.tick };
        const opp = o.opponents[0]!;
        const roll = next(10);
        if (roll < 6 && o.moves.length > 0) t.move = o.moves[next(o.moves.length)]!.dir;
        else if (roll < 8 && o.dashes.length > 0) t.dash = o.dashes[next(o.dashes.length)]!.dir;
        if (opp.visible && opp.x !== null && opp.y !== null) {
          const a = next(3);
          if (a === 0) t.attack = { name: "ranged", target: [opp.x, opp.y] };
          else if (a === 1) t.attack = { name: "frostburst", target: [opp.x, opp.y] };
          else t.attack = { name: "repulsor" };
        }
        if (next(30) === 0) t.shout = ["gg", "hello", "watch out"][next(3)]!;
        if (next(50) === 0) return { ...t, move: "N", dash: "S" };
        return t;
      };
    },
  };
}
