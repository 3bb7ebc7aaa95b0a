// Replay verification by re-simulation: rebuild the match from the header (its embedded rules and map), feed
// it the recorded inputs, and require every produced line to equal the recorded one.
import { Match } from "./match.ts";
import { type ReplayHeader, readReplay } from "./replay.ts";
import { ENGINE_VERSION } from "./versions.ts";

export type VerifyResult =
  | { ok: true; matchId: string; ticks: number; winner: number | null; reason: string }
  | { ok: false; error: string };

export function verifyReplay(bytes: Uint8Array): VerifyResult {
  try {
    return verify(bytes);
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function verify(bytes: Uint8Array): VerifyResult {
  const { lines } = readReplay(bytes);
  const header = lines[0] as ReplayHeader;
  if (header.engine !== ENGINE_VERSION) {
    return {
      ok: false,
      error: `replay was recorded with engine ${header.engine}; this simulator has engine ${ENGINE_VERSION}, and only the same engine can re-simulate it`,
    };
  }
  if (header.fighters?.length !== 2) throw new Error("header.fighters must list two fighters");
  const match = new Match({
    matchId: header.match_id,
    seed: header.seed,
    map: header.map.name,
    fighters: [header.fighters[0]!, header.fighters[1]!],
    mode: header.mode,
    ladderId: header.ladder_id,
    deadlines: header.deadlines,
    rules: header.rules,
  });
  const mapRows = JSON.stringify(match.hello(0).map.rows);
  if (mapRows !== JSON.stringify(header.map.rows))
    throw new Error("header.map does not match the map in header.rules");
  const producedHeader = match.replay.linesFrom(0)[0]!;
  if (producedHeader !== JSON.stringify(header)) mismatch(1, producedHeader, JSON.stringify(header));
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.type === "tick") {
      if (match.over) throw new Error(`line ${i + 1}: tick ${line.tick} recorded after the match ended`);
      if (line.tick !== match.tick)
        throw new Error(`line ${i + 1}: recorded tick ${line.tick}, expected ${match.tick}`);
      if (!Array.isArray(line.turns) || line.turns.length !== 2)
        throw new Error(`line ${i + 1}: turns must hold two inputs`);
      match.play([toInput(line.turns[0]), toInput(line.turns[1])]);
    } else if (line.type === "forfeit") match.forfeit([line.fighter]);
    else if (line.type === "disqualify") {
      if (!Array.isArray(line.fighters) || !line.fighters.every((f) => f === 0 || f === 1))
        throw new Error(`line ${i + 1}: disqualify must list fighter ids 0 or 1`);
      match.disqualify(line.fighters);
    } else if (line.type === "void") match.forfeit([0, 1]);
    else if (line.type === "abort") match.abort(line.why);
    else if (line.type !== "end")
      throw new Error(`line ${i + 1}: unknown line type ${JSON.stringify((line as { type: unknown }).type)}`);
  }
  const recorded = lines.map((l) => JSON.stringify(l));
  const produced = match.replay.linesFrom(0);
  for (let i = 0; i < Math.max(recorded.length, produced.length); i++) {
    if (recorded[i] !== produced[i]) mismatch(i + 1, produced[i], recorded[i]);
  }
  const r = match.result;
  if (!r) throw new Error(`replay ends at tick ${match.tick} without an end line`);
  return { ok: true, matchId: header.match_id, ticks: r.finalTick, winner: r.winner, reason: r.reason };
}

export function toInput(t: unknown) {
  if (t && typeof t === "object" && "idle" in t) {
    const reason = (t as { idle: unknown }).idle;
    if (reason !== "timeout" && reason !== "disconnected")
      throw new Error(`unknown idle reason ${JSON.stringify(reason)}`);
    return { idle: reason, ms: 0 } as const;
  }
  if (t && typeof t === "object" && "raw" in t) return { raw: (t as { raw: unknown }).raw, ms: 0 };
  throw new Error("a recorded turn must be {raw} or {idle}");
}

/** Names the first field where the re-simulation and the record differ. */
export function mismatch(lineNo: number, produced: string | undefined, recorded: string | undefined): never {
  if (produced === undefined)
    throw new Error(`line ${lineNo}: recorded line has no counterpart in the re-simulation`);
  if (recorded === undefined)
    throw new Error(`line ${lineNo}: re-simulation produced a line the replay lacks`);
  const path = firstDifference(JSON.parse(produced), JSON.parse(recorded), "");
  const tick = (JSON.parse(recorded) as { tick?: number }).tick;
  const where = tick === undefined ? `line ${lineNo}` : `line ${lineNo} (tick ${tick})`;
  throw new Error(
    `${where}: ${path.path || "line"} differs: replay says ${path.recorded}, re-simulation gives ${path.produced}`,
  );
}

function firstDifference(
  a: unknown,
  b: unknown,
  path: string,
): { path: string; produced: string; recorded: string } {
  if (a && b && typeof a === "object" && typeof b === "object") {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const av = (a as Record<string, unknown>)[k];
      const bv = (b as Record<string, unknown>)[k];
      if (JSON.stringify(av) !== JSON.stringify(bv))
        return firstDifference(av, bv, path ? `${path}.${k}` : k);
    }
  }
  return { path, produced: JSON.stringify(a), recorded: JSON.stringify(b) };
}
