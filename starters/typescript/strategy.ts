// The TypeScript starter bot's strategy (house bot `ts-starter`, "Starter", difficulty Hard).
//
// This file is self-contained on purpose: copy it into your own project and start changing numbers. It
// needs nothing but TypeScript; bot.ts (next to it) connects it to the ladder over WebSocket.
//
// How a tick works (see /docs/rules): both fighters send a turn for the same observation; the engine moves
// both at once, then judges attacks from where each fighter ended up. So:
//   * a ranged shot flies along the direction you aim (from your NEW tile) and hits whoever stands on that
//     line after moving; aiming at where the opponent is now only hits if it stands still or walks along
//     the line, so we aim at where it is heading;
//   * a frostburst explodes two ticks after it is thrown, so it only hits someone who does not walk out;
//   * the repulsor hits everything next to you and pushes it two tiles (extra damage against a wall).
//
// The plan each tick:
//   1. track the opponent: where it is (or was last seen), which way it last stepped, and whether its
//      ranged attack can be ready (we saw when it last fired);
//   2. score every tile we can stand on next (stay or one step): avoid exploding frostbursts and the zone,
//      keep a comfortable distance, keep sight of the opponent, stay off its lines of fire while it can
//      shoot, walk to a heal pickup when hurt, and search for the opponent when it is out of sight;
//   3. if even the best step is dangerous and a dash is ready, dash out instead;
//   4. attack from where we will stand: repulsor when adjacent, otherwise the ranged shot at the
//      opponent's next tile, otherwise a frostburst thrown where the opponent is heading.
//
// Ideas to make it stronger: learn how the opponent moves instead of assuming it repeats its last step,
// aim ricochets off walls, push opponents into walls with the repulsor, pick up shields and haste.

// ---------------------------------------------------------------------------------------------------------
// Minimal local types: the parts of the protocol this strategy reads (the full schemas are served at
// /docs/schema/server-hello.json and /docs/schema/server-observation.json).

export type Direction = "N" | "NE" | "E" | "SE" | "S" | "SW" | "W" | "NW";
type Tile = [number, number];

export interface Hello {
  match_id: string;
  bot_id: number;
  map: { name: string; width: number; height: number; rows: string[] };
  rules: { attacks: Record<string, unknown> };
}

export interface Observation {
  tick: number;
  self: {
    x: number;
    y: number;
    hp: number;
    stunned: number;
    cooldowns: { ranged: number; frostburst: number; repulsor: number; dash: number };
  };
  opponents: {
    visible: boolean;
    x: number | null;
    y: number | null;
    last_seen: { tile: Tile; tick: number } | null;
  }[];
  moves: { dir: Direction; tile: Tile }[];
  dashes: { dir: Direction; tile: Tile; distance: number }[];
  areas: { center: Tile; radius: number; explodes_in: number }[];
  pickups: { kind: string; tile: Tile }[];
  zone: { center: Tile; radius: number; shrinks_in: number | null };
  /** What happened last tick that we could see; we only read the opponent's attacks. */
  events: { type: string; by?: number; name?: string }[];
}

export interface Turn {
  type: "turn";
  tick: number;
  move?: Direction;
  dash?: Direction;
  attack?: { name: string; target?: Tile };
  shout?: string;
}

// ---------------------------------------------------------------------------------------------------------
// Tunable numbers.

const PREFERRED_RANGE = 4; // Chebyshev distance we like to fight at
const HEAL_WHEN_HP_BELOW = 65;
const RANGED_REACH = 12; // tiles; hello.rules.attacks.ranged.range overrides it
const RANGED_COOLDOWN = 4; // ticks; hello.rules.attacks.ranged.cooldown overrides it
const FROST_REACH = 7; // tiles; hello.rules.attacks.frostburst.range overrides it
const JITTER = 2.5; // random noise added to tile scores: a predictable fighter is an easy target

// ---------------------------------------------------------------------------------------------------------
// Map helpers.

const STEP: Record<Direction, Tile> = {
  N: [0, -1],
  NE: [1, -1],
  E: [1, 0],
  SE: [1, 1],
  S: [0, 1],
  SW: [-1, 1],
  W: [-1, 0],
  NW: [-1, -1],
};

const chebyshev = (ax: number, ay: number, bx: number, by: number) =>
  Math.max(Math.abs(ax - bx), Math.abs(ay - by));

/** The map as the strategy reads it (exported for the test that pins its line of sight to the engine's). */
export class Board {
  readonly w: number;
  readonly h: number;
  private readonly walls: Uint8Array;
  /** Walking distances to a goal tile, one breadth-first search per goal, kept for the whole match. */
  private readonly toGoal = new Map<number, Uint8Array>();

  constructor(map: Hello["map"]) {
    this.w = map.width;
    this.h = map.height;
    this.walls = new Uint8Array(this.w * this.h);
    for (let y = 0; y < this.h; y++) {
      for (let x = 0; x < this.w; x++) this.walls[y * this.w + x] = map.rows[y]![x] === "#" ? 1 : 0;
    }
  }

  wall(x: number, y: number): boolean {
    return x < 0 || y < 0 || x >= this.w || y >= this.h || this.walls[y * this.w + x] === 1;
  }

  /** Whether a one-tile step is legal: the tile is floor and a diagonal does not cut a wall corner. */
  canStep(x: number, y: number, dx: number, dy: number): boolean {
    if (this.wall(x + dx, y + dy)) return false;
    return dx === 0 || dy === 0 || (!this.wall(x + dx, y) && !this.wall(x, y + dy));
  }

  /** Steps needed to walk from (x, y) to the goal (gx, gy); 255 when impossible. */
  distance(x: number, y: number, gx: number, gy: number): number {
    const goal = gy * this.w + gx;
    let field = this.toGoal.get(goal);
    if (!field) {
      field = this.breadthFirst(gx, gy);
      this.toGoal.set(goal, field);
    }
    return field[y * this.w + x]!;
  }

  /** Distance from every tile to (gx, gy), searching outward from the goal (steps are reversible). */
  private breadthFirst(gx: number, gy: number): Uint8Array {
    const dist = new Uint8Array(this.w * this.h).fill(255);
    const queue: number[] = [gy * this.w + gx];
    dist[queue[0]!] = 0;
    for (let head = 0; head < queue.length; head++) {
      const t = queue[head]!;
      const x = t % this.w;
      const y = (t - x) / this.w;
      for (const [dx, dy] of Object.values(STEP)) {
        if (!this.canStep(x, y, dx, dy)) continue;
        const u = (y + dy) * this.w + x + dx;
        if (dist[u] !== 255) continue;
        dist[u] = dist[t]! + 1;
        queue.push(u);
      }
    }
    return dist;
  }

  /** Line of sight exactly as the engine decides it: a Bresenham line clear of walls in either direction. */
  sees(x0: number, y0: number, x1: number, y1: number): boolean {
    return this.lineClear(x0, y0, x1, y1) || this.lineClear(x1, y1, x0, y0);
  }

  private lineClear(x0: number, y0: number, x1: number, y1: number): boolean {
    const dx = Math.abs(x1 - x0);
    const dy = -Math.abs(y1 - y0);
    const sx = x0 < x1 ? 1 : -1;
    const sy = y0 < y1 ? 1 : -1;
    let err = dx + dy;
    let x = x0;
    let y = y0;
    for (;;) {
      if (x === x1 && y === y1) return true;
      if (this.wall(x, y) && !(x === x0 && y === y0)) return false;
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
  }

  /**
   * Whether a ranged shot from (sx, sy) aimed at (ax, ay) would pass over tile (tx, ty) before hitting a
   * wall. This follows the engine's ray (half-tile steps) but ignores the ricochet, to stay short.
   */
  shotCrosses(
    sx: number,
    sy: number,
    ax: number,
    ay: number,
    tx: number,
    ty: number,
    reach: number,
  ): boolean {
    const dx = ax - sx;
    const dy = ay - sy;
    const n = Math.max(Math.abs(dx), Math.abs(dy));
    if (n === 0) return false;
    const vx = Math.trunc((dx * 1024) / (2 * n));
    const vy = Math.trunc((dy * 1024) / (2 * n));
    let px = sx * 1024 + 512;
    let py = sy * 1024 + 512;
    for (let s = 0; s < reach * 2; s++) {
      px += vx;
      py += vy;
      const x = px >> 10;
      const y = py >> 10;
      if (this.wall(x, y)) return false;
      if (x === tx && y === ty) return true;
    }
    return false;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The strategy.

/** Returns the per-match decision function: call it once per observation. */
export function createDecide(hello: Hello): (obs: Observation) => Turn {
  const board = new Board(hello.map);
  const random = seededRandom(`${hello.match_id}/${hello.bot_id}`);
  // Numbers come from hello.rules, so the bot keeps working when the rules are tuned.
  const attacks = hello.rules.attacks as Record<string, { range?: number; cooldown?: number } | undefined>;
  const rangedReach = attacks.ranged?.range ?? RANGED_REACH;
  const rangedCooldown = attacks.ranged?.cooldown ?? RANGED_COOLDOWN;
  const frostReach = attacks.frostburst?.range ?? FROST_REACH;

  // Where to look while the opponent is out of sight: the spawn sides and the pickup spots, in turn,
  // starting with the one farthest from us (the opponent's spawn).
  const waypoints: Tile[] = [];
  hello.map.rows.forEach((row, y) => {
    for (let x = 0; x < row.length; x++)
      if (row[x] === "A" || row[x] === "B" || row[x] === "p") waypoints.push([x, y]);
  });
  let waypoint = -1;

  // What we remember between ticks about the opponent.
  let oppX = -1;
  let oppY = -1;
  let oppSeenTick = -1;
  let oppStepX = 0; // its last step, to guess where it goes next
  let oppStepY = 0;
  let oppRangedReadyAt = 0; // tick when its ranged attack is ready again, judged from the shots we saw
  let myLastX = -1; // our own previous tile: a leading shooter aims one more of our steps ahead
  let myLastY = -1;

  return (obs) => {
    const turn: Turn = { type: "turn", tick: obs.tick };
    const me = obs.self;
    const opp = obs.opponents[0];
    if (!opp) return turn;

    // 1. Where is the opponent, where is it heading, and can it shoot this tick?
    for (const ev of obs.events) {
      if (ev.type === "attack" && ev.by !== hello.bot_id && ev.name === "ranged") {
        oppRangedReadyAt = obs.tick + rangedCooldown; // it fired last tick
      }
    }
    const oppMayShoot = obs.tick >= oppRangedReadyAt;
    // Where a shooter that leads its target expects us: one more step the way we just moved.
    const myStepX = myLastX < 0 ? 0 : me.x - myLastX;
    const myStepY = myLastY < 0 ? 0 : me.y - myLastY;
    myLastX = me.x;
    myLastY = me.y;
    const visible = opp.visible && opp.x !== null && opp.y !== null;
    if (visible) {
      const x = opp.x!;
      const y = opp.y!;
      if (oppSeenTick === obs.tick - 1) {
        oppStepX = x - oppX;
        oppStepY = y - oppY;
      } else {
        oppStepX = 0;
        oppStepY = 0;
      }
      oppX = x;
      oppY = y;
      oppSeenTick = obs.tick;
    } else if (opp.last_seen) {
      [oppX, oppY] = opp.last_seen.tile;
    }
    // Only trust a sighting for a while; after that, go looking.
    const known = oppX >= 0 && obs.tick - (opp.last_seen?.tick ?? -99) <= 12;
    if (waypoint < 0) {
      waypoint = 0;
      waypoints.forEach(([x, y], i) => {
        const [bx, by] = waypoints[waypoint]!;
        if (chebyshev(me.x, me.y, x, y) > chebyshev(me.x, me.y, bx, by)) waypoint = i;
      });
    }
    let [searchX, searchY] = waypoints[waypoint % waypoints.length]!;
    if (!known && chebyshev(me.x, me.y, searchX, searchY) <= 1) {
      waypoint++;
      [searchX, searchY] = waypoints[waypoint % waypoints.length]!;
    }
    // Its likely next tile: one more step the same way, if that is floor.
    let nextX = oppX;
    let nextY = oppY;
    if (known && (oppStepX !== 0 || oppStepY !== 0) && board.canStep(oppX, oppY, oppStepX, oppStepY)) {
      nextX = oppX + oppStepX;
      nextY = oppY + oppStepY;
    }

    if (me.stunned > 0) return turn; // stunned: moves and attacks would be refused, so stay idle

    // 2. Score every tile we could stand on after this tick.
    const heal = me.hp < HEAL_WHEN_HP_BELOW ? nearestPickup(obs, board, me.x, me.y, "heal") : null;
    const score = (x: number, y: number): number => {
      let s = -danger(obs, x, y);
      if (known) {
        const d = chebyshev(x, y, oppX, oppY);
        s -= 2 * Math.abs(d - PREFERRED_RANGE);
        if (visible && board.sees(x, y, oppX, oppY)) s += 4; // we can shoot from here
        // When it can shoot, stay off the lines it would shoot along: at our tile, or one step ahead of us.
        if (visible && oppMayShoot) {
          if (board.shotCrosses(oppX, oppY, me.x, me.y, x, y, rangedReach)) s -= 6;
          const aheadX = me.x + myStepX;
          const aheadY = me.y + myStepY;
          if (
            (myStepX !== 0 || myStepY !== 0) &&
            board.shotCrosses(oppX, oppY, aheadX, aheadY, x, y, rangedReach)
          ) {
            s -= 4;
          }
        }
      } else {
        s -= board.distance(x, y, searchX, searchY); // go looking for it
      }
      if (heal) s -= 3 * board.distance(x, y, heal[0], heal[1]);
      return s + JITTER * random();
    };
    let bestX = me.x;
    let bestY = me.y;
    let best = score(me.x, me.y);
    for (const m of obs.moves) {
      const s = score(m.tile[0], m.tile[1]);
      if (s > best) {
        best = s;
        bestX = m.tile[0];
        bestY = m.tile[1];
        turn.move = m.dir;
      }
    }
    // 3. Every step hurts? Dash to the safest reachable tile if we can.
    if (danger(obs, bestX, bestY) >= 50 && obs.dashes.length > 0) {
      for (const d of obs.dashes) {
        if (danger(obs, d.tile[0], d.tile[1]) < danger(obs, bestX, bestY)) {
          delete turn.move;
          turn.dash = d.dir;
          bestX = d.tile[0];
          bestY = d.tile[1];
        }
      }
    }

    // 4. Attack from the tile we end on.
    if (!visible) return turn;
    const cd = me.cooldowns;
    const dist = chebyshev(bestX, bestY, oppX, oppY);
    if (dist <= 1 && cd.repulsor === 0) {
      turn.attack = { name: "repulsor" }; // hits all eight neighbours; no target needed
    } else if (cd.ranged === 0 && dist <= rangedReach) {
      // Aim where it is heading when we can see that tile, otherwise where it stands.
      const aim: Tile = board.sees(bestX, bestY, nextX, nextY) ? [nextX, nextY] : [oppX, oppY];
      if ((aim[0] !== bestX || aim[1] !== bestY) && board.sees(bestX, bestY, aim[0], aim[1])) {
        turn.attack = { name: "ranged", target: aim };
      }
    } else if (cd.frostburst === 0 && dist >= 3 && dist <= frostReach) {
      // The burst lands two ticks from now: lead the target by two of its steps when possible.
      let fx = nextX;
      let fy = nextY;
      if ((oppStepX !== 0 || oppStepY !== 0) && board.canStep(nextX, nextY, oppStepX, oppStepY)) {
        fx += oppStepX;
        fy += oppStepY;
      }
      if (chebyshev(bestX, bestY, fx, fy) <= frostReach && board.sees(bestX, bestY, fx, fy)) {
        turn.attack = { name: "frostburst", target: [fx, fy] };
      }
    }
    return turn;
  };
}

/** How much standing on (x, y) at the end of this tick is going to hurt, as a penalty. */
function danger(obs: Observation, x: number, y: number): number {
  let p = 0;
  for (const a of obs.areas) {
    if (chebyshev(x, y, a.center[0], a.center[1]) > a.radius) continue;
    // explodes_in 0: it goes off at the end of this tick, so we would be caught there;
    // 1: we would have to get out next tick; later: still time to leave.
    p += a.explodes_in === 0 ? 100 : a.explodes_in === 1 ? 20 : 5;
  }
  const z = obs.zone;
  const fromCentre = chebyshev(x, y, z.center[0], z.center[1]);
  // Outside the zone costs hp every tick; on its edge we will be outside after the next shrink.
  if (fromCentre > z.radius) p += 50;
  else if (fromCentre === z.radius && z.shrinks_in !== null && z.shrinks_in <= 3) p += 15;
  return p;
}

/** A small seeded random generator (mulberry32), so a match replays the same way from the same seed. */
function seededRandom(seedText: string): () => number {
  let t = 0;
  for (let i = 0; i < seedText.length; i++) t = Math.imul(t ^ seedText.charCodeAt(i), 2654435761) >>> 0;
  return () => {
    t = (t + 0x6d2b79f5) >>> 0;
    let r = Math.imul(t ^ (t >>> 15), t | 1);
    r ^= r + Math.imul(r ^ (r >>> 7), r | 61);
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
}

function nearestPickup(obs: Observation, board: Board, x: number, y: number, kind: string): Tile | null {
  let best: Tile | null = null;
  let bestD = 255;
  for (const p of obs.pickups) {
    if (p.kind !== kind) continue;
    const d = board.distance(x, y, p.tile[0], p.tile[1]);
    if (d < bestD) {
      bestD = d;
      best = p.tile;
    }
  }
  return best;
}

/** The strategy as the ladder's house bot and the simulator see it. */
export const starter = {
  name: "ts-starter",
  display_name: "Starter",
  difficulty: "Hard" as const,
  version: "1.0.0",
  create: createDecide,
};
