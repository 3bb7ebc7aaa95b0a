// Fork and observe (issue 35): rebuild a recorded match at any tick by re-simulating its recorded inputs, check
// every rebuilt line against the recording on the way, then either show the observation a fighter got at that
// tick or play on from there with other seats. A `replay` seat keeps feeding that fighter's recorded inputs, so
// forking with both seats `replay` must give back the recording byte for byte (test/sim/fork.test.ts).
import { Match, type TurnInput } from "../match.ts";
import {
  type ReplayFighter,
  type ReplayHeader,
  type ReplayLine,
  type ReplayTick,
  readReplay,
  type ServerInput,
} from "../replay.ts";
import { mismatch, toInput } from "../verify.ts";
import { ENGINE_VERSION } from "../versions.ts";
import type { Seat } from "./play.ts";

/** A recording ready to rebuild: its parsed lines and, for the byte comparisons, each line's text. */
export interface Recording {
  header: ReplayHeader;
  lines: ReplayLine[];
  texts: string[];
  /** The last tick the fighters were asked about (the last tick line), -1 when there is none. */
  lastTick: number;
}

/** A recording that cannot be rebuilt or a tick it does not hold: the message is for the user as it is. */
export class ForkError extends Error {}

export function readRecording(bytes: Uint8Array): Recording {
  let parsed: { text: string; lines: ReplayLine[] };
  try {
    parsed = readReplay(bytes);
  } catch (err) {
    throw new ForkError((err as Error).message);
  }
  const header = parsed.lines[0] as ReplayHeader;
  if (header.engine !== ENGINE_VERSION) {
    throw new ForkError(
      `replay was recorded with engine ${header.engine}; this simulator has engine ${ENGINE_VERSION}, and only the same engine can re-simulate it`,
    );
  }
  if (header.fighters?.length !== 2) throw new ForkError("header.fighters must list two fighters");
  let lastTick = -1;
  for (const l of parsed.lines) if (l.type === "tick") lastTick = Math.max(lastTick, l.tick);
  return {
    header,
    lines: parsed.lines,
    texts: parsed.text.split("\n").filter((l) => l.length > 0),
    lastTick,
  };
}

const recordedFighters = (h: ReplayHeader): [ReplayFighter, ReplayFighter] =>
  [0, 1].map((f) => ({
    name: h.fighters[f]!.name,
    display_name: h.fighters[f]!.display_name,
    version: h.fighters[f]!.version,
  })) as [ReplayFighter, ReplayFighter];

/** A match rebuilt up to a tick: `next` is the index of the first recorded line not yet replayed. */
export interface Position {
  match: Match;
  next: number;
}

/**
 * Re-simulates the recording's inputs (turns and server inputs) of every tick before `tick` and checks each
 * rebuilt line against the recorded one. `fighters` and `matchId` replace the recorded ones in the rebuilt
 * header (a fork with other seats): the header is then not compared, the tick lines still are.
 */
export function replayTo(
  rec: Recording,
  tick: number,
  o: { fighters?: [ReplayFighter, ReplayFighter]; matchId?: string } = {},
): Position {
  const h = rec.header;
  const match = new Match({
    matchId: o.matchId ?? h.match_id,
    seed: h.seed,
    map: h.map.name,
    fighters: o.fighters ?? recordedFighters(h),
    mode: h.mode,
    ladderId: h.ladder_id,
    deadlines: h.deadlines,
    rules: h.rules,
  });
  if (JSON.stringify(match.hello(0).map.rows) !== JSON.stringify(h.map.rows))
    throw new ForkError("header.map does not match the map in header.rules");
  let next = 1;
  try {
    for (; next < rec.lines.length; next++) {
      const line = rec.lines[next]!;
      if (line.type === "header") throw new Error(`line ${next + 1}: a second header`);
      if (line.type === "end" || line.tick >= tick) break;
      if (line.type === "tick") {
        if (match.over) throw new Error(`line ${next + 1}: tick ${line.tick} recorded after the match ended`);
        if (line.tick !== match.tick)
          throw new Error(`line ${next + 1}: recorded tick ${line.tick}, expected ${match.tick}`);
        if (!Array.isArray(line.turns) || line.turns.length !== 2)
          throw new Error(`line ${next + 1}: turns must hold two inputs`);
        match.play([toInput(line.turns[0]), toInput(line.turns[1])]);
      } else applyServerInput(match, line, [true, true], next);
    }
    const produced = match.replay.linesFrom(0);
    const sameHeader = o.fighters === undefined && o.matchId === undefined;
    for (let i = sameHeader ? 0 : 1; i < next; i++) {
      if (produced[i] !== rec.texts[i]) mismatch(i + 1, produced[i], rec.texts[i]);
    }
  } catch (err) {
    throw new ForkError(`the replay does not re-simulate: ${(err as Error).message}`);
  }
  if (match.over || match.tick !== tick) {
    const range =
      rec.lastTick < 0
        ? "the match ended before its first tick, so only tick 0 can be used"
        : `the fighters were asked about ticks 0 to ${rec.lastTick}`;
    throw new ForkError(`tick ${tick} is not in this replay: ${range}`);
  }
  return { match, next };
}

/**
 * A recorded server input. `replayed[f]` says whether fighter f keeps its recording: a forfeit or a
 * disqualification concerns only such fighters, a void or an abort only a match where both are.
 */
function applyServerInput(
  match: Match,
  line: ServerInput,
  replayed: readonly [boolean, boolean],
  index: number,
): void {
  if (line.type === "forfeit") {
    if (replayed[line.fighter]) match.forfeit([line.fighter]);
  } else if (line.type === "disqualify") {
    if (!Array.isArray(line.fighters) || !line.fighters.every((f) => f === 0 || f === 1))
      throw new Error(`line ${index + 1}: disqualify must list fighter ids 0 or 1`);
    match.disqualify(line.fighters.filter((f) => replayed[f]));
  } else if (line.type === "void") {
    if (replayed[0] && replayed[1]) match.forfeit([0, 1]);
  } else if (line.type === "abort") {
    if (replayed[0] && replayed[1]) match.abort(line.why);
  } else {
    throw new Error(
      `line ${index + 1}: unknown line type ${JSON.stringify((line as { type: unknown }).type)}`,
    );
  }
}

/** What sits in a fighter's place after the fork: its recorded inputs, or a seat that plays. */
export type ForkSeat = { kind: "replay" } | { kind: "live"; seat: Seat };

export interface ForkResult {
  match: Match;
  /** The first line (1-based) where the fork's replay differs from the recording, null when identical. */
  divergesAt: { line: number; tick: number | null } | null;
}

/**
 * Plays a rebuilt match on from its position. A replay seat plays its recorded turn for each tick while the
 * recording has one, then stands still (an empty turn: no failure counted) if the match outlasts it; the
 * recording's server inputs are applied to replay seats as recorded. Live seats get a hello at the fork tick
 * (as after a reconnect) and the simulator's rules for deadlines and lost seats (engine/sim/play.ts).
 */
export async function playFork(
  rec: Recording,
  pos: Position,
  seats: [ForkSeat, ForkSeat],
): Promise<ForkResult> {
  const { match } = pos;
  let next = pos.next;
  const replayed = [seats[0].kind === "replay", seats[1].kind === "replay"] as const;
  const notReady: number[] = [];
  await Promise.all(
    seats.map(async (s, f) => {
      if (s.kind === "replay") return;
      let ok = false;
      try {
        ok = (await s.seat.start(match.hello(f))) === true;
      } catch {
        ok = false;
      }
      if (!ok) notReady.push(f);
    }),
  );
  if (notReady.length > 0) match.forfeit(notReady.sort());
  const lostMs = [0, 0];
  while (!match.over) {
    // The recording's lines up to this tick: its server inputs (applied where they concern a replay seat),
    // then the tick line with the recorded turns.
    let recorded: ReplayTick | null = null;
    for (; next < rec.lines.length; next++) {
      const line = rec.lines[next]!;
      if (line.type === "header" || line.type === "end" || line.tick > match.tick) break;
      if (line.type === "tick") {
        if (line.tick === match.tick) {
          recorded = line;
          next++;
          break;
        }
        continue;
      }
      if (line.tick === match.tick) applyServerInput(match, line, replayed, next);
      if (match.over) break;
    }
    if (match.over) break;
    const deadlines = [match.deadlineMs(0), match.deadlineMs(1)];
    const inputs = await Promise.all(
      seats.map(async (s, f): Promise<TurnInput> => {
        if (s.kind === "replay") {
          return recorded ? toInput(recorded.turns[f]) : { raw: { type: "turn", tick: match.tick }, ms: 0 };
        }
        try {
          return await s.seat.turn(match.observation(f), deadlines[f]!);
        } catch {
          return { idle: "disconnected", ms: 0 };
        }
      }),
    );
    match.play(inputs as [TurnInput, TurnInput]);
    const expired: number[] = [];
    inputs.forEach((inp, f) => {
      if (replayed[f]) return; // a recorded disconnection ends as the recording says, by its server inputs
      lostMs[f] = "idle" in inp && inp.idle === "disconnected" ? lostMs[f]! + deadlines[f]! : 0;
      if (lostMs[f]! >= match.deadlines.reconnect_grace_ms) expired.push(f);
    });
    match.disqualify(expired);
  }
  const stats = match.stats();
  const r = match.result!;
  await Promise.all(
    seats.map((s) =>
      s.kind === "live" ? s.seat.finish?.({ winner: r.winner, reason: r.reason, stats }) : undefined,
    ),
  );
  return { match, divergesAt: firstDivergence(rec, match) };
}

/** Where the fork's lines part from the recording's; a header rewritten for other seats does not count. */
function firstDivergence(rec: Recording, match: Match): ForkResult["divergesAt"] {
  const produced = match.replay.linesFrom(0);
  const headerReplaced = match.id !== rec.header.match_id;
  for (let i = headerReplaced ? 1 : 0; i < Math.max(produced.length, rec.texts.length); i++) {
    if (produced[i] === rec.texts[i]) continue;
    const line = rec.lines[i] ?? (produced[i] ? (JSON.parse(produced[i]!) as ReplayLine) : undefined);
    const tick = line && "tick" in line ? line.tick : null;
    return { line: i + 1, tick };
  }
  return null;
}
