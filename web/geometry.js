// Generated from engine/assembly/geometry.ts by scripts/build-web-geometry.ts (npm run build): do not edit.
// The engine's line of sight and ranged ray, for the replay viewer (web/viewer.js).
function abs32(v) {
  return v < 0 ? -v : v;
}
function lineClear(x0, y0, x1, y1, isWall) {
  const dx = abs32(x1 - x0);
  const dy = -abs32(y1 - y0);
  const sx = x0 < x1 ? 1 : -1;
  const sy = y0 < y1 ? 1 : -1;
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
function sightClear(x0, y0, x1, y1, isWall) {
  return lineClear(x0, y0, x1, y1, isWall) || lineClear(x1, y1, x0, y0, isWall);
}
function traceRay(sx, sy, ax, ay, steps, isWall, visit) {
  const SCALE = 1024;
  const n = abs32(ax) > abs32(ay) ? abs32(ax) : abs32(ay);
  if (n == 0) return -1;
  let vx = ax * SCALE / (2 * n) | 0;
  let vy = ay * SCALE / (2 * n) | 0;
  let px = sx * SCALE + SCALE / 2;
  let py = sy * SCALE + SCALE / 2;
  let bouncedAt = -1;
  for (let s = 0; s < steps; s++) {
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
export {
  lineClear,
  sightClear,
  traceRay
};
