// Brawler (Medium): a melee chaser. It closes in on the opponent along shortest paths, weaving off the
// opponent's line of fire and dashing to cut big gaps; it fires the repulsor whenever the opponent is adjacent and otherwise the ranged attack at the
// opponent's current tile. Out of sight it hunts: last sighting first, then random tiles. It walks straight
// through frostburst areas and pays no attention to the zone or to pickups.
import type { HelloMessageT, ObservationT, Turn } from "../protocol.ts";
import {
  arenaOf,
  cheb,
  hashSeed,
  numbersOf,
  randomFloor,
  rng,
  sees,
  stepToward,
  traceRay,
  walk,
} from "./tactics.ts";
import type { Decide, Strategy } from "./types.ts";

/** Share of ticks on which the charge steps off the line of fire (when a closing step allows it). */
const WEAVE = 0.4;

function create(hello: HelloMessageT): Decide {
  const arena = arenaOf(hello.map);
  const nums = numbersOf(hello);
  const random = rng(hashSeed(hello.match_id, hello.bot_id + 23));
  let goal = randomFloor(arena, random);
  const ray = new Int32Array(64);
  return (obs: ObservationT): Turn => {
    const turn: Turn = { type: "turn", tick: obs.tick };
    const me = obs.self;
    const opp = obs.opponents[0];
    if (!opp || me.stunned > 0) return turn;
    const visible = opp.visible && opp.x !== null && opp.y !== null;
    let gx: number;
    let gy: number;
    if (visible) {
      gx = opp.x!;
      gy = opp.y!;
    } else if (
      opp.last_seen &&
      obs.tick - opp.last_seen.tick < 25 &&
      (me.x !== opp.last_seen.tile[0] || me.y !== opp.last_seen.tile[1])
    ) {
      [gx, gy] = opp.last_seen.tile;
    } else {
      gx = goal % arena.w;
      gy = (goal - gx) / arena.w;
      if (me.x === gx && me.y === gy) goal = randomFloor(arena, random);
    }
    const d = cheb(me.x, me.y, gx, gy);
    if (visible && d === 1 && me.cooldowns.repulsor === 0) {
      turn.attack = { name: "repulsor" };
      return turn;
    }
    let mx = me.x;
    let my = me.y;
    if (d > 1 || (!visible && d === 1)) {
      // Dash when far and a dash shortens the walk by at least two tiles.
      const here = walk(arena, me.x, me.y, gx, gy);
      let bestWalk = here - 2;
      if (visible && d >= 5 && me.cooldowns.dash === 0) {
        for (const ds of obs.dashes) {
          const w = walk(arena, ds.tile[0], ds.tile[1], gx, gy);
          if (w < bestWalk && w >= 1) {
            bestWalk = w;
            turn.dash = ds.dir;
            mx = ds.tile[0];
            my = ds.tile[1];
          }
        }
      }
      if (!turn.dash && visible) {
        // Charge, but weave: of the steps that close in (or at least keep the distance), prefer one off the
        // line the opponent would shoot along at our current tile.
        const n = traceRay(arena, gx, gy, me.x - gx, me.y - gy, nums.rangedRange, ray);
        let best = -1e9;
        const weave = random() < WEAVE;
        for (const m of obs.moves) {
          const w = walk(arena, m.tile[0], m.tile[1], gx, gy);
          if (w > here || (m.tile[0] === gx && m.tile[1] === gy)) continue;
          const t = m.tile[1] * arena.w + m.tile[0];
          let onLine = false;
          for (let i = 0; i < n; i++) if (ray[i] === t) onLine = true;
          const score = 2 * (here - w) - (onLine && weave ? 2.5 : 0) + random() * 0.5;
          if (score > best) {
            best = score;
            turn.move = m.dir;
            mx = m.tile[0];
            my = m.tile[1];
          }
        }
      } else if (!turn.dash) {
        const step = stepToward(arena, obs, gx, gy, random);
        if (step) {
          turn.move = step.dir;
          mx = step.tile[0];
          my = step.tile[1];
        } else if (!visible) goal = randomFloor(arena, random);
      }
    }
    if (visible && me.cooldowns.ranged === 0 && (mx !== gx || my !== gy)) {
      if (cheb(mx, my, gx, gy) <= nums.rangedRange && sees(arena, mx, my, gx, gy)) {
        turn.attack = { name: "ranged", target: [gx, gy] };
      }
    }
    return turn;
  };
}

export const brawler: Strategy = {
  name: "brawler",
  display_name: "Brawler",
  difficulty: "Medium",
  version: "1.0.0",
  create,
};
