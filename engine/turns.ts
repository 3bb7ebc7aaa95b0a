// Validates one bot message that answers an observation, part by part, before the engine sees it.
// A broken part is refused with the SPEC's reason and never cancels the other parts; only a message that is
// not a turn at all, or answers another tick, is refused as a whole (part `turn`).
import { attackIndex, directionIndex, type EngineTurn, IDLE_TURN } from "./host.ts";
import {
  AttackNameSchema,
  BoardCoordinate,
  DirectionSchema,
  type RejectReason,
  type TurnPart,
} from "./protocol.ts";
import { cleanShout } from "./shout.ts";

export interface Refusal {
  part: TurnPart;
  reason: RejectReason;
  detail: string;
}

export interface ValidatedTurn {
  turn: EngineTurn;
  /** Cleaned shout text when the shout part passed validation (the engine still checks its cooldown). */
  shout: string | null;
  refusals: Refusal[];
  /** True when the whole message was refused: it counts as a failed tick. */
  refused: boolean;
  /** Move, dash and attack parts the message carried (a shout is not counted): when each is refused, the turn did nothing it asked for. */
  sent: number;
}

const refuseAll = (reason: RejectReason, detail: string): ValidatedTurn => ({
  turn: IDLE_TURN,
  shout: null,
  refusals: [{ part: "turn", reason, detail }],
  refused: true,
  sent: 0,
});

/** `raw` is the parsed JSON value a bot sent (or a string that did not parse); `tick` the tick it must answer. */
export function validateTurn(raw: unknown, tick: number): ValidatedTurn {
  if (typeof raw === "string") return refuseAll("schema", "message is not valid JSON");
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    return refuseAll("schema", "message must be a JSON object");
  const msg = raw as Record<string, unknown>;
  if (msg.type !== "turn") {
    return refuseAll("schema", `expected a turn, got type ${JSON.stringify(msg.type ?? null)}`);
  }
  if (!Number.isInteger(msg.tick)) return refuseAll("schema", "turn.tick must be an integer");
  if (msg.tick !== tick) return refuseAll("schema", `turn.tick is ${msg.tick}, this tick is ${tick}`);

  const refusals: Refusal[] = [];
  const turn: EngineTurn = { move: -1, dash: -1, attack: -1, tx: 0, ty: 0, shout: false };
  const move = msg.move === undefined ? undefined : DirectionSchema.safeParse(msg.move);
  const dash = msg.dash === undefined ? undefined : DirectionSchema.safeParse(msg.dash);
  if (move && dash) {
    refusals.push({ part: "move", reason: "conflicting_moves", detail: "send move or dash, not both" });
    refusals.push({ part: "dash", reason: "conflicting_moves", detail: "send move or dash, not both" });
  } else if (move) {
    if (move.success) turn.move = directionIndex(move.data);
    else
      refusals.push({
        part: "move",
        reason: "schema",
        detail: `unknown direction ${JSON.stringify(msg.move)}`,
      });
  } else if (dash) {
    if (dash.success) turn.dash = directionIndex(dash.data);
    else
      refusals.push({
        part: "dash",
        reason: "schema",
        detail: `unknown direction ${JSON.stringify(msg.dash)}`,
      });
  }

  if (msg.attack !== undefined) validateAttack(msg.attack, turn, refusals);

  let shout: string | null = null;
  if (msg.shout !== undefined) {
    const cleaned = cleanShout(msg.shout);
    if (cleaned.ok) {
      shout = cleaned.text;
      turn.shout = true;
    } else refusals.push({ part: "shout", reason: "bad_text", detail: cleaned.detail });
  }
  const sent =
    (msg.move !== undefined ? 1 : 0) + (msg.dash !== undefined ? 1 : 0) + (msg.attack !== undefined ? 1 : 0);
  return { turn, shout, refusals, refused: false, sent };
}

function validateAttack(attack: unknown, turn: EngineTurn, refusals: Refusal[]): void {
  if (attack === null || typeof attack !== "object" || Array.isArray(attack)) {
    refusals.push({ part: "attack", reason: "schema", detail: "attack must be an object {name, target}" });
    return;
  }
  const { name, target } = attack as { name?: unknown; target?: unknown };
  const parsedName = AttackNameSchema.safeParse(name);
  if (!parsedName.success) {
    refusals.push({
      part: "attack",
      reason: "unknown_attack",
      detail: `no attack named ${JSON.stringify(name ?? null)}`,
    });
    return;
  }
  turn.attack = attackIndex(parsedName.data);
  if (parsedName.data === "repulsor") return; // the repulsor ignores target
  const ok =
    Array.isArray(target) &&
    target.length === 2 &&
    BoardCoordinate.safeParse(target[0]).success &&
    BoardCoordinate.safeParse(target[1]).success;
  if (!ok) {
    turn.attack = -1;
    refusals.push({
      part: "attack",
      reason: "schema",
      detail: "attack.target must be [x, y] with integers 0-20",
    });
    return;
  }
  turn.tx = (target as number[])[0]!;
  turn.ty = (target as number[])[1]!;
}
