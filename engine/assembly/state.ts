// The engine's memory regions and the small helpers every part of a tick uses: region accessors, board
// geometry, line of sight, the seeded PRNG and event records. Split from index.ts so the tick logic reads on
// its own; everything here is inlined or called directly, so the split costs nothing at run time.

import {
  A_STRIDE, ATTACK_COUNT, ATTACK_FROSTBURST, ATTACK_RANGED, ATTACK_REPULSOR, BOARD, DANGER_FROSTBURST,
  DANGER_REACH, DANGER_ZONE, DIR_COUNT, EV_AREA_EXPLODE, EV_AREA_SPAWN, EV_ATTACK, EV_DEATH, EV_HIT, EV_MOVE,
  EV_PICKUP, EV_PICKUP_SPAWN, EV_REJECTED, EV_REPULSE, EV_SHOUT, EV_STATUS, EV_STRIDE, EV_ZONE_DAMAGE,
  EV_ZONE_SHRINK, F_ALIVE, F_CD, F_CD_DASH, F_CD_SHOUT, F_DEALT, F_HP, F_SHIELD, F_SLOW, F_STRIDE, F_STUN,
  F_TAKEN, F_X, F_Y, FIGHTERS, LAYOUT_VERSION, MAX_AREAS, MAX_EVENTS, MAX_PICKUPS, MAX_SPOTS, O_DANGER,
  O_DANGER_COUNT, O_DANGER_STRIDE, O_DASHES, O_MOVES, O_OPP_VISIBLE, OBS_SIZE, P_COLL_DMG, P_DANGER_HORIZON,
  P_DASH_CD, P_DASH_MAX, P_F_CD, P_F_CENTER_DMG, P_F_DELAY, P_F_DMG, P_F_RADIUS, P_F_RANGE, P_F_SLOW,
  P_F_STUN, P_HASTE_WEIGHT, P_HEAL, P_HEAL_WEIGHT, P_HP, P_P_CD, P_P_DMG, P_P_KNOCK, P_PICK_FIRST,
  P_PICK_INTERVAL, P_PICK_MAX, P_R_CD, P_R_DMG, P_R_RANGE, P_R_RICO_DMG, P_SHIELD, P_SHIELD_MAX,
  P_SHIELD_WEIGHT, P_SHOUT_CD, P_SLAM_DMG, P_SLAM_STUN, P_SPAWN_AX, P_SPAWN_AY, P_SPAWN_BX, P_SPAWN_BY,
  P_SPOT_COUNT, P_SPOTS, P_TICK_LIMIT, P_VERSION, P_Z_DMG, P_Z_INTERVAL, P_Z_MIN, P_Z_RADIUS, P_Z_START,
  PARAMS_SIZE, PART_ATTACK, PART_DASH, PART_MOVE, PART_SHOUT, PICKUP_HASTE, PICKUP_HEAL, PICKUP_KINDS,
  PICKUP_SHIELD, PK_STRIDE, R_DOUBLE_KNOCKOUT, R_LAST_STANDING, R_NONE, R_TIMEOUT_DAMAGE, R_TIMEOUT_DRAW,
  R_TIMEOUT_HP, RJ_BLOCKED, RJ_NOT_READY, RJ_NOT_VISIBLE, S_AREA_COUNT, S_AREAS, S_EVENT_COUNT, S_FIGHTERS,
  S_NEXT_PICKUP, S_PICKUP_COUNT, S_PICKUPS, S_REASON, S_RNG, S_SPAWN_SWAP, S_STATUS, S_TICK, S_WINNER,
  S_ZONE_NEXT, S_ZONE_RADIUS, SRC_COLLISION, SRC_WALL_SLAM, STATE_SIZE, T_ATTACK, T_DASH, T_MOVE, T_SHOUT,
  T_STRIDE, T_TX, T_TY, TILE_WALL, TILES,
} from "./layout";

export const params = new StaticArray<i32>(PARAMS_SIZE);
export const tiles = new StaticArray<i32>(TILES);
export const turns = new StaticArray<i32>(T_STRIDE * FIGHTERS);
export const state = new StaticArray<i32>(STATE_SIZE);
export const events = new StaticArray<i32>(EV_STRIDE * MAX_EVENTS);
export const obs = new StaticArray<i32>(OBS_SIZE);

export const DX: StaticArray<i32> = [0, 1, 1, 1, 0, -1, -1, -1];
export const DY: StaticArray<i32> = [-1, -1, 0, 1, 1, 1, 0, -1];

@inline export function P(i: i32): i32 { return unchecked(params[i]); }
@inline export function S(i: i32): i32 { return unchecked(state[i]); }
@inline export function setS(i: i32, v: i32): void { unchecked(state[i] = v); }
@inline export function F(f: i32, field: i32): i32 { return unchecked(state[S_FIGHTERS + f * F_STRIDE + field]); }
@inline export function setF(f: i32, field: i32, v: i32): void { unchecked(state[S_FIGHTERS + f * F_STRIDE + field] = v); }
@inline export function T(f: i32, field: i32): i32 { return unchecked(turns[f * T_STRIDE + field]); }

@inline export function inBoard(x: i32, y: i32): bool { return x >= 0 && y >= 0 && x < BOARD && y < BOARD; }
@inline export function isWall(x: i32, y: i32): bool {
  return !inBoard(x, y) || unchecked(tiles[y * BOARD + x]) == TILE_WALL;
}
@inline export function iabs(v: i32): i32 { return v < 0 ? -v : v; }
@inline export function sign(v: i32): i32 { return v > 0 ? 1 : v < 0 ? -1 : 0; }
@inline export function cheb(ax: i32, ay: i32, bx: i32, by: i32): i32 {
  const dx = iabs(ax - bx);
  const dy = iabs(ay - by);
  return dx > dy ? dx : dy;
}

// mulberry32: small, fast, well-distributed; its whole state is one word in the state region.
export function rand(): u32 {
  let t: u32 = <u32>S(S_RNG) + 0x6d2b79f5;
  setS(S_RNG, <i32>t);
  t = (t ^ (t >>> 15)) * (t | 1);
  t ^= t + (t ^ (t >>> 7)) * (t | 61);
  return t ^ (t >>> 14);
}
export function randBelow(n: i32): i32 { return <i32>(rand() % <u32>n); }

export function emit(kind: i32, a: i32, b: i32, c: i32, d: i32, e: i32, f: i32, g: i32): void {
  const n = S(S_EVENT_COUNT);
  if (n >= MAX_EVENTS) return; // cannot happen with two fighters; the bound keeps a bad param from writing past the region
  const o = n * EV_STRIDE;
  unchecked(events[o] = kind);
  unchecked(events[o + 1] = a);
  unchecked(events[o + 2] = b);
  unchecked(events[o + 3] = c);
  unchecked(events[o + 4] = d);
  unchecked(events[o + 5] = e);
  unchecked(events[o + 6] = f);
  unchecked(events[o + 7] = g);
  setS(S_EVENT_COUNT, n + 1);
}

export function reject(f: i32, part: i32, reason: i32): void { emit(EV_REJECTED, f, part, reason, 0, 0, 0, 0); }

// A step from (x, y) in direction d is open when the tile is floor and, for diagonals, no corner is cut.
export function stepOpen(x: i32, y: i32, d: i32): bool {
  const dx = unchecked(DX[d]);
  const dy = unchecked(DY[d]);
  if (isWall(x + dx, y + dy)) return false;
  if (dx != 0 && dy != 0 && (isWall(x + dx, y) || isWall(x, y + dy))) return false;
  return true;
}

// Line of sight: symmetric by construction (either Bresenham direction clear).
export function lineClear(x0: i32, y0: i32, x1: i32, y1: i32): bool {
  const dx = iabs(x1 - x0);
  const dy = -iabs(y1 - y0);
  const sx = x0 < x1 ? 1 : -1;
  const sy = y0 < y1 ? 1 : -1;
  let err = dx + dy;
  let x = x0;
  let y = y0;
  while (true) {
    if (x == x1 && y == y1) return true;
    if (isWall(x, y) && !(x == x0 && y == y0)) return false;
    const e2 = 2 * err;
    if (e2 >= dy) { err += dy; x += sx; }
    if (e2 <= dx) { err += dx; y += sy; }
  }
  return true;
}
export function visible(x0: i32, y0: i32, x1: i32, y1: i32): i32 {
  if (!inBoard(x0, y0) || !inBoard(x1, y1)) return 0;
  return lineClear(x0, y0, x1, y1) || lineClear(x1, y1, x0, y0) ? 1 : 0;
}

export function occupiedBy(x: i32, y: i32, except: i32): i32 {
  for (let f = 0; f < FIGHTERS; f++) {
    if (f != except && F(f, F_ALIVE) != 0 && F(f, F_X) == x && F(f, F_Y) == y) return f;
  }
  return -1;
}

// How far a dash in direction d gets from (x, y) against walls only (fighters are resolved in movement).
export function dashReach(x: i32, y: i32, d: i32, other: i32): i32 {
  let n = 0;
  let cx = x;
  let cy = y;
  const max = P(P_DASH_MAX);
  while (n < max && stepOpen(cx, cy, d)) {
    cx += unchecked(DX[d]);
    cy += unchecked(DY[d]);
    if (other >= 0 && occupiedBy(cx, cy, -1) == other) break;
    n++;
  }
  return n;
}
