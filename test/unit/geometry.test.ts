// One source for the geometry (issue 32): line of sight and the ranged ray are engine/assembly/geometry.ts,
// compiled into engine.wasm and imported by the house bots as TypeScript. This pins the two readings of that file
// to each other (the wasm's `visible` against the house bots' `sees` on every pair of tiles of every map), and
// pins the starter bots' own copies (they are standalone downloads, so they keep one) to the engine's.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Engine } from "../../engine/host.ts";
import { arenaOf, rayBounceAt, sees, traceRay } from "../../engine/house/tactics.ts";
import { MAP_NAMES, RULES } from "../../engine/rules.ts";
import { WEB_GEOMETRY, webGeometrySource } from "../../scripts/build-web-geometry.ts";
import { Board } from "../../starters/typescript/strategy.ts";

const mapOf = (name: string) => {
  const rows = (RULES.maps as Record<string, readonly string[]>)[name]!;
  return { name, width: rows[0]!.length, height: rows.length, rows: [...rows] };
};

describe("line of sight has one source", () => {
  it("the engine's wasm and the house bots agree on every pair of tiles of every map, and so does the TypeScript starter", () => {
    for (const name of MAP_NAMES) {
      const map = mapOf(name);
      const engine = new Engine(name, 1);
      const arena = arenaOf(map);
      const starter = new Board(map as never);
      let differ = 0;
      let blocked = 0;
      for (let a = 0; a < map.width * map.height; a++)
        for (let b = 0; b < map.width * map.height; b++) {
          const [ax, ay, bx, by] = [
            a % map.width,
            Math.floor(a / map.width),
            b % map.width,
            Math.floor(b / map.width),
          ];
          const truth = engine.visible(ax, ay, bx, by);
          if (!truth) blocked++;
          if (sees(arena, ax, ay, bx, by) !== truth || starter.sees(ax, ay, bx, by) !== truth) differ++;
        }
      expect(differ, name).toBe(0);
      // The maps have walls that block some lines, so the comparison is not vacuous.
      expect(blocked, name).toBeGreaterThan(0);
    }
  });

  it("the Python starter's line of sight agrees with the engine's (every third tile of each map, all pairs)", () => {
    const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(join(import.meta.dirname, "../../starters/python"))})
import starter_bot
maps = json.load(sys.stdin)
out = {}
for name, m in maps.items():
    s = starter_bot.Strategy({"rules": {"attacks": {}}, "map": m})
    tiles = [(x, y) for y in range(m["height"]) for x in range(m["width"]) if (y * m["width"] + x) % 3 == 0]
    out[name] = "".join("1" if s.sees(a, b) else "0" for a in tiles for b in tiles)
print(json.dumps(out))
`;
    const maps = Object.fromEntries(MAP_NAMES.map((n) => [n, mapOf(n)]));
    const py = JSON.parse(
      execFileSync("python3", ["-c", script], { input: JSON.stringify(maps) }).toString(),
    );
    for (const name of MAP_NAMES) {
      const map = maps[name]!;
      const engine = new Engine(name, 1);
      const tiles: [number, number][] = [];
      for (let i = 0; i < map.width * map.height; i += 3)
        tiles.push([i % map.width, Math.floor(i / map.width)]);
      let expected = "";
      for (const [ax, ay] of tiles)
        for (const [bx, by] of tiles) expected += engine.visible(ax, ay, bx, by) ? "1" : "0";
      expect(py[name], name).toBe(expected);
    }
  });
});

describe("the ranged ray has one source", () => {
  it("the house bots' ray bounces once off a wall and stops at the second, as the engine's shot does", () => {
    // A corridor: shot east from (1, 1) with range 10 (20 half-tile steps) on a 7x3 board, the ray bounces off the
    // east wall, comes back (tile 5 again is not repeated) and ends at the west wall with steps to spare.
    const arena = arenaOf({ width: 7, height: 3, rows: ["#######", "#.....#", "#######"] });
    const out = new Int32Array(64);
    const n = traceRay(arena, 1, 1, 1, 0, 10, out);
    const tiles = [...out.slice(0, n)].map((t) => t % 7);
    expect(tiles.slice(0, rayBounceAt)).toEqual([2, 3, 4, 5]);
    expect(tiles.slice(rayBounceAt)).toEqual([4, 3, 2, 1]);
  });

  it("the replay viewer's web/geometry.js is the engine's source as written by the build, and traces the same ray", async () => {
    expect(readFileSync(WEB_GEOMETRY, "utf8"), "web/geometry.js is stale: run npm run build").toBe(
      webGeometrySource(),
    );
    // The viewer's copy and the house bots' (engine/assembly/geometry.ts read as TypeScript) trace every shot of
    // every map the same way: same tiles, same bounce.
    const webUrl = new URL("../../web/geometry.js", import.meta.url).href;
    const web = (await import(webUrl)) as typeof import("../../engine/assembly/geometry.ts");
    for (const name of MAP_NAMES) {
      const map = mapOf(name);
      const arena = arenaOf(map);
      const out = new Int32Array(64);
      let bounces = 0;
      for (let t = 0; t < map.width * map.height; t += 7)
        for (const [ax, ay] of [
          [3, 1],
          [-2, 5],
          [0, -4],
          [6, 6],
          [-7, -2],
        ] as const) {
          const [sx, sy] = [t % map.width, Math.floor(t / map.width)];
          if (arena.isWall(sx, sy)) continue;
          const n = traceRay(arena, sx, sy, ax, ay, 10, out);
          const tiles: number[] = [];
          let lastTile = sy * map.width + sx;
          const bouncedAt = web.traceRay(sx, sy, ax, ay, 20, arena.isWall, (x, y) => {
            const tile = y * map.width + x;
            if (tile !== lastTile) tiles.push(tile);
            lastTile = tile;
            return false;
          });
          if (bouncedAt >= 0) bounces++;
          expect(tiles, `${name} from ${sx},${sy} aim ${ax},${ay}`).toEqual([...out.slice(0, n)]);
        }
      expect(bounces, name).toBeGreaterThan(0);
    }
  });
});
