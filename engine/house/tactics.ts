// Shared helpers for the house bots: per-map tables (walls, legal steps, all-pairs BFS distances and line of
// sight, computed once per map and cached), the engine's exact ranged ray (with one ricochet), rule numbers
// read from hello.rules, and a small opponent tracker. Everything here is allocation-free per tick. Line of
// sight and the ray are the engine's own code (engine/assembly/geometry.ts, compiled into the engine too), run
// over this bot's copy of the map.
import { traceRay as engineRay, sightClear } from "../assembly/geometry.ts";
import type { HelloMessageT, ObservationT } from "../protocol.ts";

export const DIRS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"] as const;
export type Dir = (typeof DIRS)[number];
export const DX = [0, 1, 1, 1, 0, -1, -1, -1] as const;
export const DY = [-1, -1, 0, 1, 1, 1, 0, -1] as const;
const DIR_INDEX: Record<string, number> = { N: 0, NE: 1, E: 2, SE: 3, S: 4, SW: 5, W: 6, NW: 7 };
export const dirIndex = (d: string): number => DIR_INDEX[d] ?? -1;

export const UNREACHABLE = 255;

/** Per-map tables. Tiles are indexed `y * w + x`. */
export interface Arena {
  w: number;
  h: number;
  n: number;
  wall: Uint8Array;
  /** Bit d set when a one-tile step in direction d from the tile is legal (walls and corner cutting). */
  steps: Uint8Array;
  /** Walking distance (8-way steps), `dist[a * n + b]`; 255 when unreachable or a wall. */
  dist: Uint8Array;
  /** Line of sight exactly as the engine decides it (symmetric Bresenham), `sight[a * n + b]`; row a is
   * filled on first use (`sightDone[a]`), since a match only ever looks from a fraction of the tiles. */
  sight: Uint8Array;
  sightDone: Uint8Array;
  /** Rows of `dist` filled so far (breadth-first search from that tile on first use). */
  distDone: Uint8Array;
  queue: Int32Array;
  /** Floor tiles. */
  floor: Int32Array;
  /** Per tile: walls among the 8 neighbours (used to prefer open ground). */
  wallNear: Uint8Array;
  /** Wall tiles next to floor (4-neighbourhood): the useful aim points for ricochets. */
  faces: Int32Array;
  /** The wall test the shared geometry reads the map through (off the board is wall). */
  isWall: (x: number, y: number) => boolean;
}

const arenas = new Map<string, Arena>();

export function arenaOf(map: { width: number; height: number; rows: readonly string[] }): Arena {
  const key = `${map.width}x${map.height}:${map.rows.join("/")}`;
  const cached = arenas.get(key);
  if (cached) return cached;
  const w = map.width;
  const h = map.height;
  const n = w * h;
  const wall = new Uint8Array(n);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) wall[y * w + x] = map.rows[y]![x] === "#" ? 1 : 0;
  const isWall = (x: number, y: number) => x < 0 || y < 0 || x >= w || y >= h || wall[y * w + x] === 1;
  const steps = new Uint8Array(n);
  const wallNear = new Uint8Array(n);
  const floorList: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (isWall(x, y)) continue;
      floorList.push(y * w + x);
      let m = 0;
      let near = 0;
      for (let d = 0; d < 8; d++) {
        const nx = x + DX[d];
        const ny = y + DY[d];
        if (isWall(nx, ny)) {
          near++;
          continue;
        }
        if (DX[d] !== 0 && DY[d] !== 0 && (isWall(nx, y) || isWall(x, ny))) continue;
        m |= 1 << d;
      }
      steps[y * w + x] = m;
      wallNear[y * w + x] = near;
    }
  }
  const floor = Int32Array.from(floorList);
  const faceList: number[] = [];
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!isWall(x, y)) continue;
      if (!isWall(x + 1, y) || !isWall(x - 1, y) || !isWall(x, y + 1) || !isWall(x, y - 1))
        faceList.push(y * w + x);
    }
  }
  const faces = Int32Array.from(faceList);
  const dist = new Uint8Array(n * n).fill(UNREACHABLE);
  const sight = new Uint8Array(n * n);
  const arena: Arena = {
    w,
    h,
    n,
    wall,
    steps,
    dist,
    sight,
    sightDone: new Uint8Array(n),
    distDone: new Uint8Array(n),
    queue: new Int32Array(n),
    floor,
    wallNear,
    faces,
    isWall,
  };
  arenas.set(key, arena);
  return arena;
}

/** Fills row `a` of the sight table on first use (a few tens of microseconds; then cached for the map). */
function fillSight(A: Arena, a: number): void {
  const { w, n, sight } = A;
  const ax = a % w;
  const ay = (a - ax) / w;
  const row = a * n;
  for (let b = 0; b < n; b++) {
    if (A.sightDone[b] === 1) {
      sight[row + b] = sight[b * n + a]!;
      continue;
    }
    const bx = b % w;
    const by = (b - bx) / w;
    sight[row + b] = sightClear(ax, ay, bx, by, A.isWall) ? 1 : 0;
  }
  A.sightDone[a] = 1;
}

export const cheb = (ax: number, ay: number, bx: number, by: number): number =>
  Math.max(Math.abs(ax - bx), Math.abs(ay - by));

export function isWallAt(a: Arena, x: number, y: number): boolean {
  return x < 0 || y < 0 || x >= a.w || y >= a.h || a.wall[y * a.w + x] === 1;
}

export function sees(a: Arena, x0: number, y0: number, x1: number, y1: number): boolean {
  if (x0 < 0 || y0 < 0 || x1 < 0 || y1 < 0 || x0 >= a.w || x1 >= a.w || y0 >= a.h || y1 >= a.h) return false;
  const from = y0 * a.w + x0;
  if (a.sightDone[from] !== 1) fillSight(a, from);
  return a.sight[from * a.n + y1 * a.w + x1] === 1;
}

export function walk(a: Arena, x0: number, y0: number, x1: number, y1: number): number {
  const from = y0 * a.w + x0;
  const to = y1 * a.w + x1;
  if (a.distDone[from] === 1) return a.dist[from * a.n + to]!;
  if (a.distDone[to] === 1) return a.dist[to * a.n + from]!;
  fillDist(a, from);
  return a.dist[from * a.n + to]!;
}

/** Breadth-first search from tile s over legal steps; fills row s of `dist`. */
function fillDist(A: Arena, s: number): void {
  const { w, n, dist, steps, queue } = A;
  A.distDone[s] = 1;
  if (A.wall[s] === 1) return;
  const row = s * n;
  dist[row + s] = 0;
  let head = 0;
  let tail = 0;
  queue[tail++] = s;
  while (head < tail) {
    const t = queue[head++]!;
    const tx = t % w;
    const ty = (t - tx) / w;
    const m = steps[t]!;
    const nd = dist[row + t]! + 1;
    for (let d = 0; d < 8; d++) {
      if ((m & (1 << d)) === 0) continue;
      const u = (ty + DY[d]) * w + tx + DX[d];
      if (dist[row + u] !== UNREACHABLE) continue;
      dist[row + u] = nd;
      queue[tail++] = u;
    }
  }
}

/** Rule numbers the bots use, read from hello.rules with the shipped values as fallbacks. */
export interface Numbers {
  hp: number;
  tickLimit: number;
  rangedCd: number;
  rangedDmg: number;
  rangedRange: number;
  ricochetDmg: number;
  frostCd: number;
  frostRange: number;
  frostRadius: number;
  frostDelay: number;
  frostDmg: number;
  frostCenterDmg: number;
  repulsorCd: number;
  repulsorDmg: number;
  knockback: number;
  dashMax: number;
  dashCd: number;
  slamDmg: number;
  zoneDmg: number;
}

export function numbersOf(hello: HelloMessageT): Numbers {
  // biome-ignore lint/suspicious/noExplicitAny: hello.rules is a loose object; every read has a fallback
  const r = hello.rules as any;
  const a = r.attacks ?? {};
  const num = (v: unknown, d: number) => (typeof v === "number" && Number.isFinite(v) ? v : d);
  return {
    hp: num(r.fighter?.hp, 100),
    tickLimit: num(r.tick_limit, 300),
    rangedCd: num(a.ranged?.cooldown, 3),
    rangedDmg: num(a.ranged?.damage, 12),
    rangedRange: num(a.ranged?.range, 12),
    ricochetDmg: num(a.ranged?.ricochet_damage, 8),
    frostCd: num(a.frostburst?.cooldown, 8),
    frostRange: num(a.frostburst?.range, 7),
    frostRadius: num(a.frostburst?.radius, 1),
    frostDelay: num(a.frostburst?.delay, 2),
    frostDmg: num(a.frostburst?.damage, 10),
    frostCenterDmg: num(a.frostburst?.center_damage, 18),
    repulsorCd: num(a.repulsor?.cooldown, 5),
    repulsorDmg: num(a.repulsor?.damage, 8),
    knockback: num(a.repulsor?.knockback, 2),
    dashMax: num(r.movement?.dash?.max_tiles, 3),
    dashCd: num(r.movement?.dash?.cooldown, 6),
    slamDmg: num(r.wall_slam?.damage, 10),
    zoneDmg: num(r.zone?.damage, 4),
  };
}

/**
 * The ranged ray exactly as the engine fires it (the engine's code: engine/assembly/geometry.ts), `range * 2`
 * half-tile steps along the aim (tx - x, ty - y) with one bounce off the first wall. Fills `out` with the tiles
 * it passes (consecutive repeats collapsed) and returns how many; `rayBounceAt` is then the index of the first
 * tile after the bounce (or the count when it did not bounce).
 */
export let rayBounceAt = 0;
// The visit's state lives here, so a ray allocates nothing (the house bots trace many a tick).
let rayOut: Int32Array = new Int32Array(0);
let rayCount = 0;
let rayLast = 0;
let rayW = 0;
let rayAfterBounce = -1;
function collect(x: number, y: number, bounced: boolean): boolean {
  if (bounced && rayAfterBounce < 0) rayAfterBounce = rayCount;
  const t = y * rayW + x;
  if (t !== rayLast) {
    rayOut[rayCount++] = t;
    rayLast = t;
  }
  return false;
}
export function traceRay(
  a: Arena,
  sx: number,
  sy: number,
  ax: number,
  ay: number,
  range: number,
  out: Int32Array,
) {
  rayOut = out;
  rayCount = 0;
  rayLast = sy * a.w + sx;
  rayW = a.w;
  rayAfterBounce = -1;
  const bounced = engineRay(sx, sy, ax, ay, range * 2, a.isWall, collect) >= 0;
  // Nothing is collected between the bounce and the next open tile, so the count then is the count at the bounce.
  rayBounceAt = bounced && rayAfterBounce >= 0 ? rayAfterBounce : rayCount;
  return rayCount;
}

/** Reads the opponent's ready times from the attack events it was seen making. */
export class OpponentTracker {
  /** Tick at which each of the opponent's attacks is ready again (an estimate when it was unseen). */
  rangedAt = 0;
  frostAt = 0;
  repulsorAt = 0;
  dashAt = 0;
  /** Last known position and when it was known. */
  x = -1;
  y = -1;
  seenTick = -1;
  /** Last displacement seen over consecutive visible ticks. */
  vx = 0;
  vy = 0;
  visible = false;

  constructor(
    private readonly me: number,
    private readonly nums: Numbers,
  ) {}

  update(obs: ObservationT): void {
    const opp = obs.opponents[0];
    if (!opp) return;
    for (const ev of obs.events) {
      if (ev.type === "attack" && ev.by !== this.me) {
        const t = obs.tick - 1;
        if (ev.name === "ranged") this.rangedAt = t + this.nums.rangedCd + 1;
        else if (ev.name === "frostburst") this.frostAt = t + this.nums.frostCd + 1;
        else this.repulsorAt = t + this.nums.repulsorCd + 1;
      } else if (ev.type === "move" && ev.by !== this.me && ev.dash) {
        this.dashAt = obs.tick - 1 + this.nums.dashCd + 1;
      } else if (ev.type === "pickup" && ev.by !== this.me && ev.kind === "haste") {
        this.rangedAt = this.frostAt = this.repulsorAt = this.dashAt = 0;
      }
    }
    this.visible = opp.visible && opp.x !== null && opp.y !== null;
    if (this.visible) {
      const x = opp.x!;
      const y = opp.y!;
      if (this.seenTick === obs.tick - 1) {
        this.vx = x - this.x;
        this.vy = y - this.y;
      } else {
        this.vx = 0;
        this.vy = 0;
      }
      this.x = x;
      this.y = y;
      this.seenTick = obs.tick;
    } else if (opp.last_seen && opp.last_seen.tick > this.seenTick) {
      this.x = opp.last_seen.tile[0];
      this.y = opp.last_seen.tile[1];
      this.seenTick = opp.last_seen.tick;
      this.vx = 0;
      this.vy = 0;
    }
  }
}

/** Chebyshev distance from the zone centre beyond which a tile will hurt after `ticks` more ticks. */
export function zoneRadiusIn(obs: ObservationT, ticks: number): number {
  const z = obs.zone;
  if (z.shrinks_in === null || z.next_radius === null) return z.radius;
  if (ticks < z.shrinks_in) return z.radius;
  // Later shrinks come every `interval` ticks; 12 is the shipped interval, close enough for planning.
  const extra = Math.floor((ticks - z.shrinks_in) / 12) + 1;
  return Math.max(2, z.radius - extra);
}

/** FNV-1a of a string mixed with a salt: seeds a bot's private random stream from the match id. */
export function hashSeed(s: string, salt: number): number {
  let h = (2166136261 ^ Math.imul(salt + 1, 0x9e3779b1)) >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** mulberry32: a small seeded generator returning floats in [0, 1). */
export function rng(seed: number): () => number {
  let t = seed >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), t | 1);
    r ^= r + Math.imul(r ^ (r >>> 7), r | 61);
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random floor tile (as y * w + x). */
export function randomFloor(a: Arena, random: () => number): number {
  return a.floor[Math.floor(random() * a.floor.length)]!;
}

/**
 * The legal step (from obs.moves) that most shortens the walk to (gx, gy), ties broken at random; null when
 * no step gets closer.
 */
export function stepToward(
  a: Arena,
  obs: ObservationT,
  gx: number,
  gy: number,
  random: () => number,
): ObservationT["moves"][number] | null {
  let best = walk(a, obs.self.x, obs.self.y, gx, gy);
  let pick: ObservationT["moves"][number] | null = null;
  let ties = 0;
  for (const m of obs.moves) {
    const w = walk(a, m.tile[0], m.tile[1], gx, gy);
    if (w < best) {
      best = w;
      pick = m;
      ties = 1;
    } else if (w === best && pick && ++ties * random() < 1) pick = m;
  }
  return pick;
}
