// Line of sight and the ranged ray, written once (issue 32: one source for the geometry). The engine's tick
// (state.ts, index.ts) compiles this file with AssemblyScript, and the house bots (engine/house/tactics.ts)
// import the same file as TypeScript, so a bot's idea of "can I see it" and "where does my shot go" is the
// engine's own code rather than a copy that could drift.
//
// It keeps to what both languages read the same way: i32 and bool are AssemblyScript's types and, for
// TypeScript, aliases of number and boolean (engine/portable.d.ts); every division is truncated with `| 0`
// (integer division in AssemblyScript, a no-op there; truncation toward zero in JavaScript, as AssemblyScript
// divides); shifts are arithmetic in both. The map is read through a wall test the caller passes: the engine's
// tile array, the bot's own copy of the map. No closures (AssemblyScript has none): the engine passes top-level
// functions and keeps the ray's shooter in module state. The replay viewer imports it too, as web/geometry.js,
// which scripts/build-web-geometry.ts writes from this file (test/unit/geometry.test.ts checks it is current).

/** Whether a tile blocks sight and shots (off the board counts as wall). */
export type WallTest = (x: i32, y: i32) => bool;

/**
 * Called for each half-tile step of a ray that lands on open floor, with its tile and its exact point (fixed
 * point, 1024 to a tile: the replay viewer draws the shot through them); returning true stops the ray (a hit).
 */
export type RayVisit = (x: i32, y: i32, bounced: bool, px: i32, py: i32) => bool;

function abs32(v: i32): i32 {
  return v < 0 ? -v : v;
}

/** Bresenham from (x0, y0) to (x1, y1): clear when no tile strictly after the start is a wall before the end. */
export function lineClear(x0: i32, y0: i32, x1: i32, y1: i32, isWall: WallTest): bool {
  const dx = abs32(x1 - x0);
  const dy = -abs32(y1 - y0);
  const sx: i32 = x0 < x1 ? 1 : -1;
  const sy: i32 = y0 < y1 ? 1 : -1;
  let err = dx + dy;
  let x = x0;
  let y = y0;
  while (true) {
    if (x == x1 && y == y1) return true;
    if (isWall(x, y) && !(x == x0 && y == y0)) return false;
    const e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y += sy;
    }
  }
  return true;
}

/** Sight is symmetric: two tiles see each other when the line is clear walked from either end. */
export function sightClear(x0: i32, y0: i32, x1: i32, y1: i32, isWall: WallTest): bool {
  return lineClear(x0, y0, x1, y1, isWall) || lineClear(x1, y1, x0, y0, isWall);
}

/**
 * The ranged ray: fixed point (1024 to a tile), half-tile steps along the aim (ax, ay) from the centre of the
 * shooter's tile (sx, sy), `steps` steps, one bounce off the first wall (reversing the axis that hit it, or
 * both at a corner); a second wall ends it. `visit` sees each step's tile; the ray stops when it returns true.
 * Returns the index of the step that bounced, or -1 when the ray did not bounce.
 */
export function traceRay(sx: i32, sy: i32, ax: i32, ay: i32, steps: i32, isWall: WallTest, visit: RayVisit): i32 {
  const SCALE: i32 = 1024;
  const n: i32 = abs32(ax) > abs32(ay) ? abs32(ax) : abs32(ay);
  if (n == 0) return -1;
  let vx: i32 = ((ax * SCALE) / (2 * n)) | 0;
  let vy: i32 = ((ay * SCALE) / (2 * n)) | 0;
  let px: i32 = sx * SCALE + SCALE / 2;
  let py: i32 = sy * SCALE + SCALE / 2;
  let bouncedAt: i32 = -1;
  for (let s: i32 = 0; s < steps; s++) {
    const nx = px + vx;
    const ny = py + vy;
    const tx = nx >> 10;
    const ty = ny >> 10;
    if (isWall(tx, ty)) {
      if (bouncedAt >= 0) break;
      const wallX = isWall(tx, py >> 10);
      const wallY = isWall(px >> 10, ty);
      if (wallX) vx = -vx;
      if (wallY) vy = -vy;
      if (!wallX && !wallY) {
        vx = -vx;
        vy = -vy;
      }
      bouncedAt = s;
      continue;
    }
    px = nx;
    py = ny;
    if (visit(tx, ty, bouncedAt >= 0, px, py)) break;
  }
  return bouncedAt;
}
