// Memory map shared by the AssemblyScript engine and its TypeScript host (engine/host.ts).
// Plain integer constants only, so both compilers accept this one file: an offset changed here changes both sides.
// Every region is an Int32 array; the host makes fresh views after each call that may grow memory.

export const LAYOUT_VERSION = 1;
export const BOARD = 21;
export const TILES = 441;
export const FIGHTERS = 2;

// Params region: the numbers of the rules table, written by the host before init().
export const P_VERSION = 0;
export const P_HP = 1;
export const P_TICK_LIMIT = 2;
export const P_DASH_MAX = 3;
export const P_DASH_CD = 4;
export const P_R_CD = 5;
export const P_R_DMG = 6;
export const P_R_RANGE = 7;
export const P_R_RICO_DMG = 8;
export const P_F_CD = 9;
export const P_F_RANGE = 10;
export const P_F_RADIUS = 11;
export const P_F_DELAY = 12;
export const P_F_DMG = 13;
export const P_F_CENTER_DMG = 14;
export const P_F_SLOW = 15;
export const P_F_STUN = 16;
export const P_P_CD = 17;
export const P_P_DMG = 18;
export const P_P_KNOCK = 19;
export const P_SLAM_DMG = 20;
export const P_SLAM_STUN = 21;
export const P_COLL_DMG = 22;
export const P_HEAL = 23;
export const P_SHIELD = 24;
export const P_SHIELD_MAX = 25;
export const P_PICK_FIRST = 26;
export const P_PICK_INTERVAL = 27;
export const P_PICK_MAX = 28;
export const P_Z_START = 29;
export const P_Z_INTERVAL = 30;
export const P_Z_RADIUS = 31;
export const P_Z_MIN = 32;
export const P_Z_DMG = 33;
export const P_SHOUT_CD = 34;
export const P_SPAWN_AX = 35;
export const P_SPAWN_AY = 36;
export const P_SPAWN_BX = 37;
export const P_SPAWN_BY = 38;
export const P_SPOT_COUNT = 39;
export const P_DANGER_HORIZON = 40;
export const P_HEAL_WEIGHT = 41;
export const P_SHIELD_WEIGHT = 42;
export const P_HASTE_WEIGHT = 43;
export const P_SPOTS = 48; // pickup spots as (x, y) pairs; spot 2k+1 mirrors spot 2k
export const MAX_SPOTS = 16;
export const PARAMS_SIZE = 96;

// Map region: one word per tile, row-major (index = y * BOARD + x).
export const TILE_FLOOR = 0;
export const TILE_WALL = 1;

// Turn region: one record per fighter, written by the host before step().
export const T_STRIDE = 8;
export const T_MOVE = 0; // -1 none, else direction 0..7
export const T_DASH = 1; // -1 none, else direction 0..7
export const T_ATTACK = 2; // -1 none, else attack 0..2
export const T_TX = 3;
export const T_TY = 4;
export const T_SHOUT = 5; // 1 when a cleaned, valid shout is attached

// Directions, clockwise from north; y grows southward.
export const DIR_COUNT = 8;

export const ATTACK_RANGED = 0;
export const ATTACK_FROSTBURST = 1;
export const ATTACK_REPULSOR = 2;
export const ATTACK_COUNT = 3;
// Damage sources beyond the attacks (HIT events and stats).
export const SRC_WALL_SLAM = 10;
export const SRC_COLLISION = 11;

export const PICKUP_HEAL = 0;
export const PICKUP_SHIELD = 1;
export const PICKUP_HASTE = 2;
export const PICKUP_KINDS = 3;

// State region.
export const S_TICK = 0;
export const S_STATUS = 1; // 0 running, 1 over
export const S_WINNER = 2; // fighter id, -1 draw
export const S_REASON = 3;
export const S_EVENT_COUNT = 4;
export const S_ZONE_RADIUS = 5;
export const S_ZONE_NEXT = 6; // tick of the next shrink, -1 when at minimum
export const S_RNG = 7;
export const S_AREA_COUNT = 8;
export const S_PICKUP_COUNT = 9;
export const S_NEXT_PICKUP = 10;
export const S_SPAWN_SWAP = 11;
export const S_FIGHTERS = 16;
export const F_STRIDE = 24;
export const F_X = 0;
export const F_Y = 1;
export const F_HP = 2;
export const F_SHIELD = 3;
export const F_ALIVE = 4;
export const F_STUN = 5;
export const F_SLOW = 6;
export const F_CD = 7; // F_CD + attack for the three attacks
export const F_CD_DASH = 10;
export const F_CD_SHOUT = 11;
export const F_DEALT = 12;
export const F_TAKEN = 13;
export const S_AREAS = 64;
export const A_STRIDE = 5; // owner, x, y, radius, explode_tick
export const MAX_AREAS = 16;
export const S_PICKUPS = 144;
export const PK_STRIDE = 3; // kind, x, y
export const MAX_PICKUPS = 16;
export const STATE_SIZE = 192;

// End reasons.
export const R_NONE = 0;
export const R_LAST_STANDING = 1;
export const R_TIMEOUT_HP = 2;
export const R_TIMEOUT_DAMAGE = 3;
export const R_TIMEOUT_DRAW = 4;
export const R_DOUBLE_KNOCKOUT = 5;
export const R_FORFEIT = 6;
export const R_DISQUALIFIED = 7;

// Events: fixed-size records, at most MAX_EVENTS per step.
export const EV_STRIDE = 8;
export const MAX_EVENTS = 64;
export const EV_MOVE = 1; // fighter, fromX, fromY, toX, toY, dash, blocked
export const EV_ATTACK = 2; // fighter, attack, targetX, targetY, fromX, fromY, bounced
export const EV_HIT = 3; // attacker, target, source, damage, ricochet, absorbed
export const EV_REJECTED = 4; // fighter, part, reason
export const EV_SHOUT = 5; // fighter
export const EV_AREA_SPAWN = 6; // owner, x, y, radius, explodeTick
export const EV_AREA_EXPLODE = 7; // owner, x, y, radius
export const EV_ZONE_DAMAGE = 8; // fighter, damage
export const EV_REPULSE = 9; // by, target, fromX, fromY, toX, toY, wallSlam
export const EV_PICKUP = 10; // fighter, kind, x, y, amount
export const EV_PICKUP_SPAWN = 11; // kind, x, y
export const EV_STATUS = 12; // fighter, kind (1 slow, 2 stun), ticks
export const EV_DEATH = 13; // fighter
export const EV_ZONE_SHRINK = 14; // radius

export const PART_MOVE = 0;
export const PART_DASH = 1;
export const PART_ATTACK = 2;
export const PART_TURN = 3;
export const PART_SHOUT = 4;

export const RJ_UNKNOWN_ATTACK = 1;
export const RJ_NOT_READY = 2;
export const RJ_BAD_TEXT = 3;
export const RJ_NOT_VISIBLE = 4;
export const RJ_BLOCKED = 5;
export const RJ_CONFLICTING_MOVES = 6;
export const RJ_SCHEMA = 7;

// Observation region, filled by observe(fighter).
export const O_OPP_VISIBLE = 0;
export const O_MOVES = 1; // 8 x (x, y), x = -1 when illegal
export const O_DASHES = 17; // 8 x (x, y, distance), distance 0 when illegal
export const O_DANGER_COUNT = 41;
export const O_DANGER = 42; // up to 49 x (x, y, source, inTicks); source 1 frostburst, 2 zone
export const O_DANGER_STRIDE = 4;
export const DANGER_REACH = 3;
export const DANGER_FROSTBURST = 1;
export const DANGER_ZONE = 2;
export const OBS_SIZE = 240;
