// The replay format: gzipped JSON Lines, self-contained (rules and map embedded) and free of wall-clock data,
// so the same seed and turns always give the same bytes. Line 1 is the header, then one line per resolved
// tick (the inputs as received, the state after the tick, every event), server-side inputs (forfeit,
// disqualify, void, abort) where they happened, and a final `end` line. docs/replay-format.md describes each field.
import { gunzipSync, gzipSync } from "node:zlib";
import type { EngineRules } from "./host.ts";
import type { DeadlinesT, GameEventT, IdleReason } from "./protocol.ts";
import type { MapInfo } from "./rules.ts";
import { ENGINE_VERSION, PROTOCOL_VERSION, RELEASE, rulesHashOf } from "./versions.ts";

export const REPLAY_FORMAT = "arena-replay";
export const REPLAY_FORMAT_VERSION = 1;

export interface ReplayFighter {
  name: string;
  display_name: string;
  version: string;
}

export type ReplayInput = { raw: unknown } | { idle: IdleReason };

export interface ReplayHeader {
  type: "header";
  format: typeof REPLAY_FORMAT;
  format_version: number;
  match_id: string;
  release: string;
  engine: string;
  protocol: string;
  rules_version: string;
  rules_hash: string;
  rules: EngineRules;
  map: { name: string; width: number; height: number; rows: string[] };
  seed: number;
  mode: string;
  ladder_id: string;
  fighters: (ReplayFighter & { id: number })[];
  deadlines: DeadlinesT;
}

export interface ReplayTick {
  type: "tick";
  tick: number;
  turns: ReplayInput[];
  state: unknown;
  events: GameEventT[];
  disqualified?: number[];
}

export type ServerInput =
  | { type: "forfeit"; tick: number; fighter: number }
  | { type: "disqualify"; tick: number; fighters: number[] }
  | { type: "void"; tick: number }
  | { type: "abort"; tick: number; why: string };

export interface ReplayEnd {
  type: "end";
  winner: number | null;
  reason: string;
  final_tick: number;
  hp: number[];
  damage_dealt: number[];
  disqualified: boolean[];
}

export type ReplayLine = ReplayHeader | ReplayTick | ServerInput | ReplayEnd;

export class ReplayRecorder {
  readonly lines: string[] = [];

  constructor(o: {
    matchId: string;
    seed: number;
    mode: string;
    ladderId: string;
    rules: EngineRules;
    map: MapInfo;
    fighters: ReplayFighter[];
    deadlines: DeadlinesT;
  }) {
    const header: ReplayHeader = {
      type: "header",
      format: REPLAY_FORMAT,
      format_version: REPLAY_FORMAT_VERSION,
      match_id: o.matchId,
      release: RELEASE,
      engine: ENGINE_VERSION,
      protocol: PROTOCOL_VERSION,
      rules_version: o.rules.version,
      rules_hash: rulesHashOf(o.rules),
      rules: o.rules,
      map: { name: o.map.name, width: o.map.width, height: o.map.height, rows: o.map.rows },
      seed: o.seed,
      mode: o.mode,
      ladder_id: o.ladderId,
      fighters: o.fighters.map((f, id) => ({
        id,
        name: f.name,
        display_name: f.display_name,
        version: f.version,
      })),
      deadlines: o.deadlines,
    };
    this.lines.push(JSON.stringify(header));
  }

  tick(
    tick: number,
    turns: ReplayInput[],
    state: unknown,
    events: GameEventT[],
    disqualified: number[],
  ): void {
    const line: ReplayTick = { type: "tick", tick, turns, state, events };
    if (disqualified.length > 0) line.disqualified = disqualified;
    this.lines.push(JSON.stringify(line));
  }

  input(line: ServerInput): void {
    this.lines.push(JSON.stringify(line));
  }

  end(line: Omit<ReplayEnd, "type">): void {
    this.lines.push(JSON.stringify({ type: "end", ...line }));
  }

  jsonl(): string {
    return `${this.lines.join("\n")}\n`;
  }

  gzip(): Buffer {
    return gzipSync(this.jsonl(), { level: 6 });
  }
}

/** Parses replay bytes (gzipped or plain JSON Lines) into lines, with a clear error for anything else. */
export function readReplay(bytes: Uint8Array): { text: string; lines: ReplayLine[] } {
  let text: string;
  try {
    text =
      bytes[0] === 0x1f && bytes[1] === 0x8b
        ? gunzipSync(bytes).toString("utf8")
        : Buffer.from(bytes).toString("utf8");
  } catch (err) {
    throw new Error(`replay is not valid gzip: ${(err as Error).message}`);
  }
  const lines = text.split("\n").filter((l) => l.length > 0);
  const parsed = lines.map((l, i) => {
    try {
      return JSON.parse(l) as ReplayLine;
    } catch {
      throw new Error(`replay line ${i + 1} is not valid JSON`);
    }
  });
  const header = parsed[0];
  if (header?.type !== "header" || header.format !== REPLAY_FORMAT) {
    throw new Error("replay does not start with an arena-replay header line");
  }
  return { text, lines: parsed };
}
