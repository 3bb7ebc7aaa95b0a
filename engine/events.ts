// Decodes the engine's fixed-size event records into the protocol's event objects, and decides which
// events each fighter may see (fog of war: the opponent's whereabouts only while in sight).
import * as L from "./assembly/layout.ts";
import { attackName, type RawEvents } from "./host.ts";
import type { GameEventT, RejectReason, TurnPart } from "./protocol.ts";
import { PICKUP_KINDS } from "./rules.ts";

const PARTS: TurnPart[] = ["move", "dash", "attack", "turn", "shout"];
const REASONS: Record<number, RejectReason> = {
  [L.RJ_UNKNOWN_ATTACK]: "unknown_attack",
  [L.RJ_NOT_READY]: "not_ready",
  [L.RJ_BAD_TEXT]: "bad_text",
  [L.RJ_NOT_VISIBLE]: "not_visible",
  [L.RJ_BLOCKED]: "blocked",
  [L.RJ_CONFLICTING_MOVES]: "conflicting_moves",
  [L.RJ_SCHEMA]: "schema",
};

function source(code: number): "ranged" | "frostburst" | "repulsor" | "wall_slam" | "collision" {
  if (code === L.SRC_WALL_SLAM) return "wall_slam";
  if (code === L.SRC_COLLISION) return "collision";
  return attackName(code);
}

/**
 * Turns one tick's raw events, the first `count` records of `raw`, into protocol events appended to `out`
 * (returned). `shouts` holds the cleaned text per fighter, since the engine only decides whether a shout is
 * allowed. `tick` is the tick that was resolved.
 */
export function decodeEvents(
  raw: RawEvents,
  count: number,
  tick: number,
  shouts: readonly (string | null)[],
  out: GameEventT[] = [],
): GameEventT[] {
  const end = count * L.EV_STRIDE;
  for (let o = 0; o < end; o += L.EV_STRIDE) {
    const kind = raw[o]!;
    const a = raw[o + 1]!;
    const b = raw[o + 2]!;
    const c = raw[o + 3]!;
    const d = raw[o + 4]!;
    const f = raw[o + 5]!;
    const g = raw[o + 6]!;
    const h = raw[o + 7]!;
    switch (kind) {
      case L.EV_MOVE:
        out.push({ type: "move", by: a, from: [b, c], to: [d, f], dash: g !== 0, blocked: h !== 0 });
        break;
      case L.EV_ATTACK:
        out.push({
          type: "attack",
          by: a,
          name: attackName(b),
          from: [f, g],
          target: [c, d],
          ricochet: h !== 0,
        });
        break;
      case L.EV_HIT: {
        const hit: GameEventT = { type: "hit", by: a, target: b, source: source(c), damage: d, absorbed: g };
        if (c === L.ATTACK_RANGED) hit.ricochet = f !== 0;
        out.push(hit);
        break;
      }
      case L.EV_REJECTED:
        out.push({ type: "rejected", by: a, part: PARTS[b]!, reason: REASONS[c]! });
        break;
      case L.EV_SHOUT:
        out.push({ type: "shout", by: a, text: shouts[a] ?? "" });
        break;
      case L.EV_AREA_SPAWN:
        out.push({ type: "area_spawn", by: a, center: [b, c], radius: d, explodes_in: f - tick - 1 });
        break;
      case L.EV_AREA_EXPLODE:
        out.push({ type: "area_explode", by: a, center: [b, c], radius: d });
        break;
      case L.EV_ZONE_DAMAGE:
        out.push({ type: "zone_damage", target: a, damage: b });
        break;
      case L.EV_ZONE_SHRINK:
        out.push({ type: "zone_shrink", radius: a });
        break;
      case L.EV_REPULSE:
        out.push({ type: "repulse", by: a, target: b, from: [c, d], to: [f, g], wall_slam: h !== 0 });
        break;
      case L.EV_PICKUP:
        out.push({ type: "pickup", by: a, kind: PICKUP_KINDS[b]!, tile: [c, d], amount: f });
        break;
      case L.EV_PICKUP_SPAWN:
        out.push({ type: "pickup_spawn", kind: PICKUP_KINDS[a]!, tile: [b, c] });
        break;
      case L.EV_STATUS:
        out.push({ type: "status", target: a, effect: b === 2 ? "stun" : "slow", ticks: c });
        break;
      case L.EV_DEATH:
        out.push({ type: "death", target: a });
        break;
      default:
        throw new Error(`unknown engine event kind ${kind}`);
    }
  }
  return out;
}

/**
 * Whether fighter `viewer` sees event `e`. Things that happen to the viewer, public happenings (shouts, areas,
 * pickups appearing, the zone, deaths) are always seen; the opponent's own actions only while in sight.
 */
export function eventVisibleTo(e: GameEventT, viewer: number, opponentVisible: boolean): boolean {
  switch (e.type) {
    case "rejected":
      return e.by === viewer;
    case "shout":
    case "area_spawn":
    case "area_explode":
    case "pickup_spawn":
    case "zone_shrink":
    case "death":
      return true;
    case "hit":
      return e.by === viewer || e.target === viewer || opponentVisible;
    case "repulse":
      return e.by === viewer || e.target === viewer || opponentVisible;
    case "zone_damage":
    case "status":
      return e.target === viewer || opponentVisible;
    default:
      return e.by === viewer || opponentVisible;
  }
}
