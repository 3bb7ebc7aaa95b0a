// Kiter (Easy): a ranged-only skirmisher. In sight of the opponent it keeps a fixed distance band with greedy
// single steps (no path finding, so it backs into corners and gets stuck on walls) and stands still inside
// the band; it shoots the ranged attack straight at the opponent's current tile whenever it can. Out of
// sight it walks to where it last saw the opponent, or roams. It ignores frostbursts, the zone and pickups.
import type { HelloMessageT, ObservationT, Turn } from "../protocol.ts";
import { arenaOf, cheb, hashSeed, numbersOf, randomFloor, rng, sees, stepToward } from "./tactics.ts";
import type { Decide, Strategy } from "./types.ts";

const NEAR = 5;
const FAR = 8;

function create(hello: HelloMessageT): Decide {
  const arena = arenaOf(hello.map);
  const nums = numbersOf(hello);
  const random = rng(hashSeed(hello.match_id, hello.bot_id + 11));
  let goal = randomFloor(arena, random);
  let strafeLeft = random() < 0.5;
  return (obs: ObservationT): Turn => {
    const turn: Turn = { type: "turn", tick: obs.tick };
    const me = obs.self;
    const opp = obs.opponents[0];
    if (!opp || me.stunned > 0) return turn;
    let mx = me.x;
    let my = me.y;
    if (opp.visible && opp.x !== null && opp.y !== null) {
      const tx = opp.x;
      const ty = opp.y;
      const d = cheb(me.x, me.y, tx, ty);
      if (d >= NEAR && d <= FAR) {
        // In the band: sidestep across the line of fire, keeping the same side until blocked.
        let best = -1;
        for (const m of obs.moves) {
          const side = (m.tile[0] - me.x) * (ty - me.y) - (m.tile[1] - me.y) * (tx - me.x);
          const nd = cheb(m.tile[0], m.tile[1], tx, ty);
          if (nd < NEAR || nd > FAR || side === 0) continue;
          const score = side > 0 === strafeLeft ? 2 : 1;
          if (score > best) {
            best = score;
            turn.move = m.dir;
            mx = m.tile[0];
            my = m.tile[1];
          }
        }
        if (best < 2) strafeLeft = !strafeLeft;
      } else {
        // Greedy on straight-line (Chebyshev) distance: away when too close (preferring open ground, though
        // it never looks more than one step ahead), toward when too far.
        let best = d < NEAR ? -0.5 * arena.wallNear[me.y * arena.w + me.x]! : 0;
        for (const m of obs.moves) {
          const nd = cheb(m.tile[0], m.tile[1], tx, ty);
          const gain =
            d < NEAR ? 2 * (nd - d) - 0.5 * arena.wallNear[m.tile[1] * arena.w + m.tile[0]]! : d - nd;
          if (gain > best || (gain === best && gain > 0 && random() < 0.5)) {
            best = gain;
            turn.move = m.dir;
            mx = m.tile[0];
            my = m.tile[1];
          }
        }
      }
      if (
        me.cooldowns.ranged === 0 &&
        cheb(mx, my, tx, ty) <= nums.rangedRange &&
        sees(arena, mx, my, tx, ty)
      ) {
        turn.attack = { name: "ranged", target: [tx, ty] };
      }
      return turn;
    }
    // Out of sight: walk to the last sighting, then roam between random tiles.
    let gx = goal % arena.w;
    let gy = (goal - gx) / arena.w;
    if (
      opp.last_seen &&
      obs.tick - opp.last_seen.tick < 20 &&
      (me.x !== opp.last_seen.tile[0] || me.y !== opp.last_seen.tile[1])
    ) {
      [gx, gy] = opp.last_seen.tile;
    } else if (me.x === gx && me.y === gy) {
      goal = randomFloor(arena, random);
    }
    const step = stepToward(arena, obs, gx, gy, random);
    if (step) turn.move = step.dir;
    else goal = randomFloor(arena, random);
    return turn;
  };
}

export const kiter: Strategy = {
  name: "kiter",
  display_name: "Kiter",
  difficulty: "Easy",
  version: "1.0.0",
  create,
};
