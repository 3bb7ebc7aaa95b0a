// Champion (Very hard): an expected-damage planner. Each tick it scores every tile it can end on (stay, the
// eight steps, the dashes) by the damage it expects to deal from there minus the damage it expects to take
// there, plus positional terms, then attacks from the chosen tile.
//  * It learns the opponent's movement online (a Markov model of its steps in the frame of the line between
//    the two fighters) and aims the ranged ray, ricochets included, at the most likely next tiles.
//  * It learns how the opponent aims (at our tile, or leading our last step) and where its cooldowns stand,
//    and steps off those lines of fire; it leaves frostburst areas before they explode (dashing if needed).
//  * Frostbursts go where the opponent is predicted two ticks ahead (or on it while it is stunned), the
//    repulsor is set up so the push slams the opponent into a wall, and after a slam the stunned opponent
//    gets a certain ranged hit.
//  * Heal when hurt, shield and haste pickups, zone awareness, last_seen when the opponent is hidden.
import type { HelloMessageT, ObservationT, Turn } from "../protocol.ts";
import {
  arenaOf,
  cheb,
  DIRS,
  DX,
  DY,
  dirIndex,
  hashSeed,
  isWallAt,
  numbersOf,
  OpponentTracker,
  rayBounceAt,
  rng,
  sees,
  traceRay,
  walk,
  zoneRadiusIn,
} from "./tactics.ts";
import type { Decide, Strategy } from "./types.ts";

/** Octant (0..7, as DIRS) of a vector; -1 for the zero vector. */
function octant(dx: number, dy: number): number {
  if (dx === 0 && dy === 0) return -1;
  const a = Math.atan2(dy, dx); // y grows south
  // E = 2, SE = 3, S = 4 ...: angle 0 is E.
  const k = Math.round(a / (Math.PI / 4)); // -4..4
  return (((k + 2) % 8) + 8) % 8;
}

const OCT = new Int8Array(41 * 41);
for (let dy = -20; dy <= 20; dy++)
  for (let dx = -20; dx <= 20; dx++) OCT[(dy + 20) * 41 + dx + 20] = octant(dx, dy);
const oct = (dx: number, dy: number) => OCT[(dy + 20) * 41 + dx + 20]!;

/** Direction index of a unit step, 8 for no step. */
function stepClass(dx: number, dy: number): number {
  if (dx === 0 && dy === 0) return 8;
  for (let d = 0; d < 8; d++) if (DX[d] === Math.sign(dx) && DY[d] === Math.sign(dy)) return d;
  return 8;
}

const BANDS = 3;
const band = (d: number) => (d <= 2 ? 0 : d <= 5 ? 1 : 2);

function create(hello: HelloMessageT): Decide {
  const A = arenaOf(hello.map);
  const N = numbersOf(hello);
  const me = hello.bot_id;
  const T = new OpponentTracker(me, N);
  const random = rng(hashSeed(hello.match_id, me));
  const W = A.w;

  // Opponent movement model: counts[band][lastClass][nextClass] in the relative frame (class r: step in
  // direction (r + k) % 8 where k is the octant from the opponent toward us; 8 = no step).
  const counts = new Float64Array(BANDS * 9 * 9);
  const marginal = new Float64Array(BANDS * 9);
  for (let b = 0; b < BANDS; b++) for (let c = 0; c < 9; c++) marginal[b * 9 + c] = c === 8 ? 2 : 1;
  let oppLastClass = 8; // relative class of the opponent's last step (in the frame of that time)
  let prevOppX = -1;
  let prevOppY = -1;
  let prevOppTick = -2;
  let prevBand = 1;
  let prevFrame = 0;
  let prevOppStunned = 0;

  // Opponent aim model: how its ranged shots chose their target.
  let aimCur = 1;
  let aimLead = 1;
  let aimOther = 1;
  let myStepX = 0;
  let myStepY = 0;
  let myPrevX = -1;
  let myPrevY = -1;

  // Scratch.
  const probX = new Int32Array(9);
  const probY = new Int32Array(9);
  const prob = new Float64Array(9);
  let nProb = 0;
  // The same prediction as a board: pAt[tile] valid where pStamp[tile] === predStamp.
  const pAt = new Float64Array(A.n);
  const pStamp = new Int32Array(A.n);
  let predStamp = 0;
  const rayBuf = new Int32Array(64);
  const markCur = new Int32Array(A.n);
  const markLead = new Int32Array(A.n);
  let stamp = 0;
  const candX = new Int32Array(20);
  const candY = new Int32Array(20);
  const candDir = new Int32Array(20); // 0..7 move, 8 stay, 10..17 dash

  function predict(ox: number, oy: number, mx: number, my: number, stunned: boolean) {
    predictTiles(ox, oy, mx, my, stunned);
    predStamp++;
    for (let i = 0; i < nProb; i++) {
      const t = probY[i]! * W + probX[i]!;
      pStamp[t] = predStamp;
      pAt[t] = prob[i]!;
    }
  }

  function predictTiles(ox: number, oy: number, mx: number, my: number, stunned: boolean) {
    nProb = 0;
    if (stunned) {
      probX[0] = ox;
      probY[0] = oy;
      prob[0] = 1;
      nProb = 1;
      return;
    }
    const k = oct(mx - ox, my - oy);
    const kk = Math.max(0, k);
    const b = band(cheb(ox, oy, mx, my));
    const row = (b * 9 + oppLastClass) * 9;
    let rowSum = 0;
    for (let c = 0; c < 9; c++) rowSum += counts[row + c]!;
    let margSum = 0;
    for (let c = 0; c < 9; c++) margSum += marginal[b * 9 + c]!;
    const alpha = 4;
    let stay = 0;
    const mask = A.steps[oy * W + ox]!;
    for (let c = 0; c < 9; c++) {
      const p = (counts[row + c]! + (alpha * marginal[b * 9 + c]!) / margSum) / (rowSum + alpha);
      if (c === 8) {
        stay += p;
        continue;
      }
      const d = (c + kk) % 8;
      const tx = ox + DX[d];
      const ty = oy + DY[d];
      if ((mask & (1 << d)) === 0 || (tx === mx && ty === my)) {
        stay += p;
        continue;
      }
      probX[nProb] = tx;
      probY[nProb] = ty;
      prob[nProb] = p;
      nProb++;
    }
    probX[nProb] = ox;
    probY[nProb] = oy;
    prob[nProb] = stay;
    nProb++;
  }

  /** Expected ranged damage from (sx, sy) aimed at (ax, ay) against the predicted opponent tiles. */
  function rayValue(sx: number, sy: number, ax: number, ay: number): number {
    const cnt = traceRay(A, sx, sy, ax - sx, ay - sy, N.rangedRange, rayBuf);
    const bounce = rayBounceAt;
    let v = 0;
    for (let j = 0; j < cnt; j++) {
      const t = rayBuf[j]!;
      if (pStamp[t] === predStamp) v += pAt[t]! * (j >= bounce ? N.ricochetDmg : N.rangedDmg);
    }
    return v;
  }

  let bestAimX = -1;
  let bestAimY = -1;
  /** Best ranged aim from (sx, sy): tries the predicted tiles, then (if allowed) nearby walls for bounces. */
  function bestRanged(sx: number, sy: number, walls: boolean): number {
    let best = 0;
    bestAimX = -1;
    for (let i = 0; i < nProb; i++) {
      const ax = probX[i]!;
      const ay = probY[i]!;
      if ((ax === sx && ay === sy) || !sees(A, sx, sy, ax, ay)) continue;
      const v = rayValue(sx, sy, ax, ay);
      if (v > best) {
        best = v;
        bestAimX = ax;
        bestAimY = ay;
      }
    }
    if (walls) {
      // Bounce shots: aim at the faces of visible walls around us.
      for (let i = 0; i < A.faces.length; i++) {
        const f = A.faces[i]!;
        const x = f % W;
        const y = (f - x) / W;
        if (cheb(sx, sy, x, y) > 6 || !sees(A, sx, sy, x, y)) continue;
        const v = rayValue(sx, sy, x, y);
        if (v > best) {
          best = v;
          bestAimX = x;
          bestAimY = y;
        }
      }
    }
    return best;
  }

  /** Tiles a push from (mx, my) against an opponent at (ox, oy) would slam it into a wall. */
  function slams(mx: number, my: number, ox: number, oy: number): boolean {
    const dx = Math.sign(ox - mx);
    const dy = Math.sign(oy - my);
    let x = ox;
    let y = oy;
    for (let i = 0; i < N.knockback; i++) {
      const nx = x + dx;
      const ny = y + dy;
      if (isWallAt(A, nx, ny) || (dx !== 0 && dy !== 0 && (isWallAt(A, nx, y) || isWallAt(A, x, ny))))
        return true;
      x = nx;
      y = ny;
    }
    return false;
  }

  /** Penalty for ending this tick on (x, y) from frostburst areas and the zone, looking a few ticks ahead. */
  function hazard(obs: ObservationT, x: number, y: number): number {
    let p = 0;
    for (const ar of obs.areas) {
      const d = cheb(x, y, ar.center[0], ar.center[1]);
      if (d > ar.radius) continue;
      const movesNeeded = ar.radius + 1 - d;
      if (movesNeeded > ar.explodes_in) p += d === 0 ? 26 : 15;
      else p += 1;
    }
    const z = obs.zone;
    const zd = cheb(x, y, z.center[0], z.center[1]);
    if (zd > z.radius) p += z.damage * 2 + 3 * (zd - z.radius);
    else if (zd > zoneRadiusIn(obs, 2)) p += 3;
    else if (zd > zoneRadiusIn(obs, 6)) p += 1;
    return p;
  }

  return (obs: ObservationT): Turn => {
    const turn: Turn = { type: "turn", tick: obs.tick };
    const self = obs.self;
    const opp = obs.opponents[0];
    if (!opp) return turn;
    const tick = obs.tick;

    // --- learn from what happened last tick ---
    for (const ev of obs.events) {
      if (ev.type === "attack" && ev.by !== me && ev.name === "ranged" && myPrevX >= 0) {
        const [tx, ty] = ev.target;
        if (tx === myPrevX && ty === myPrevY) aimCur++;
        else if ((myStepX !== 0 || myStepY !== 0) && tx === myPrevX + myStepX && ty === myPrevY + myStepY)
          aimLead++;
        else aimOther++;
      }
    }
    T.update(obs);
    const visible = T.visible;
    if (visible && prevOppTick === tick - 1 && prevOppStunned === 0) {
      const dx = T.x - prevOppX;
      const dy = T.y - prevOppY;
      if (Math.abs(dx) <= 1 && Math.abs(dy) <= 1) {
        const d = stepClass(dx, dy);
        const rel = d === 8 ? 8 : (d - prevFrame + 8) % 8;
        counts[(prevBand * 9 + oppLastClass) * 9 + rel]! += 1;
        marginal[prevBand * 9 + rel]! += 1;
        oppLastClass = rel;
      } else oppLastClass = 8;
    } else if (!visible) oppLastClass = 8;

    // My own step history (for the opponent's aim model).
    if (myPrevX >= 0) {
      myStepX = self.x - myPrevX;
      myStepY = self.y - myPrevY;
    }

    // Remember this tick's frame, to learn from the opponent's next step.
    myPrevX = self.x;
    myPrevY = self.y;
    if (visible) {
      prevOppX = T.x;
      prevOppY = T.y;
      prevOppTick = tick;
      prevOppStunned = opp.stunned ?? 0;
      prevBand = band(cheb(T.x, T.y, self.x, self.y));
      const k = oct(self.x - T.x, self.y - T.y);
      prevFrame = Math.max(0, k);
    }
    if (self.stunned > 0) return turn; // anything we sent would be refused

    const known = T.seenTick >= 0;
    const ox = T.x;
    const oy = T.y;
    const age = tick - T.seenTick;
    const oppStunned = visible && (opp.stunned ?? 0) > 0;
    if (known) predict(ox, oy, self.x, self.y, oppStunned);

    // Opponent threat this tick.
    const oppRangedReady = T.rangedAt <= tick;
    const oppRepReady = T.repulsorAt <= tick;
    stamp++;
    if (visible && oppRangedReady && !oppStunned) {
      const cnt = traceRay(A, ox, oy, self.x - ox, self.y - oy, N.rangedRange, rayBuf);
      for (let j = 0; j < cnt; j++) markCur[rayBuf[j]!] = stamp;
      if (myStepX !== 0 || myStepY !== 0) {
        const lx = self.x + myStepX;
        const ly = self.y + myStepY;
        if (!isWallAt(A, lx, ly) && (lx !== ox || ly !== oy)) {
          const c2 = traceRay(A, ox, oy, lx - ox, ly - oy, N.rangedRange, rayBuf);
          for (let j = 0; j < c2; j++) markLead[rayBuf[j]!] = stamp;
        }
      }
    }
    const aimSum = aimCur + aimLead + aimOther;
    const pCur = aimCur / aimSum;
    const pLead = aimLead / aimSum;
    const pOther = aimOther / aimSum;

    // Candidates: stay, steps, dashes.
    let nc = 0;
    candX[nc] = self.x;
    candY[nc] = self.y;
    candDir[nc++] = 8;
    for (const m of obs.moves) {
      candX[nc] = m.tile[0];
      candY[nc] = m.tile[1];
      candDir[nc++] = dirIndex(m.dir);
    }
    for (const d of obs.dashes) {
      if (d.distance < 2) continue;
      candX[nc] = d.tile[0];
      candY[nc] = d.tile[1];
      candDir[nc++] = 10 + dirIndex(d.dir);
    }

    const cd = self.cooldowns;
    const hpFrac = self.hp / N.hp;
    const lateGame = tick >= 150;
    // Pickup targets.
    let pickX = -1;
    let pickY = -1;
    let pickW = 0;
    for (const p of obs.pickups) {
      let w = 0;
      if (p.kind === "heal") w = self.hp <= N.hp - 20 ? (1 - hpFrac) * 6 + 1 : 0;
      else if (p.kind === "shield") w = self.shield < 20 ? 2 : 0;
      else w = cd.ranged + cd.frostburst / 2 + cd.dash / 3 > 4 ? 1.5 : 0.5;
      if (w <= 0) continue;
      const dMe = walk(A, self.x, self.y, p.tile[0], p.tile[1]);
      const dOp = known ? walk(A, ox, oy, p.tile[0], p.tile[1]) : 99;
      if (dMe > dOp + 1 && dMe > 3) w *= 0.3; // it gets there first
      w /= 1 + dMe / 6;
      if (w > pickW) {
        pickW = w;
        pickX = p.tile[0];
        pickY = p.tile[1];
      }
    }

    // Protecting a lead: late in the match with enough hp in hand, stop trading blows and wait out the clock
    // (a timeout goes to the fighter with more hp): keep away, prefer cover, weigh incoming fire more.
    const lead = self.hp + self.shield - opp.hp - opp.shield;
    const safe = lead > 0 && lead >= 8 + (N.tickLimit - tick) * 0.2;
    const fear = safe ? 1.8 : 1.1;
    // Preferred distance: close enough to slam with the repulsor when it is ready, otherwise mid range.
    const prefer = safe ? 7 : cd.repulsor <= 1 ? 2 : 4;

    let bestScore = -1e9;
    let best = 0;
    for (let c = 0; c < nc; c++) {
      const x = candX[c]!;
      const y = candY[c]!;
      const t = y * W + x;
      let s = -hazard(obs, x, y);
      if (candDir[c]! >= 10) s -= 2.5; // dashes cost their cooldown
      if (known) {
        const d = cheb(x, y, ox, oy);
        if (visible) {
          // Damage we expect to take here.
          if (oppRangedReady && !oppStunned) {
            let hit = 0;
            if (markCur[t] === stamp) hit += pCur;
            if (markLead[t] === stamp) hit += pLead;
            hit += pOther * 0.15;
            s -= hit * N.rangedDmg * fear;
          }
          if (oppRepReady && d <= 2 && !oppStunned) {
            s -= d <= 1 ? 6 : 3;
            if (slams(ox, oy, x, y)) s -= 6;
          }
          // Damage we can deal from here.
          if (cd.ranged === 0) s += bestRanged(x, y, false);
          else if (cd.ranged <= 1 && sees(A, x, y, ox, oy)) s += 2;
          if (cd.repulsor === 0 && d <= 2) {
            let adj = 0;
            let slam = 0;
            for (let i = 0; i < nProb; i++) {
              if (cheb(x, y, probX[i]!, probY[i]!) === 1) {
                adj += prob[i]!;
                if (slams(x, y, probX[i]!, probY[i]!)) slam += prob[i]!;
              }
            }
            s += adj * N.repulsorDmg + slam * (N.slamDmg + 6);
          }
          if (!sees(A, x, y, ox, oy)) s += safe ? 3 : cd.ranged <= 1 ? -3 : -0.5;
        } else if (!safe) {
          // Hidden: go to where it was last seen, carefully.
          s -= 0.6 * walk(A, x, y, ox, oy) * (age < 15 ? 1 : 0.3);
        }
        s -= 0.8 * Math.abs(d - prefer);
      }
      if (!known || (!visible && age >= 15)) s -= 0.5 * walk(A, x, y, 10, 10);
      if (lateGame) s -= 0.3 * cheb(x, y, 10, 10);
      if (pickW > 0) s -= pickW * walk(A, x, y, pickX, pickY) * 0.5;
      s -= A.wallNear[t]! * 0.25;
      s += random() * 0.3;
      if (s > bestScore) {
        bestScore = s;
        best = c;
      }
    }

    const ex = candX[best]!;
    const ey = candY[best]!;
    const dir = candDir[best]!;
    if (dir >= 10) turn.dash = DIRS[dir - 10];
    else if (dir < 8) turn.move = DIRS[dir];

    // --- attack from (ex, ey) ---
    if (known) {
      const d = cheb(ex, ey, ox, oy);
      let repV = 0;
      if (cd.repulsor === 0 && visible) {
        for (let i = 0; i < nProb; i++) {
          if (cheb(ex, ey, probX[i]!, probY[i]!) === 1) {
            repV += prob[i]! * (N.repulsorDmg + (slams(ex, ey, probX[i]!, probY[i]!) ? N.slamDmg + 6 : 0));
          }
        }
      }
      let rangedV = 0;
      if (cd.ranged === 0 && (visible || age <= 2)) {
        rangedV = bestRanged(ex, ey, !visible || rangedV < 3);
        if (rangedV < 2.5) rangedV = 0;
      }
      const aimX = bestAimX;
      const aimY = bestAimY;
      if (repV > 0 && repV >= rangedV) {
        turn.attack = { name: "repulsor" };
      } else if (rangedV > 0 && aimX >= 0) {
        turn.attack = { name: "ranged", target: [aimX, aimY] };
      } else if (cd.frostburst === 0 && visible && d <= N.frostRange + 1) {
        // Frostburst: on a stunned opponent, or where it is predicted to stand in two ticks.
        let fx = ox;
        let fy = oy;
        const stunTicks = opp.stunned ?? 0;
        if (stunTicks < 2) {
          // Two-step guess: the most likely step, taken twice when still legal.
          let pm = -1;
          let sx = 0;
          let sy = 0;
          for (let i = 0; i < nProb; i++) {
            if (prob[i]! > pm) {
              pm = prob[i]!;
              sx = probX[i]! - ox;
              sy = probY[i]! - oy;
            }
          }
          fx = ox + sx;
          fy = oy + sy;
          if ((sx !== 0 || sy !== 0) && (A.steps[fy * W + fx]! & (1 << stepClass(sx, sy))) !== 0) {
            fx += sx;
            fy += sy;
          }
        }
        const selfHit = cheb(ex, ey, fx, fy) <= N.frostRadius + 1;
        if (
          !selfHit &&
          !isWallAt(A, fx, fy) &&
          cheb(ex, ey, fx, fy) <= N.frostRange &&
          sees(A, ex, ey, fx, fy) &&
          (fx !== ex || fy !== ey)
        ) {
          turn.attack = { name: "frostburst", target: [fx, fy] };
        }
      }
    }
    return turn;
  };
}

export const champion: Strategy = {
  name: "champion",
  display_name: "Champion",
  difficulty: "Very hard",
  version: "1.0.0",
  create,
};
