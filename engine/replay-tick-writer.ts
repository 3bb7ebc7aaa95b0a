// Writes a replay's tick line as UTF-8 JSON straight from the engine's state region, without building the line
// object, the state snapshot or the line's string: the pool workers' per-tick path (issue 13). The bytes are
// exactly those of `JSON.stringify({type: "tick", tick, turns, state, events[, disqualified]})` with the state
// `{fighters: [{x, y, hp, shield, stunned, slowed}], areas: [{owner, center, radius, explodes_at}],
// pickups: [{kind, tile}], zone}` (docs/replay-format.md); a property test over random engine matches holds the
// two together (test/unit/replay-tick-writer.test.ts), so a change to the tick line's shape is made here.
import * as L from "./assembly/layout.ts";
import { ascii, type JsonBytes } from "./json-bytes.ts";
import type { GameEventT, IdleReason } from "./protocol.ts";
import { PICKUP_KINDS } from "./rules.ts";

/** What the replay records of one fighter's turn: the message as sent, or why there was none. */
export type ReplayInput = { raw: unknown } | { idle: IdleReason };

const HEAD = ascii('{"type":"tick","tick":');
const TURNS = ascii(',"turns":[');
const RAW = ascii('{"raw":');
const IDLE = ascii('{"idle":');
const NO_TURN = ascii("{}");
const FIGHTER_X = ascii('{"x":');
const K_Y = ascii(',"y":');
const K_HP = ascii(',"hp":');
const K_SHIELD = ascii(',"shield":');
const K_STUNNED = ascii(',"stunned":');
const K_SLOWED = ascii(',"slowed":');
const STATE = ascii('],"state":{"fighters":[');
const AREAS = ascii('],"areas":[');
const AREA_OWNER = ascii('{"owner":');
const AREA_CENTER = ascii(',"center":[');
const AREA_RADIUS = ascii('],"radius":');
const AREA_EXPLODES = ascii(',"explodes_at":');
const PICKUPS = ascii('],"pickups":[');
const TILE_END = ascii("]}");
const ZONE = ascii('],"zone":');
const EVENTS = ascii('},"events":[');
const DISQUALIFIED = ascii('],"disqualified":[');
const END = ascii("]}");
/** `{"kind":"heal","tile":[` and so on, by the engine's pickup kind; an unknown kind has no `kind` key, as
 * JSON.stringify drops the undefined the snapshot held for it. */
const PICKUP_TILE = PICKUP_KINDS.map((k) => ascii(`{"kind":"${k}","tile":[`));
const PICKUP_TILE_NO_KIND = ascii('{"tile":[');

const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;

/**
 * Writes the tick line of `tick` into `w`: `turns` the inputs as received, `state` the engine's state region
 * after the tick, `events` every event of the tick, `disqualified` a bit per fighter disqualified by it. Throws
 * OUT_OF_ROOM as JsonBytes does; the caller grows its buffer and writes the line again.
 */
export function writeTickLine(
  w: JsonBytes,
  tick: number,
  turns: readonly ReplayInput[],
  state: Int32Array,
  events: readonly GameEventT[],
  disqualified: number,
): void {
  const s = state;
  w.keyInt(HEAD, tick);
  w.bytes(TURNS);
  for (let f = 0; f < turns.length; f++) {
    if (f > 0) w.byte(COMMA);
    writeTurn(w, turns[f]!);
  }

  w.bytes(STATE);
  for (let f = 0; f < L.FIGHTERS; f++) {
    const o = L.S_FIGHTERS + f * L.F_STRIDE;
    if (f > 0) w.byte(COMMA);
    w.keyInt(FIGHTER_X, s[o + L.F_X]!);
    w.keyInt(K_Y, s[o + L.F_Y]!);
    w.keyInt(K_HP, s[o + L.F_HP]!);
    w.keyInt(K_SHIELD, s[o + L.F_SHIELD]!);
    w.keyInt(K_STUNNED, s[o + L.F_STUN]!);
    w.keyInt(K_SLOWED, s[o + L.F_SLOW]!);
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
    w.keyInt(AREA_EXPLODES, s[o + 4]!);
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

  w.keyInt(ZONE, s[L.S_ZONE_RADIUS]!);

  // Events are objects the caller needs anyway (stats, observations); written generically from them, so a
  // field added to an event needs no change here.
  w.bytes(EVENTS);
  for (let i = 0; i < events.length; i++) {
    if (i > 0) w.byte(COMMA);
    w.value(events[i]);
  }
  if (disqualified !== 0) {
    w.bytes(DISQUALIFIED);
    if (disqualified === 3) w.intPair(0, 1);
    else w.int(disqualified === 1 ? 0 : 1);
  }
  w.bytes(END);
}

/** `{"raw":…}` or `{"idle":…}`, as JSON.stringify writes `{raw: input.raw}` or `{idle: input.idle}`. */
function writeTurn(w: JsonBytes, input: ReplayInput): void {
  if ("idle" in input) {
    if (typeof input.idle === "string") {
      w.bytes(IDLE);
      w.string(input.idle);
      w.byte(CLOSE_BRACE);
    } else w.utf8(JSON.stringify({ idle: input.idle }));
    return;
  }
  // A bot's message is any JSON value it sent (or a house bot's object): JSON.stringify writes it, as it always
  // has, so its numbers, key order and escapes stay what they were. Undefined (a house bot that returned
  // nothing) has no JSON form: the key is dropped, as in an object.
  const text: string | undefined = JSON.stringify(input.raw);
  if (text === undefined) {
    w.bytes(NO_TURN);
    return;
  }
  w.bytes(RAW);
  w.utf8(text);
  w.byte(CLOSE_BRACE);
}
