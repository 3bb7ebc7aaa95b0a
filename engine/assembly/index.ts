// The match engine: one instance plays one match. Pure integer state, one seeded PRNG, no clock, no I/O.
// The host writes params, map and turns into the regions of layout.ts and reads state, events and
// observations back; every export takes and returns numbers only. Tick order: docs/adr/0001-tick-order.md.
// Longer than 500 lines: the tick is one sequence of steps over the module's scratch arrays, kept in one file so
// that step() and the steps it calls read top to bottom in the order they run (the regions are layout.ts and
// state.ts; nothing else here stands alone).

import {
  A_STRIDE, ATTACK_COUNT, ATTACK_FROSTBURST, ATTACK_RANGED, ATTACK_REPULSOR, BOARD, DANGER_FROSTBURST,
  DANGER_REACH, DANGER_ZONE, DIR_COUNT, EV_AREA_EXPLODE, EV_AREA_SPAWN, EV_ATTACK, EV_DEATH, EV_HIT, EV_MOVE,
  EV_PICKUP, EV_PICKUP_SPAWN, EV_REPULSE, EV_SHOUT, EV_STATUS, EV_STRIDE, EV_ZONE_DAMAGE, EV_ZONE_SHRINK,
  F_ALIVE, F_CD, F_CD_DASH, F_CD_SHOUT, F_DEALT, F_HP, F_SHIELD, F_SLOW, F_STUN, F_TAKEN, F_X, F_Y, FIGHTERS,
  LAYOUT_VERSION, MAX_AREAS, O_DANGER, O_DANGER_COUNT, O_DANGER_STRIDE, O_DASHES, O_MOVES, O_OPP_VISIBLE,
  P_COLL_DMG, P_DANGER_HORIZON, P_DASH_CD, P_DASH_MAX, P_F_CD, P_F_CENTER_DMG, P_F_DELAY, P_F_DMG, P_F_RADIUS,
  P_F_RANGE, P_F_SLOW, P_F_STUN, P_HASTE_WEIGHT, P_HEAL, P_HEAL_WEIGHT, P_HP, P_P_CD, P_P_DMG, P_P_KNOCK,
  P_PICK_FIRST, P_PICK_INTERVAL, P_PICK_MAX, P_R_CD, P_R_DMG, P_R_RANGE, P_R_RICO_DMG, P_SHIELD, P_SHIELD_MAX,
  P_SHIELD_WEIGHT, P_SHOUT_CD, P_SLAM_DMG, P_SLAM_STUN, P_SPAWN_AX, P_SPAWN_AY, P_SPAWN_BX, P_SPAWN_BY,
  P_SPOT_COUNT, P_SPOTS, P_TICK_LIMIT, P_VERSION, P_Z_DMG, P_Z_INTERVAL, P_Z_MIN, P_Z_RADIUS, P_Z_START,
  PART_ATTACK, PART_DASH, PART_MOVE, PART_SHOUT, PICKUP_HASTE, PICKUP_HEAL, PICKUP_SHIELD, PK_STRIDE,
  R_DOUBLE_KNOCKOUT, R_LAST_STANDING, R_NONE, R_TIMEOUT_DAMAGE, R_TIMEOUT_DRAW, R_TIMEOUT_HP, RJ_BLOCKED,
  RJ_NOT_READY, RJ_NOT_VISIBLE, S_AREA_COUNT, S_AREAS, S_EVENT_COUNT, S_NEXT_PICKUP, S_PICKUP_COUNT, S_PICKUPS,
  S_REASON, S_RNG, S_SPAWN_SWAP, S_STATUS, S_TICK, S_WINNER, S_ZONE_NEXT, S_ZONE_RADIUS, SRC_COLLISION,
  SRC_WALL_SLAM, STATE_SIZE, T_ATTACK, T_DASH, T_MOVE, T_SHOUT, T_TX, T_TY,
} from "./layout";
import {
  params, tiles, turns, state, events, obs, DX, DY, P, S, setS, F, setF, T, inBoard, isWall, iabs, sign, cheb, rand, randBelow, emit, reject, stepOpen, visible, ray, occupiedBy, dashReach,
} from "./state";

export { visible } from "./state";

// Per-step scratch: validated parts of each fighter's turn.
const wantAttack = new StaticArray<i32>(FIGHTERS);
const aimX = new StaticArray<i32>(FIGHTERS);
const aimY = new StaticArray<i32>(FIGHTERS);
const pathLen = new StaticArray<i32>(FIGHTERS);
const pathDir = new StaticArray<i32>(FIGHTERS);
const moved = new StaticArray<i32>(FIGHTERS);
const blocked = new StaticArray<i32>(FIGHTERS);
const startX = new StaticArray<i32>(FIGHTERS);
const startY = new StaticArray<i32>(FIGHTERS);
const isDash = new StaticArray<i32>(FIGHTERS);

export function paramsPtr(): usize { return changetype<usize>(params); }
export function tilesPtr(): usize { return changetype<usize>(tiles); }
export function turnsPtr(): usize { return changetype<usize>(turns); }
export function statePtr(): usize { return changetype<usize>(state); }
export function eventsPtr(): usize { return changetype<usize>(events); }
export function obsPtr(): usize { return changetype<usize>(obs); }
export function layoutVersion(): i32 { return LAYOUT_VERSION; }


export function init(seed: i32): i32 {
  if (P(P_VERSION) != LAYOUT_VERSION) return -1;
  for (let i = 0; i < STATE_SIZE; i++) unchecked(state[i] = 0);
  setS(S_RNG, seed == 0 ? 0x9e3779b9 : seed);
  const swap = <i32>(rand() & 1);
  setS(S_SPAWN_SWAP, swap);
  for (let f = 0; f < FIGHTERS; f++) {
    const side = f ^ swap;
    setF(f, F_X, side == 0 ? P(P_SPAWN_AX) : P(P_SPAWN_BX));
    setF(f, F_Y, side == 0 ? P(P_SPAWN_AY) : P(P_SPAWN_BY));
    setF(f, F_HP, P(P_HP));
    setF(f, F_ALIVE, 1);
  }
  setS(S_WINNER, -1);
  setS(S_REASON, R_NONE);
  setS(S_ZONE_RADIUS, P(P_Z_RADIUS));
  setS(S_ZONE_NEXT, P(P_Z_START));
  setS(S_NEXT_PICKUP, P(P_PICK_FIRST));
  return 0;
}

// Damage through shield first; returns damage taken by hp+shield and records totals.
function damage(attacker: i32, target: i32, source: i32, amount: i32, ricochet: i32): void {
  if (F(target, F_ALIVE) == 0 || amount <= 0) return;
  let absorbed = 0;
  const sh = F(target, F_SHIELD);
  if (sh > 0) {
    absorbed = sh < amount ? sh : amount;
    setF(target, F_SHIELD, sh - absorbed);
  }
  setF(target, F_HP, F(target, F_HP) - (amount - absorbed));
  setF(target, F_TAKEN, F(target, F_TAKEN) + amount);
  if (attacker != target) setF(attacker, F_DEALT, F(attacker, F_DEALT) + amount);
  emit(EV_HIT, attacker, target, source, amount, ricochet, absorbed, 0);
}

function applyStatus(f: i32, field: i32, kind: i32, ticks: i32): void {
  if (ticks <= 0) return;
  // +1 because timers count down at the end of this step: the value a bot sees is "ticks still affected".
  const v = ticks + 1;
  if (F(f, field) < v) setF(f, field, v);
  emit(EV_STATUS, f, kind, ticks, 0, 0, 0, 0);
}

function validateMovement(f: i32): void {
  pathLen[f] = 0;
  pathDir[f] = -1;
  isDash[f] = 0;
  const mv = T(f, T_MOVE);
  const ds = T(f, T_DASH);
  const x = F(f, F_X);
  const y = F(f, F_Y);
  if (mv >= 0) {
    if (F(f, F_STUN) > 0) { reject(f, PART_MOVE, RJ_NOT_READY); return; }
    if (mv >= DIR_COUNT || !stepOpen(x, y, mv)) { reject(f, PART_MOVE, RJ_BLOCKED); return; }
    pathLen[f] = 1;
    pathDir[f] = mv;
  } else if (ds >= 0) {
    if (F(f, F_STUN) > 0 || F(f, F_SLOW) > 0 || F(f, F_CD_DASH) > 0) { reject(f, PART_DASH, RJ_NOT_READY); return; }
    const n = ds < DIR_COUNT ? dashReach(x, y, ds, -1) : 0;
    if (n == 0) { reject(f, PART_DASH, RJ_BLOCKED); return; }
    pathLen[f] = n;
    pathDir[f] = ds;
    isDash[f] = 1;
    setF(f, F_CD_DASH, P(P_DASH_CD) + 1);
  }
}

// Simultaneous movement in sub-steps: the same tile or a swap blocks both; following a leaver is allowed.
function resolveMovement(): void {
  for (let f = 0; f < FIGHTERS; f++) {
    moved[f] = 0;
    blocked[f] = 0;
    startX[f] = F(f, F_X);
    startY[f] = F(f, F_Y);
  }
  const max = P(P_DASH_MAX);
  for (let s = 0; s < max; s++) {
    let ix0 = -1; let iy0 = -1; let ix1 = -1; let iy1 = -1;
    const go0 = pathLen[0] > s && blocked[0] == 0;
    const go1 = pathLen[1] > s && blocked[1] == 0;
    if (!go0 && !go1) break;
    if (go0) { ix0 = F(0, F_X) + DX[pathDir[0]]; iy0 = F(0, F_Y) + DY[pathDir[0]]; }
    if (go1) { ix1 = F(1, F_X) + DX[pathDir[1]]; iy1 = F(1, F_Y) + DY[pathDir[1]]; }
    let stop0 = false;
    let stop1 = false;
    if (go0 && go1 && ix0 == ix1 && iy0 == iy1) { stop0 = true; stop1 = true; }
    const into1 = go0 && ix0 == F(1, F_X) && iy0 == F(1, F_Y);
    const into0 = go1 && ix1 == F(0, F_X) && iy1 == F(0, F_Y);
    if (into1 && (!go1 || into0)) stop0 = true;
    if (into0 && (!go0 || into1)) stop1 = true;
    if (go0) { if (stop0) blocked[0] = 1; else { setF(0, F_X, ix0); setF(0, F_Y, iy0); moved[0]++; } }
    if (go1) { if (stop1) blocked[1] = 1; else { setF(1, F_X, ix1); setF(1, F_Y, iy1); moved[1]++; } }
  }
  for (let f = 0; f < FIGHTERS; f++) {
    if (pathLen[f] == 0) continue;
    emit(EV_MOVE, f, startX[f], startY[f], F(f, F_X), F(f, F_Y), isDash[f], blocked[f]);
    // A dash that runs into the other fighter rams it.
    if (isDash[f] != 0 && blocked[f] != 0) damage(f, 1 - f, SRC_COLLISION, P(P_COLL_DMG), 0);
  }
}

function collectPickups(): void {
  for (let f = 0; f < FIGHTERS; f++) {
    const x = F(f, F_X);
    const y = F(f, F_Y);
    let n = S(S_PICKUP_COUNT);
    for (let i = 0; i < n; i++) {
      const o = S_PICKUPS + i * PK_STRIDE;
      if (S(o + 1) != x || S(o + 2) != y) continue;
      const kind = S(o);
      let amount = 0;
      if (kind == PICKUP_HEAL) {
        const hp = F(f, F_HP);
        const cap = P(P_HP);
        amount = hp + P(P_HEAL) > cap ? cap - hp : P(P_HEAL);
        setF(f, F_HP, hp + amount);
      } else if (kind == PICKUP_SHIELD) {
        const sh = F(f, F_SHIELD);
        const cap = P(P_SHIELD_MAX);
        amount = sh + P(P_SHIELD) > cap ? cap - sh : P(P_SHIELD);
        setF(f, F_SHIELD, sh + amount);
      } else {
        amount = F(f, F_CD_DASH);
        setF(f, F_CD_DASH, 0);
        for (let a = 0; a < ATTACK_COUNT; a++) setF(f, F_CD + a, 0);
      }
      emit(EV_PICKUP, f, kind, x, y, amount, 0, 0);
      // Remove by moving the last pickup into this slot.
      n--;
      const last = S_PICKUPS + n * PK_STRIDE;
      setS(o, S(last)); setS(o + 1, S(last + 1)); setS(o + 2, S(last + 2));
      setS(S_PICKUP_COUNT, n);
      break;
    }
  }
}

function validateAttack(f: i32): void {
  wantAttack[f] = -1;
  const a = T(f, T_ATTACK);
  if (a < 0) return;
  if (a >= ATTACK_COUNT) { reject(f, PART_ATTACK, RJ_BLOCKED); return; }
  if (F(f, F_STUN) > 0 || F(f, F_CD + a) > 0) { reject(f, PART_ATTACK, RJ_NOT_READY); return; }
  const x = F(f, F_X);
  const y = F(f, F_Y);
  const tx = T(f, T_TX);
  const ty = T(f, T_TY);
  if (a != ATTACK_REPULSOR) {
    if (!inBoard(tx, ty) || (tx == x && ty == y)) { reject(f, PART_ATTACK, RJ_BLOCKED); return; }
    if (a == ATTACK_FROSTBURST && (cheb(x, y, tx, ty) > P(P_F_RANGE) || isWall(tx, ty))) {
      reject(f, PART_ATTACK, RJ_BLOCKED);
      return;
    }
    if (visible(x, y, tx, ty) == 0) { reject(f, PART_ATTACK, RJ_NOT_VISIBLE); return; }
  }
  wantAttack[f] = a;
  // The aim is locked here, after movement and before repulsors.
  aimX[f] = tx - x;
  aimY[f] = ty - y;
  const cds = a == ATTACK_RANGED ? P(P_R_CD) : a == ATTACK_FROSTBURST ? P(P_F_CD) : P(P_P_CD);
  setF(f, F_CD + a, cds + 1);
  emit(EV_ATTACK, f, a, a == ATTACK_REPULSOR ? x : tx, a == ATTACK_REPULSOR ? y : ty, x, y, 0);
}

function resolveRepulsors(): void {
  // Both pushes are decided from the positions before either applies, so order never matters.
  let push0 = false;
  let push1 = false;
  if (wantAttack[0] == ATTACK_REPULSOR && cheb(F(0, F_X), F(0, F_Y), F(1, F_X), F(1, F_Y)) == 1) push0 = true;
  if (wantAttack[1] == ATTACK_REPULSOR && cheb(F(0, F_X), F(0, F_Y), F(1, F_X), F(1, F_Y)) == 1) push1 = true;
  const dx0 = sign(F(1, F_X) - F(0, F_X));
  const dy0 = sign(F(1, F_Y) - F(0, F_Y));
  if (push0) knockBack(0, 1, dx0, dy0);
  if (push1) knockBack(1, 0, -dx0, -dy0);
}

function knockBack(by: i32, target: i32, dx: i32, dy: i32): void {
  damage(by, target, ATTACK_REPULSOR, P(P_P_DMG), 0);
  const fx = F(target, F_X);
  const fy = F(target, F_Y);
  let x = fx;
  let y = fy;
  let slam = 0;
  let bump = 0;
  for (let i = 0; i < P(P_P_KNOCK); i++) {
    const nx = x + dx;
    const ny = y + dy;
    const cornered = dx != 0 && dy != 0 && (isWall(nx, y) || isWall(x, ny));
    if (isWall(nx, ny) || cornered) { slam = 1; break; }
    if (occupiedBy(nx, ny, target) >= 0) { bump = 1; break; }
    x = nx;
    y = ny;
  }
  setF(target, F_X, x);
  setF(target, F_Y, y);
  emit(EV_REPULSE, by, target, fx, fy, x, y, slam);
  if (slam != 0) {
    damage(by, target, SRC_WALL_SLAM, P(P_SLAM_DMG), 0);
    applyStatus(target, F_STUN, 2, P(P_SLAM_STUN));
  } else if (bump != 0) {
    damage(by, target, SRC_COLLISION, P(P_COLL_DMG), 0);
  }
}

// The ranged ray (geometry.ts) from the shooter's current tile along its locked aim; the first open tile that
// holds the other fighter takes the hit. The shooter is module state: the ray's visit cannot close over it.
let rayFrom: i32 = 0;
function rayHits(tx: i32, ty: i32, bounced: bool, px: i32, py: i32): bool {
  const other = 1 - rayFrom;
  if (F(other, F_ALIVE) == 0 || tx != F(other, F_X) || ty != F(other, F_Y)) return false;
  damage(rayFrom, other, ATTACK_RANGED, bounced ? P(P_R_RICO_DMG) : P(P_R_DMG), bounced ? 1 : 0);
  return true;
}
function fireRanged(f: i32): void {
  rayFrom = f;
  const bounced = ray(F(f, F_X), F(f, F_Y), aimX[f], aimY[f], P(P_R_RANGE) * 2, rayHits) >= 0 ? 1 : 0;
  if (bounced != 0) {
    // Mark the attack record so stats can count bounces without re-tracing the ray.
    const count = S(S_EVENT_COUNT);
    for (let i = 0; i < count; i++) {
      const o = i * EV_STRIDE;
      if (unchecked(events[o]) == EV_ATTACK && unchecked(events[o + 1]) == f) unchecked(events[o + 7] = 1);
    }
  }
}

function explodeAreas(tick: i32): void {
  let n = S(S_AREA_COUNT);
  let i = 0;
  while (i < n) {
    const o = S_AREAS + i * A_STRIDE;
    if (S(o + 4) > tick) { i++; continue; }
    const owner = S(o);
    const cx = S(o + 1);
    const cy = S(o + 2);
    const r = S(o + 3);
    emit(EV_AREA_EXPLODE, owner, cx, cy, r, 0, 0, 0);
    for (let f = 0; f < FIGHTERS; f++) {
      if (F(f, F_ALIVE) == 0) continue;
      const d = cheb(F(f, F_X), F(f, F_Y), cx, cy);
      if (d > r) continue;
      if (d == 0) {
        damage(owner, f, ATTACK_FROSTBURST, P(P_F_CENTER_DMG), 0);
        applyStatus(f, F_STUN, 2, P(P_F_STUN));
      } else {
        damage(owner, f, ATTACK_FROSTBURST, P(P_F_DMG), 0);
        applyStatus(f, F_SLOW, 1, P(P_F_SLOW));
      }
    }
    n--;
    const last = S_AREAS + n * A_STRIDE;
    for (let k = 0; k < A_STRIDE; k++) setS(o + k, S(last + k));
    setS(S_AREA_COUNT, n);
  }
}

function spawnArea(f: i32, tick: i32): void {
  const n = S(S_AREA_COUNT);
  if (n >= MAX_AREAS) return;
  const o = S_AREAS + n * A_STRIDE;
  const x = F(f, F_X) + aimX[f];
  const y = F(f, F_Y) + aimY[f];
  const at = tick + P(P_F_DELAY);
  setS(o, f); setS(o + 1, x); setS(o + 2, y); setS(o + 3, P(P_F_RADIUS)); setS(o + 4, at);
  setS(S_AREA_COUNT, n + 1);
  emit(EV_AREA_SPAWN, f, x, y, P(P_F_RADIUS), at, 0, 0);
}

function applyZone(tick: i32): void {
  const r = S(S_ZONE_RADIUS);
  const c = BOARD / 2;
  for (let f = 0; f < FIGHTERS; f++) {
    if (F(f, F_ALIVE) == 0) continue;
    if (cheb(F(f, F_X), F(f, F_Y), c, c) <= r) continue;
    // Zone damage ignores shields: standing outside must always cost.
    const dmg = P(P_Z_DMG);
    setF(f, F_HP, F(f, F_HP) - dmg);
    setF(f, F_TAKEN, F(f, F_TAKEN) + dmg);
    emit(EV_ZONE_DAMAGE, f, dmg, 0, 0, 0, 0, 0);
  }
  const next = S(S_ZONE_NEXT);
  if (next >= 0 && tick + 1 >= next) {
    const nr = r - 1;
    setS(S_ZONE_RADIUS, nr);
    setS(S_ZONE_NEXT, nr <= P(P_Z_MIN) ? -1 : next + P(P_Z_INTERVAL));
    emit(EV_ZONE_SHRINK, nr, 0, 0, 0, 0, 0, 0);
  }
}

function spawnPickups(tick: i32): void {
  if (tick + 1 < S(S_NEXT_PICKUP)) return;
  setS(S_NEXT_PICKUP, tick + 1 + P(P_PICK_INTERVAL));
  const pairs = P(P_SPOT_COUNT) / 2;
  if (pairs <= 0 || S(S_PICKUP_COUNT) + 2 > P(P_PICK_MAX)) return;
  // Pick among spot pairs where both spots are empty, so both sides always get the same offer.
  let free = 0;
  for (let p = 0; p < pairs; p++) if (pairFree(p)) free++;
  if (free == 0) return;
  let pick = randBelow(free);
  let pair = 0;
  for (let p = 0; p < pairs; p++) {
    if (!pairFree(p)) continue;
    if (pick == 0) { pair = p; break; }
    pick--;
  }
  const w0 = P(P_HEAL_WEIGHT);
  const w1 = P(P_SHIELD_WEIGHT);
  const w2 = P(P_HASTE_WEIGHT);
  const roll = randBelow(w0 + w1 + w2);
  const kind = roll < w0 ? PICKUP_HEAL : roll < w0 + w1 ? PICKUP_SHIELD : PICKUP_HASTE;
  for (let k = 0; k < 2; k++) {
    const s = pair * 2 + k;
    const n = S(S_PICKUP_COUNT);
    const o = S_PICKUPS + n * PK_STRIDE;
    const x = P(P_SPOTS + s * 2);
    const y = P(P_SPOTS + s * 2 + 1);
    setS(o, kind); setS(o + 1, x); setS(o + 2, y);
    setS(S_PICKUP_COUNT, n + 1);
    emit(EV_PICKUP_SPAWN, kind, x, y, 0, 0, 0, 0);
  }
}

function pairFree(p: i32): bool {
  const n = S(S_PICKUP_COUNT);
  for (let k = 0; k < 2; k++) {
    const s = p * 2 + k;
    const x = P(P_SPOTS + s * 2);
    const y = P(P_SPOTS + s * 2 + 1);
    for (let i = 0; i < n; i++) {
      const o = S_PICKUPS + i * PK_STRIDE;
      if (S(o + 1) == x && S(o + 2) == y) return false;
    }
  }
  return true;
}

function finish(winner: i32, reason: i32): void {
  setS(S_STATUS, 1);
  setS(S_WINNER, winner);
  setS(S_REASON, reason);
}

function checkEnd(tick: i32): void {
  for (let f = 0; f < FIGHTERS; f++) {
    if (F(f, F_ALIVE) != 0 && F(f, F_HP) <= 0) {
      setF(f, F_HP, 0);
      setF(f, F_ALIVE, 0);
      emit(EV_DEATH, f, 0, 0, 0, 0, 0, 0);
    }
  }
  const a0 = F(0, F_ALIVE) != 0;
  const a1 = F(1, F_ALIVE) != 0;
  if (!a0 && !a1) { finish(-1, R_DOUBLE_KNOCKOUT); return; }
  if (!a0) { finish(1, R_LAST_STANDING); return; }
  if (!a1) { finish(0, R_LAST_STANDING); return; }
  if (tick + 1 >= P(P_TICK_LIMIT)) {
    const h0 = F(0, F_HP);
    const h1 = F(1, F_HP);
    if (h0 != h1) { finish(h0 > h1 ? 0 : 1, R_TIMEOUT_HP); return; }
    const d0 = F(0, F_DEALT);
    const d1 = F(1, F_DEALT);
    if (d0 != d1) { finish(d0 > d1 ? 0 : 1, R_TIMEOUT_DAMAGE); return; }
    finish(-1, R_TIMEOUT_DRAW);
  }
}

// Module-level so the stub runtime (which never frees) allocates it once, not per step.
const TIMERS: StaticArray<i32> = [F_STUN, F_SLOW, F_CD, F_CD + 1, F_CD + 2, F_CD_DASH, F_CD_SHOUT];

function countDown(): void {
  for (let f = 0; f < FIGHTERS; f++) {
    for (let i = 0; i < TIMERS.length; i++) {
      const k = unchecked(TIMERS[i]);
      const v = F(f, k);
      if (v > 0) setF(f, k, v - 1);
    }
  }
}

// Resolves the current tick from the turn region. Returns 1 when the match is over, 0 otherwise, -1 if
// called after the end.
export function step(): i32 {
  if (S(S_STATUS) != 0) return -1;
  const tick = S(S_TICK);
  setS(S_EVENT_COUNT, 0);
  for (let f = 0; f < FIGHTERS; f++) {
    if (T(f, T_SHOUT) != 0) {
      if (F(f, F_CD_SHOUT) > 0) reject(f, PART_SHOUT, RJ_NOT_READY);
      else {
        emit(EV_SHOUT, f, 0, 0, 0, 0, 0, 0);
        setF(f, F_CD_SHOUT, P(P_SHOUT_CD) + 1);
      }
    }
    validateMovement(f);
  }
  resolveMovement();
  collectPickups();
  for (let f = 0; f < FIGHTERS; f++) validateAttack(f);
  resolveRepulsors();
  for (let f = 0; f < FIGHTERS; f++) if (wantAttack[f] == ATTACK_RANGED) fireRanged(f);
  explodeAreas(tick);
  for (let f = 0; f < FIGHTERS; f++) if (wantAttack[f] == ATTACK_FROSTBURST) spawnArea(f, tick);
  applyZone(tick);
  checkEnd(tick);
  countDown();
  spawnPickups(tick);
  setS(S_TICK, tick + 1);
  return S(S_STATUS);
}

// Ends the match for a reason the host decides (forfeit, disqualification): the other fighter wins.
export function concede(loser: i32, reason: i32): void {
  if (S(S_STATUS) != 0) return;
  finish(loser < 0 ? -1 : 1 - loser, reason);
}

// Fills the observation region for fighter f: opponent visibility, legal moves and dashes, nearby danger.
export function observe(f: i32): void {
  const o = 1 - f;
  const x = F(f, F_X);
  const y = F(f, F_Y);
  unchecked(obs[O_OPP_VISIBLE] = F(o, F_ALIVE) != 0 && visible(x, y, F(o, F_X), F(o, F_Y)) != 0 ? 1 : 0);
  const stunned = F(f, F_STUN) > 0;
  const canDash = !stunned && F(f, F_SLOW) == 0 && F(f, F_CD_DASH) == 0;
  for (let d = 0; d < DIR_COUNT; d++) {
    let mx = -1;
    let my = -1;
    if (!stunned && stepOpen(x, y, d)) {
      const nx = x + unchecked(DX[d]);
      const ny = y + unchecked(DY[d]);
      if (occupiedBy(nx, ny, f) < 0) { mx = nx; my = ny; }
    }
    unchecked(obs[O_MOVES + d * 2] = mx);
    unchecked(obs[O_MOVES + d * 2 + 1] = my);
    const n = canDash ? dashReach(x, y, d, o) : 0;
    unchecked(obs[O_DASHES + d * 3] = x + unchecked(DX[d]) * n);
    unchecked(obs[O_DASHES + d * 3 + 1] = y + unchecked(DY[d]) * n);
    unchecked(obs[O_DASHES + d * 3 + 2] = n);
  }
  let count = 0;
  const tick = S(S_TICK);
  const horizon = P(P_DANGER_HORIZON);
  const c = BOARD / 2;
  const r = S(S_ZONE_RADIUS);
  const next = S(S_ZONE_NEXT);
  for (let ty = y - DANGER_REACH; ty <= y + DANGER_REACH; ty++) {
    for (let tx = x - DANGER_REACH; tx <= x + DANGER_REACH; tx++) {
      if (isWall(tx, ty)) continue;
      let source = 0;
      let inTicks = 0x7fffffff;
      const areas = S(S_AREA_COUNT);
      for (let i = 0; i < areas; i++) {
        const a = S_AREAS + i * A_STRIDE;
        if (cheb(tx, ty, S(a + 1), S(a + 2)) > S(a + 3)) continue;
        const t = S(a + 4) - tick;
        if (t < inTicks) { inTicks = t; source = DANGER_FROSTBURST; }
      }
      const d = cheb(tx, ty, c, c);
      if (d > r) { inTicks = 0; source = DANGER_ZONE; }
      else if (next >= 0 && d > r - 1 && next - tick <= horizon && next - tick < inTicks) {
        inTicks = next - tick;
        source = DANGER_ZONE;
      }
      if (source == 0) continue;
      const b = O_DANGER + count * O_DANGER_STRIDE;
      unchecked(obs[b] = tx);
      unchecked(obs[b + 1] = ty);
      unchecked(obs[b + 2] = source);
      unchecked(obs[b + 3] = inTicks);
      count++;
    }
  }
  unchecked(obs[O_DANGER_COUNT] = count);
}
