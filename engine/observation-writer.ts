// Writes a fighter's observation as UTF-8 JSON bytes straight from the engine's state and observation regions,
// without building the observation object or its string: the pool workers' per-tick path (issue 13). The bytes
// are exactly `TextEncoder.encode(JSON.stringify(match.observation(f)))`, keys in the same order; a property
// test over random engine matches holds the two together (test/unit/observation-writer.test.ts), so a change
// to the observation's shape in `Match.observation` must be made here too.
import * as L from "./assembly/layout.ts";
import { eventVisibleTo } from "./events.ts";
import type { Engine, EngineRules } from "./host.ts";
import { ascii, encodeJson, JsonBytes, OUT_OF_ROOM } from "./json-bytes.ts";
import type { GameEventT } from "./protocol.ts";
import type { ReplayFighter } from "./replay.ts";
import { DIRECTIONS, PICKUP_KINDS } from "./rules.ts";

/** Where and when a fighter last saw the opponent (kept by Match, updated in place each tick); `tick` is -1
 * while it never has. The observation's `last_seen` is `{tile: [x, y], tick}`, or null. */
export interface LastSeen {
  x: number;
  y: number;
  tick: number;
}

const K_TICK_MS = ascii(',"tick_ms":');
const K_BUDGET = ascii(',"budget_ms_left":');
const K_X = ascii(',"x":');
const K_Y = ascii(',"y":');
const K_HP = ascii(',"hp":');
const K_SHIELD = ascii(',"shield":');
const K_ALIVE = ascii(',"alive":');
const K_STUNNED = ascii(',"stunned":');
const K_SLOWED = ascii(',"slowed":');
const K_COOLDOWNS = ascii(',"cooldowns":{"ranged":');
const K_FROSTBURST = ascii(',"frostburst":');
const K_REPULSOR = ascii(',"repulsor":');
const K_DASH = ascii(',"dash":');
const K_SHOUT = ascii(',"shout":');
const K_LAST_SEEN = ascii(',"last_seen":');
const LAST_SEEN_TILE = ascii('{"tile":[');
const LAST_SEEN_TICK = ascii('],"tick":');
const MOVES = ascii('}],"moves":[');
const DASHES = ascii('],"dashes":[');
const DISTANCE = ascii('],"distance":');
const AREAS = ascii('],"areas":[');
const AREA_OWNER = ascii('{"kind":"frostburst","owner":');
const AREA_CENTER = ascii(',"center":[');
const AREA_RADIUS = ascii('],"radius":');
const AREA_EXPLODES = ascii(',"explodes_in":');
const DANGER = ascii('],"danger":[');
const DANGER_TILE = ascii('{"tile":[');
const DANGER_ZONE = ascii('],"source":"zone","in":');
const DANGER_FROSTBURST = ascii('],"source":"frostburst","in":');
const PICKUPS = ascii('],"pickups":[');
const TILE_END = ascii("]}");
const ZONE_CENTER = ascii('],"zone":{"center":[');
const K_RADIUS = ascii('],"radius":');
const K_NEXT_RADIUS = ascii(',"next_radius":');
const K_SHRINKS_IN = ascii(',"shrinks_in":');
const EVENTS = ascii(',"events":[');
const END = ascii("]}");
/** `{"dir":"N","tile":[` and so on, by direction index: moves and dashes start the same way. */
const DIR_TILE = DIRECTIONS.map((d) => ascii(`{"dir":"${d}","tile":[`));
/** `{"kind":"heal","tile":[` and so on, by the engine's pickup kind; an unknown kind has no `kind` key, as
 * JSON.stringify drops the undefined that Match.observation would hold for it. */
const PICKUP_TILE = PICKUP_KINDS.map((k) => ascii(`{"kind":"${k}","tile":[`));
const PICKUP_TILE_NO_KIND = ascii('{"tile":[');

const EMPTY = new Uint8Array(0);
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;

/**
 * One match's writer. What does not change during a match (the match id, the opponent's name, the zone's
 * centre and damage) is encoded once here; the rest is read from the engine at each write.
 */
export class ObservationWriter {
  private readonly w = new JsonBytes();
  /** `{"type":"observation","match_id":"…","tick":` */
  private readonly head: Uint8Array;
  /** Per fighter: `,"self":{"id":f` */
  private readonly selfHead: Uint8Array[];
  /** Per fighter: `},"opponents":[{"id":o,"name":"…","visible":` */
  private readonly opponentHead: Uint8Array[];
  /** The zone's centre, `x,y`, and its damage with the zone's closing brace, `,"damage":d}`. */
  private readonly zoneCenter: Uint8Array;
  private readonly zoneDamage: Uint8Array;

  constructor(matchId: string, fighters: readonly ReplayFighter[], rules: EngineRules) {
    this.head = encodeJson((w) => {
      w.bytes(ascii('{"type":"observation","match_id":'));
      w.string(matchId);
      w.bytes(ascii(',"tick":'));
    });
    this.selfHead = [0, 1].map((f) => ascii(`,"self":{"id":${f}`));
    this.opponentHead = [0, 1].map((f) =>
      encodeJson((w) => {
        w.bytes(ascii(`},"opponents":[{"id":${1 - f},"name":`));
        w.string(fighters[1 - f]!.name);
        w.bytes(ascii(',"visible":'));
      }),
    );
    const z = rules.zone;
    this.zoneCenter = encodeJson((w) => {
      w.number(z.center[0]);
      w.byte(COMMA);
      w.number(z.center[1]);
    });
    this.zoneDamage = encodeJson((w) => {
      w.bytes(ascii(',"damage":'));
      w.number(z.damage);
      w.byte(CLOSE_BRACE);
    });
  }

  /**
   * Writes fighter f's observation into `out` from `at`; returns the end offset, or -1 when it does not fit
   * (the bytes from `at` on are then unspecified: grow the buffer and write again). `tickMs`, `budgetMsLeft`,
   * `lastSeen` and `events` are the values Match.observation puts in the object, passed in by Match.
   */
  write(
    engine: Engine,
    f: number,
    tickMs: number,
    budgetMsLeft: number,
    lastSeen: LastSeen,
    events: readonly GameEventT[],
    out: Uint8Array,
    at: number,
  ): number {
    const w = this.w;
    w.reset(out, at);
    try {
      this.body(w, engine, f, tickMs, budgetMsLeft, lastSeen, events);
      return w.pos;
    } catch (e) {
      if (e === OUT_OF_ROOM) return -1;
      throw e;
    } finally {
      // Drop the caller's buffer, so a worker's writer does not keep a batch buffer alive after it is sent.
      w.reset(EMPTY, 0);
    }
  }

  private body(
    w: JsonBytes,
    engine: Engine,
    f: number,
    tickMs: number,
    budgetMsLeft: number,
    lastSeen: LastSeen,
    events: readonly GameEventT[],
  ): void {
    // observe() runs the engine, so the state view is taken after it (see Engine.i32).
    const region = engine.observe(f);
    const s = engine.state();
    const tick = s[L.S_TICK]!;
    const sees = region[L.O_OPP_VISIBLE] !== 0;

    w.keyInt(this.head, tick);
    w.bytes(K_TICK_MS);
    w.number(tickMs);
    w.bytes(K_BUDGET);
    w.number(budgetMsLeft);

    const me = L.S_FIGHTERS + f * L.F_STRIDE;
    w.bytes(this.selfHead[f]!);
    w.keyInt(K_X, s[me + L.F_X]!);
    w.keyInt(K_Y, s[me + L.F_Y]!);
    w.keyInt(K_HP, s[me + L.F_HP]!);
    w.keyInt(K_SHIELD, s[me + L.F_SHIELD]!);
    w.keyBool(K_ALIVE, s[me + L.F_ALIVE] !== 0);
    w.keyInt(K_STUNNED, s[me + L.F_STUN]!);
    w.keyInt(K_SLOWED, s[me + L.F_SLOW]!);
    w.keyInt(K_COOLDOWNS, s[me + L.F_CD + L.ATTACK_RANGED]!);
    w.keyInt(K_FROSTBURST, s[me + L.F_CD + L.ATTACK_FROSTBURST]!);
    w.keyInt(K_REPULSOR, s[me + L.F_CD + L.ATTACK_REPULSOR]!);
    w.keyInt(K_DASH, s[me + L.F_CD_DASH]!);
    w.keyInt(K_SHOUT, s[me + L.F_CD_SHOUT]!);
    w.byte(CLOSE_BRACE);

    // The opponent: position and status only while in sight.
    const them = L.S_FIGHTERS + (1 - f) * L.F_STRIDE;
    w.keyBool(this.opponentHead[f]!, sees);
    w.keyIntOrNull(K_X, sees, s[them + L.F_X]!);
    w.keyIntOrNull(K_Y, sees, s[them + L.F_Y]!);
    w.keyInt(K_HP, s[them + L.F_HP]!);
    w.keyInt(K_SHIELD, s[them + L.F_SHIELD]!);
    w.keyBool(K_ALIVE, s[them + L.F_ALIVE] !== 0);
    w.keyIntOrNull(K_STUNNED, sees, s[them + L.F_STUN]!);
    w.keyIntOrNull(K_SLOWED, sees, s[them + L.F_SLOW]!);
    w.bytes(K_LAST_SEEN);
    if (lastSeen.tick >= 0) {
      w.bytes(LAST_SEEN_TILE);
      w.number(lastSeen.x);
      w.byte(COMMA);
      w.number(lastSeen.y);
      w.bytes(LAST_SEEN_TICK);
      w.number(lastSeen.tick);
      w.byte(CLOSE_BRACE);
    } else w.null();

    w.bytes(MOVES);
    let first = true;
    for (let d = 0; d < L.DIR_COUNT; d++) {
      const x = region[L.O_MOVES + d * 2]!;
      if (x < 0) continue;
      if (!first) w.byte(COMMA);
      first = false;
      w.bytes(DIR_TILE[d]!);
      w.intPair(x, region[L.O_MOVES + d * 2 + 1]!);
      w.bytes(TILE_END);
    }

    w.bytes(DASHES);
    first = true;
    for (let d = 0; d < L.DIR_COUNT; d++) {
      const o = L.O_DASHES + d * 3;
      const n = region[o + 2]!;
      if (n <= 0) continue;
      if (!first) w.byte(COMMA);
      first = false;
      w.bytes(DIR_TILE[d]!);
      w.intPair(region[o]!, region[o + 1]!);
      w.keyInt(DISTANCE, n);
      w.byte(CLOSE_BRACE);
    }

    w.bytes(AREAS);
    const areas = s[L.S_AREA_COUNT]!;
    for (let i = 0; i < areas; i++) {
      const o = L.S_AREAS + i * L.A_STRIDE;
      if (i > 0) w.byte(COMMA);
      w.keyInt(AREA_OWNER, s[o]!);
      w.bytes(AREA_CENTER);
      w.intPair(s[o + 1]!, s[o + 2]!);
      w.keyInt(AREA_RADIUS, s[o + 3]!);
      w.keyInt(AREA_EXPLODES, Math.max(0, s[o + 4]! - tick));
      w.byte(CLOSE_BRACE);
    }

    w.bytes(DANGER);
    const dangers = region[L.O_DANGER_COUNT]!;
    for (let i = 0; i < dangers; i++) {
      const b = L.O_DANGER + i * L.O_DANGER_STRIDE;
      if (i > 0) w.byte(COMMA);
      w.bytes(DANGER_TILE);
      w.intPair(region[b]!, region[b + 1]!);
      w.keyInt(region[b + 2] === L.DANGER_ZONE ? DANGER_ZONE : DANGER_FROSTBURST, region[b + 3]!);
      w.byte(CLOSE_BRACE);
    }

    w.bytes(PICKUPS);
    const pickups = s[L.S_PICKUP_COUNT]!;
    for (let i = 0; i < pickups; i++) {
      const o = L.S_PICKUPS + i * L.PK_STRIDE;
      if (i > 0) w.byte(COMMA);
      w.bytes(PICKUP_TILE[s[o]!] ?? PICKUP_TILE_NO_KIND);
      w.intPair(s[o + 1]!, s[o + 2]!);
      w.bytes(TILE_END);
    }

    w.bytes(ZONE_CENTER);
    w.bytes(this.zoneCenter);
    const radius = s[L.S_ZONE_RADIUS]!;
    w.keyInt(K_RADIUS, radius);
    const next = s[L.S_ZONE_NEXT]!;
    w.keyIntOrNull(K_NEXT_RADIUS, next >= 0, radius - 1);
    w.keyIntOrNull(K_SHRINKS_IN, next >= 0, Math.max(0, next - tick));
    w.bytes(this.zoneDamage);

    // Events are already objects (the replay and the stats need them); they are written as they are, in the
    // generic form, so a field added to an event needs no change here.
    w.bytes(EVENTS);
    first = true;
    for (const ev of events) {
      if (!eventVisibleTo(ev, f, sees)) continue;
      if (!first) w.byte(COMMA);
      first = false;
      w.value(ev);
    }
    w.bytes(END);
  }
}
