// The rules table: the single source of every combat number and map. The engine's params region,
// /docs/rules.json, hello.rules, docs/rules.md's tables and rules_hash all derive from RULES.
import { createHash } from "node:crypto";

export const DIRECTIONS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"] as const;
export type Direction = (typeof DIRECTIONS)[number];

export const ATTACK_NAMES = ["ranged", "frostburst", "repulsor"] as const;
export type AttackName = (typeof ATTACK_NAMES)[number];

export const PICKUP_KINDS = ["heal", "shield", "haste"] as const;
export type PickupKind = (typeof PICKUP_KINDS)[number];

// Maps are point-symmetric (180 degree rotation) so neither spawn side is favoured. '#' wall, '.' floor,
// 'A'/'B' spawn sides, 'p' pickup spot.
const MAP_ROWS: Record<string, string[]> = {
  "arena-21": [
    "#####################",
    "#...................#",
    "#.A.................#",
    "#...................#",
    "#...##.........##...#",
    "#...#...........#...#",
    "#.........p.........#",
    "#...................#",
    "#.......#...#.......#",
    "#...................#",
    "#..p.............p..#",
    "#...................#",
    "#.......#...#.......#",
    "#...................#",
    "#.........p.........#",
    "#...#...........#...#",
    "#...##.........##...#",
    "#...................#",
    "#.................B.#",
    "#...................#",
    "#####################",
  ],
  "columns-21": [
    "#####################",
    "#...................#",
    "#.A.................#",
    "#.....#.......#.....#",
    "#.....#...p...#.....#",
    "#.....#.......#.....#",
    "#.....#.......#.....#",
    "#..........#........#",
    "#..........#........#",
    "#...#..............##",
    "#...#....p.p....#...#",
    "##..............#...#",
    "#........#..........#",
    "#........#..........#",
    "#.....#.......#.....#",
    "#.....#.......#.....#",
    "#.....#...p...#.....#",
    "#.....#.......#.....#",
    "#.................B.#",
    "#...................#",
    "#####################",
  ],
  "pillars-21": [
    "#####################",
    "#...................#",
    "#.A.#.....#.....#...#",
    "#...................#",
    "#.#.....#.....#...#.#",
    "#.......p...........#",
    "#...#.....#.....#...#",
    "#...................#",
    "#.#.....#.....#...#.#",
    "#...................#",
    "#...#...p.#.p...#...#",
    "#...................#",
    "#.#...#.....#.....#.#",
    "#...................#",
    "#...#.....#.....#...#",
    "#...........p.......#",
    "#.#...#.....#.....#.#",
    "#...................#",
    "#...#.....#.....#.B.#",
    "#...................#",
    "#####################",
  ],
};

export const MAP_NAMES = Object.keys(MAP_ROWS) as readonly string[];

export const RULES = {
  version: "0.22.0",
  board: { width: 21, height: 21, origin: "top-left, x grows east, y grows south" },
  tick_limit: 300,
  fighter: { hp: 100 },
  movement: {
    directions: DIRECTIONS,
    move_tiles: 1,
    corner_cutting: false,
    dash: { max_tiles: 3, cooldown: 6, blocked_while: ["stunned", "slowed"] },
  },
  attacks: {
    ranged: { cooldown: 4, damage: 10, range: 12, ricochets: 1, ricochet_damage: 6, needs_sight: true },
    frostburst: {
      cooldown: 8,
      range: 7,
      radius: 1,
      delay: 2,
      damage: 10,
      center_damage: 18,
      slow_ticks: 3,
      stun_ticks: 2,
      needs_sight: true,
    },
    repulsor: { cooldown: 5, damage: 8, knockback: 2, reach: 1, needs_sight: false },
  },
  wall_slam: { damage: 10, stun_ticks: 1 },
  collision: { damage: 6 },
  pickups: {
    kinds: {
      heal: { amount: 25, weight: 2 },
      shield: { amount: 20, max: 40, weight: 1 },
      haste: { resets: ["dash", "ranged", "frostburst", "repulsor"], weight: 1 },
    },
    first_spawn_tick: 20,
    interval: 30,
    max_on_map: 4,
  },
  zone: {
    center: [10, 10],
    metric: "chebyshev",
    start_tick: 120,
    interval: 12,
    start_radius: 10,
    min_radius: 2,
    damage: 4,
  },
  shout: { max_length: 40, cooldown: 20 },
  danger: { reach: 3, horizon: 3 },
  vision: { kind: "line_of_sight", blocks: "walls" },
  maps: MAP_ROWS,
} as const;

export type Rules = typeof RULES;

/** Canonical JSON: keys sorted at every depth, no whitespace, so the hash never depends on key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    const keys = Object.keys(obj).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export function rulesHash(rules: unknown = RULES): string {
  return createHash("sha256").update(canonicalJson(rules)).digest("hex");
}

export interface MapInfo {
  name: string;
  width: number;
  height: number;
  rows: string[];
  walls: Uint8Array;
  spawns: [[number, number], [number, number]];
  pickupSpots: [number, number][];
}

/** Parses a map of the rules table; pickup spots are ordered so spot 2k+1 is the mirror of spot 2k. */
export function parseMap(name: string, rules: { maps: Record<string, readonly string[]> } = RULES): MapInfo {
  const rows = rules.maps[name];
  if (!rows)
    throw new Error(`unknown map ${JSON.stringify(name)}; maps: ${Object.keys(rules.maps).join(", ")}`);
  const height = rows.length;
  const width = rows[0]!.length;
  const walls = new Uint8Array(width * height);
  let a: [number, number] | undefined;
  let b: [number, number] | undefined;
  const spots: [number, number][] = [];
  rows.forEach((row, y) => {
    for (let x = 0; x < width; x++) {
      const c = row[x];
      if (c === "#") walls[y * width + x] = 1;
      else if (c === "A") a = [x, y];
      else if (c === "B") b = [x, y];
      else if (c === "p") spots.push([x, y]);
    }
  });
  if (!a || !b) throw new Error(`map ${name} lacks spawn A or B`);
  const paired: [number, number][] = [];
  const used = new Set<number>();
  spots.forEach(([x, y], i) => {
    if (used.has(i)) return;
    const j = spots.findIndex(
      ([mx, my], k) => !used.has(k) && k !== i && mx === width - 1 - x && my === height - 1 - y,
    );
    if (j < 0) throw new Error(`map ${name}: pickup spot ${x},${y} has no mirror`);
    used.add(i).add(j);
    paired.push([x, y], spots[j]!);
  });
  return { name, width, height, rows: [...rows], walls, spawns: [a, b], pickupSpots: paired };
}
