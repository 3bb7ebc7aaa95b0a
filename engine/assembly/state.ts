// The engine's memory regions and the small helpers every part of a tick uses: region accessors, board
// geometry, line of sight, the seeded PRNG and event records. Split from index.ts so the tick logic reads on
// its own; everything here is inlined or called directly, so the split costs nothing at run time.

import {
  BOARD, EV_REJECTED, EV_STRIDE, F_ALIVE, F_STRIDE, F_X, F_Y, FIGHTERS, MAX_EVENTS, OBS_SIZE, P_DASH_MAX,
  PARAMS_SIZE, S_EVENT_COUNT, S_FIGHTERS, S_RNG, STATE_SIZE, T_STRIDE, TILE_WALL, TILES,
} from "./layout";
import { RayVisit, sightClear, traceRay } from "./geometry";

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
// The engine's wall test as a function value for the shared geometry (geometry.ts): isWall itself is inlined.
function wallAt(x: i32, y: i32): bool { return isWall(x, y); }
export function visible(x0: i32, y0: i32, x1: i32, y1: i32): i32 {
  if (!inBoard(x0, y0) || !inBoard(x1, y1)) return 0;
  return sightClear(x0, y0, x1, y1, wallAt) ? 1 : 0;
}
/** The ranged ray of geometry.ts over the engine's map. */
export function ray(sx: i32, sy: i32, ax: i32, ay: i32, steps: i32, visit: RayVisit): i32 {
  return traceRay(sx, sy, ax, ay, steps, wallAt, visit);
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
