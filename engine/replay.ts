// The replay format: gzipped JSON Lines, self-contained (rules and map embedded) and free of wall-clock data,
// so the same seed and turns always give the same bytes. Line 1 is the header, then one line per resolved
// tick (the inputs as received, the state after the tick, every event), server-side inputs (forfeit,
// disqualify, void, abort) where they happened, and a final `end` line. docs/replay-format.md describes each field.
import { gunzipSync, gzipSync } from "node:zlib";
import type { EngineRules } from "./host.ts";
import { JsonBytes, OUT_OF_ROOM } from "./json-bytes.ts";
import type { DeadlinesT, GameEventT } from "./protocol.ts";
import { type ReplayInput, writeTickLine } from "./replay-tick-writer.ts";
import type { MapInfo } from "./rules.ts";
import { ENGINE_VERSION, PROTOCOL_VERSION, RELEASE, rulesHashOf } from "./versions.ts";

export const REPLAY_FORMAT = "arena-replay";
export const REPLAY_FORMAT_VERSION = 1;

export interface ReplayFighter {
  name: string;
  display_name: string;
  version: string;
}

export type { ReplayInput } from "./replay-tick-writer.ts";

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

const NEWLINE = 0x0a;
const EMPTY = new Uint8Array(0);
const decoder = new TextDecoder();

/**
 * Records a match's replay as the JSONL bytes themselves, in one buffer that grows by doubling: a tick line is
 * written straight from the engine's state (replay-tick-writer.ts), with no line object, state snapshot or line
 * string per tick for the worker to collect; the rarer lines (header, server inputs, end) are JSON.stringify's
 * text copied in. The bytes are exactly the UTF-8 of the lines joined and ended by newlines.
 */
export class ReplayRecorder {
  private buf = new Uint8Array(32 * 1024);
  private len = 0;
  /** Where each line ends, its newline included: line i is bytes ends[i - 1] (0 for the first) to ends[i]. */
  private readonly ends: number[] = [];
  private readonly w = new JsonBytes();

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
    this.text(JSON.stringify(header));
  }

  /**
   * The tick line of `tick`: `turns` as received, the engine's `state` region after the tick, its `events` and
   * `disqualified`, a bit per fighter the tick disqualified (bit 0 for fighter 0). Nothing is kept of the
   * arguments: the caller may reuse them.
   */
  tick(
    tick: number,
    turns: readonly ReplayInput[],
    state: Int32Array,
    events: readonly GameEventT[],
    disqualified: number,
  ): void {
    const w = this.w;
    for (;;) {
      w.reset(this.buf, this.len);
      try {
        writeTickLine(w, tick, turns, state, events, disqualified);
        w.byte(NEWLINE);
        break;
      } catch (e) {
        if (e !== OUT_OF_ROOM) throw e;
        this.grow();
      }
    }
    this.commit();
  }

  input(line: ServerInput): void {
    this.text(JSON.stringify(line));
  }

  end(line: Omit<ReplayEnd, "type">): void {
    this.text(JSON.stringify({ type: "end", ...line }));
  }

  get lineCount(): number {
    return this.ends.length;
  }

  /** The lines from index `since` on, as strings (a spectator's peek, the verifier, the simulator's report). */
  linesFrom(since = 0): string[] {
    if (since >= this.ends.length) return [];
    const from = since <= 0 ? 0 : this.ends[since - 1]!;
    // The last byte is the last line's newline; JSON text never holds a raw newline, so it splits the lines.
    return decoder.decode(this.buf.subarray(from, this.len - 1)).split("\n");
  }

  /** The JSONL bytes so far: a view of the recorder's buffer, valid until the next line is recorded. */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.len);
  }

  jsonl(): string {
    return decoder.decode(this.bytes());
  }

  gzip(): Buffer {
    return gzipSync(this.bytes(), { level: 6 });
  }

  /** A line JSON.stringify wrote, copied in as UTF-8. */
  private text(line: string): void {
    const w = this.w;
    for (;;) {
      w.reset(this.buf, this.len);
      try {
        w.utf8(line);
        w.byte(NEWLINE);
        break;
      } catch (e) {
        if (e !== OUT_OF_ROOM) throw e;
        this.grow();
      }
    }
    this.commit();
  }

  private commit(): void {
    this.len = this.w.pos;
    this.ends.push(this.len);
    this.w.reset(EMPTY, 0);
  }

  private grow(): void {
    const next = new Uint8Array(this.buf.length * 2);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
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
