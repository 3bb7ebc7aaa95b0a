// The TypeScript side of the engine ABI: compiles engine.wasm once per thread, makes one instance per match,
// writes params, map and turns into the instance's memory and reads state, events and observations back.
// Numbers only cross the boundary; views are re-made after every call that might grow memory.
import * as L from "./assembly/layout.ts";
import {
  ATTACK_NAMES,
  type AttackName,
  DIRECTIONS,
  type MapInfo,
  PICKUP_KINDS,
  type PickupKind,
  parseMap,
  RULES,
} from "./rules.ts";
import { loadEngineBytes } from "./wasm.ts";

interface EngineExports {
  memory: WebAssembly.Memory;
  paramsPtr(): number;
  tilesPtr(): number;
  turnsPtr(): number;
  statePtr(): number;
  eventsPtr(): number;
  obsPtr(): number;
  layoutVersion(): number;
  visible(x0: number, y0: number, x1: number, y1: number): number;
  init(seed: number): number;
  step(): number;
  concede(loser: number, reason: number): void;
  observe(f: number): void;
}

let compiled: WebAssembly.Module | undefined;

/** Compiles the engine once per thread; every match then instantiates the cached module. */
export function engineModule(): WebAssembly.Module {
  compiled ??= new WebAssembly.Module(loadEngineBytes());
  return compiled;
}

/** The subset of the rules table the engine reads; a replay's embedded rules have the same shape. */
export type EngineRules = typeof RULES;

export function paramsFor(rules: EngineRules, map: MapInfo): Int32Array {
  const p = new Int32Array(L.PARAMS_SIZE);
  const a = rules.attacks;
  p[L.P_VERSION] = L.LAYOUT_VERSION;
  p[L.P_HP] = rules.fighter.hp;
  p[L.P_TICK_LIMIT] = rules.tick_limit;
  p[L.P_DASH_MAX] = rules.movement.dash.max_tiles;
  p[L.P_DASH_CD] = rules.movement.dash.cooldown;
  p[L.P_R_CD] = a.ranged.cooldown;
  p[L.P_R_DMG] = a.ranged.damage;
  p[L.P_R_RANGE] = a.ranged.range;
  p[L.P_R_RICO_DMG] = a.ranged.ricochet_damage;
  p[L.P_F_CD] = a.frostburst.cooldown;
  p[L.P_F_RANGE] = a.frostburst.range;
  p[L.P_F_RADIUS] = a.frostburst.radius;
  p[L.P_F_DELAY] = a.frostburst.delay;
  p[L.P_F_DMG] = a.frostburst.damage;
  p[L.P_F_CENTER_DMG] = a.frostburst.center_damage;
  p[L.P_F_SLOW] = a.frostburst.slow_ticks;
  p[L.P_F_STUN] = a.frostburst.stun_ticks;
  p[L.P_P_CD] = a.repulsor.cooldown;
  p[L.P_P_DMG] = a.repulsor.damage;
  p[L.P_P_KNOCK] = a.repulsor.knockback;
  p[L.P_SLAM_DMG] = rules.wall_slam.damage;
  p[L.P_SLAM_STUN] = rules.wall_slam.stun_ticks;
  p[L.P_COLL_DMG] = rules.collision.damage;
  p[L.P_HEAL] = rules.pickups.kinds.heal.amount;
  p[L.P_SHIELD] = rules.pickups.kinds.shield.amount;
  p[L.P_SHIELD_MAX] = rules.pickups.kinds.shield.max;
  p[L.P_HEAL_WEIGHT] = rules.pickups.kinds.heal.weight;
  p[L.P_SHIELD_WEIGHT] = rules.pickups.kinds.shield.weight;
  p[L.P_HASTE_WEIGHT] = rules.pickups.kinds.haste.weight;
  p[L.P_PICK_FIRST] = rules.pickups.first_spawn_tick;
  p[L.P_PICK_INTERVAL] = rules.pickups.interval;
  p[L.P_PICK_MAX] = rules.pickups.max_on_map;
  p[L.P_Z_START] = rules.zone.start_tick;
  p[L.P_Z_INTERVAL] = rules.zone.interval;
  p[L.P_Z_RADIUS] = rules.zone.start_radius;
  p[L.P_Z_MIN] = rules.zone.min_radius;
  p[L.P_Z_DMG] = rules.zone.damage;
  p[L.P_SHOUT_CD] = rules.shout.cooldown;
  p[L.P_DANGER_HORIZON] = rules.danger.horizon;
  p[L.P_SPAWN_AX] = map.spawns[0][0];
  p[L.P_SPAWN_AY] = map.spawns[0][1];
  p[L.P_SPAWN_BX] = map.spawns[1][0];
  p[L.P_SPAWN_BY] = map.spawns[1][1];
  const spots = map.pickupSpots.slice(0, L.MAX_SPOTS);
  p[L.P_SPOT_COUNT] = spots.length;
  spots.forEach(([x, y], i) => {
    p[L.P_SPOTS + i * 2] = x;
    p[L.P_SPOTS + i * 2 + 1] = y;
  });
  return p;
}

/** Numeric turn for one fighter, as the engine reads it; -1 means the part is absent. */
export interface EngineTurn {
  move: number;
  dash: number;
  attack: number;
  tx: number;
  ty: number;
  shout: boolean;
}
export const IDLE_TURN: EngineTurn = Object.freeze({
  move: -1,
  dash: -1,
  attack: -1,
  tx: 0,
  ty: 0,
  shout: false,
});

export interface FighterState {
  x: number;
  y: number;
  hp: number;
  shield: number;
  alive: boolean;
  stunned: number;
  slowed: number;
  cooldowns: { ranged: number; frostburst: number; repulsor: number; dash: number; shout: number };
  damageDealt: number;
  damageTaken: number;
}
export interface AreaState {
  owner: number;
  x: number;
  y: number;
  radius: number;
  explodeTick: number;
}
export interface PickupState {
  kind: PickupKind;
  x: number;
  y: number;
}

/** Raw engine events: records of EV_STRIDE words (kind and seven fields), decoded by events.ts. */
export type RawEvents = Int32Array;

export const END_REASON_NAMES: Record<number, string> = {
  [L.R_LAST_STANDING]: "last_standing",
  [L.R_TIMEOUT_HP]: "timeout_hp",
  [L.R_TIMEOUT_DAMAGE]: "timeout_damage",
  [L.R_TIMEOUT_DRAW]: "timeout_draw",
  [L.R_DOUBLE_KNOCKOUT]: "double_knockout",
  [L.R_FORFEIT]: "forfeit",
  [L.R_DISQUALIFIED]: "disqualified",
};

export class Engine {
  readonly map: MapInfo;
  readonly rules: EngineRules;
  private readonly x: EngineExports;
  private readonly turnsAt: number;
  private readonly stateAt: number;
  private readonly eventsAt: number;
  private readonly obsAt: number;

  constructor(mapName: string, seed: number, rules: EngineRules = RULES) {
    this.rules = rules;
    this.map = parseMap(mapName, rules);
    const instance = new WebAssembly.Instance(engineModule(), {
      env: {
        abort: (_msg: number, _file: number, line: number, col: number) => {
          throw new Error(`engine aborted at ${line}:${col}`);
        },
      },
    });
    this.x = instance.exports as unknown as EngineExports;
    if (this.x.layoutVersion() !== L.LAYOUT_VERSION)
      throw new Error("engine.wasm layout version mismatch: rebuild");
    this.i32(this.x.paramsPtr(), L.PARAMS_SIZE).set(paramsFor(rules, this.map));
    const tiles = this.i32(this.x.tilesPtr(), L.TILES);
    for (let i = 0; i < L.TILES; i++) tiles[i] = this.map.walls[i] ?? 1;
    this.turnsAt = this.x.turnsPtr();
    this.stateAt = this.x.statePtr();
    this.eventsAt = this.x.eventsPtr();
    this.obsAt = this.x.obsPtr();
    if (this.x.init(seed | 0) !== 0) throw new Error("engine init refused its params");
  }

  // Views are cached and re-made only when memory.buffer is replaced (the instance grew its memory).
  private buffer: ArrayBuffer | undefined;
  private readonly views = new Map<number, Int32Array>();
  private i32(ptr: number, len: number): Int32Array {
    const buf = this.x.memory.buffer;
    if (buf !== this.buffer) {
      this.buffer = buf;
      this.views.clear();
    }
    const key = ptr * 4096 + len;
    let v = this.views.get(key);
    if (!v) {
      v = new Int32Array(buf, ptr, len);
      this.views.set(key, v);
    }
    return v;
  }

  state(): Int32Array {
    return this.i32(this.stateAt, L.STATE_SIZE);
  }

  get tick(): number {
    return this.state()[L.S_TICK]!;
  }
  get over(): boolean {
    return this.state()[L.S_STATUS] !== 0;
  }
  get winner(): number | null {
    const w = this.state()[L.S_WINNER]!;
    return w < 0 ? null : w;
  }
  get reason(): string | null {
    return END_REASON_NAMES[this.state()[L.S_REASON]!] ?? null;
  }

  /** Resolves the current tick with one turn per fighter; returns how many event records it produced: the
   * first ones of eventRecords(). A count over the cached view, not a fresh subarray each tick. */
  step(t0: EngineTurn, t1: EngineTurn): number {
    const t = this.i32(this.turnsAt, L.T_STRIDE * L.FIGHTERS);
    writeTurn(t, 0, t0);
    writeTurn(t, L.T_STRIDE, t1);
    this.x.step();
    return this.state()[L.S_EVENT_COUNT]!;
  }

  /** The whole event region (EV_STRIDE words a record); the last step's records come first. Valid until the
   * next engine call. */
  eventRecords(): RawEvents {
    return this.i32(this.eventsAt, L.EV_STRIDE * L.MAX_EVENTS);
  }

  concede(loser: number, reason: "forfeit" | "disqualified"): void {
    this.x.concede(loser, reason === "forfeit" ? L.R_FORFEIT : L.R_DISQUALIFIED);
  }

  fighter(f: number): FighterState {
    const s = this.state();
    const o = L.S_FIGHTERS + f * L.F_STRIDE;
    return {
      x: s[o + L.F_X]!,
      y: s[o + L.F_Y]!,
      hp: s[o + L.F_HP]!,
      shield: s[o + L.F_SHIELD]!,
      alive: s[o + L.F_ALIVE] !== 0,
      stunned: s[o + L.F_STUN]!,
      slowed: s[o + L.F_SLOW]!,
      cooldowns: {
        ranged: s[o + L.F_CD + L.ATTACK_RANGED]!,
        frostburst: s[o + L.F_CD + L.ATTACK_FROSTBURST]!,
        repulsor: s[o + L.F_CD + L.ATTACK_REPULSOR]!,
        dash: s[o + L.F_CD_DASH]!,
        shout: s[o + L.F_CD_SHOUT]!,
      },
      damageDealt: s[o + L.F_DEALT]!,
      damageTaken: s[o + L.F_TAKEN]!,
    };
  }

  areas(): AreaState[] {
    const s = this.state();
    const out: AreaState[] = [];
    for (let i = 0; i < s[L.S_AREA_COUNT]!; i++) {
      const o = L.S_AREAS + i * L.A_STRIDE;
      out.push({ owner: s[o]!, x: s[o + 1]!, y: s[o + 2]!, radius: s[o + 3]!, explodeTick: s[o + 4]! });
    }
    return out;
  }

  pickups(): PickupState[] {
    const s = this.state();
    const out: PickupState[] = [];
    for (let i = 0; i < s[L.S_PICKUP_COUNT]!; i++) {
      const o = L.S_PICKUPS + i * L.PK_STRIDE;
      out.push({ kind: PICKUP_KINDS[s[o]!]!, x: s[o + 1]!, y: s[o + 2]! });
    }
    return out;
  }

  zone(): { radius: number; nextShrinkTick: number | null } {
    const s = this.state();
    const next = s[L.S_ZONE_NEXT]!;
    return { radius: s[L.S_ZONE_RADIUS]!, nextShrinkTick: next < 0 ? null : next };
  }

  /** Fills and returns the observation region for fighter f (valid until the next engine call). */
  observe(f: number): Int32Array {
    this.x.observe(f);
    return this.i32(this.obsAt, L.OBS_SIZE);
  }

  visible(x0: number, y0: number, x1: number, y1: number): boolean {
    return this.x.visible(x0, y0, x1, y1) !== 0;
  }
}

function writeTurn(t: Int32Array, o: number, turn: EngineTurn): void {
  t[o + L.T_MOVE] = turn.move;
  t[o + L.T_DASH] = turn.dash;
  t[o + L.T_ATTACK] = turn.attack;
  t[o + L.T_TX] = turn.tx;
  t[o + L.T_TY] = turn.ty;
  t[o + L.T_SHOUT] = turn.shout ? 1 : 0;
}

export const directionIndex = (d: string): number => (DIRECTIONS as readonly string[]).indexOf(d);
export const attackIndex = (a: string): number => (ATTACK_NAMES as readonly string[]).indexOf(a);
export const attackName = (i: number): AttackName => ATTACK_NAMES[i]!;
