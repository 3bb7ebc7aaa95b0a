// The bytes of a worker link (see protocol.ts): per event-loop turn, one byte buffer each way holds every
// match's tick messages, laid out by hand; the rarer control messages (start, resume, peek, abort) ride beside
// it as objects, and the byte stream says where each one falls so a match's messages keep their order.
//
// A batch is `[buffer, ...controls]`: `buffer` an ArrayBuffer moved (transferred, not copied) to the other
// thread, whose first four bytes are the length used. Records follow, each starting with a kind byte and the
// match key (u32):
//   CONTROL  u32 index into controls
//   TURNS    (front to worker) u32 tick, u8 seats whose grace ran out (bit 0, bit 1), then per seat:
//            u8 input kind, f64 ms, and for a message: u32 length and the bytes as the socket received them
//   OBSERVE  (worker to front) u32 tick, f64 deadline per seat, then per seat u32 length (NONE for a house
//            seat) and the observation's UTF-8 JSON, written in place by the match's observation writer
// Numbers are little-endian; the f64s are not aligned (DataView does not need it).
//
// Why bytes: structured clone of an array of small objects costs both threads per object and per property,
// and the observations were already bytes (copied out of the worker's scratch buffer, then cloned again).
// One moved buffer costs one transfer whatever it holds; the front hands the sockets views into it.
import type { TurnInput } from "../engine/match.ts";
import type { IdleReason } from "../engine/protocol.ts";

/** Record kinds. */
const Rec = { Control: 0, Turns: 1, Observe: 2 } as const;
type Rec = (typeof Rec)[keyof typeof Rec];

/** Input kinds of a seat in a TURNS record; Binary is a binary frame, which the engine refuses as `schema`. */
const In = { None: 0, Message: 1, Binary: 2, Timeout: 3, Disconnected: 4 } as const;

/** Length marker of a seat without an observation (a house seat, played inside the worker). */
const NONE = 0xffffffff;
const HEADER = 4;

/** A turn as the front holds it: `bytes` are the message exactly as the socket received it, when known. */
export type SeatInput = TurnInput & { bytes?: Uint8Array };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A growable byte buffer written front to back; `take()` hands its bytes over and starts a new one. */
export class LinkWriter {
  private buf: ArrayBuffer;
  private u8: Uint8Array;
  private view: DataView;
  private at = HEADER;
  private readonly controls: unknown[] = [];

  constructor(size = 4096) {
    this.buf = new ArrayBuffer(size);
    this.u8 = new Uint8Array(this.buf);
    this.view = new DataView(this.buf);
  }

  get empty(): boolean {
    return this.at === HEADER && this.controls.length === 0;
  }

  /** Makes room for `n` more bytes, keeping what is written. */
  private room(n: number): void {
    if (this.at + n <= this.buf.byteLength) return;
    let size = this.buf.byteLength * 2;
    while (size < this.at + n) size *= 2;
    const next = new ArrayBuffer(size);
    const u8 = new Uint8Array(next);
    u8.set(this.u8.subarray(0, this.at));
    this.buf = next;
    this.u8 = u8;
    this.view = new DataView(next);
  }

  private head(kind: Rec, key: number, n: number): void {
    this.room(5 + n);
    this.view.setUint8(this.at, kind);
    this.view.setUint32(this.at + 1, key, true);
    this.at += 5;
  }

  private u32(v: number): void {
    this.view.setUint32(this.at, v, true);
    this.at += 4;
  }

  private f64(v: number): void {
    this.view.setFloat64(this.at, v, true);
    this.at += 8;
  }

  /** A message that stays an object, in its place in the stream. */
  control(key: number, m: unknown): void {
    this.head(Rec.Control, key, 4);
    this.u32(this.controls.length);
    this.controls.push(m);
  }

  /** Front to worker: a tick's inputs (null for a house seat) and the seats disqualified with it. */
  turns(key: number, tick: number, inputs: readonly (SeatInput | null)[], expired: number): void {
    this.head(Rec.Turns, key, 5);
    this.u32(tick);
    this.view.setUint8(this.at++, expired);
    for (let f = 0; f < 2; f++) {
      const inp = inputs[f] ?? null;
      this.room(1 + 8 + 4);
      if (inp === null) {
        this.view.setUint8(this.at++, In.None);
        this.f64(0);
        continue;
      }
      if ("idle" in inp) {
        this.view.setUint8(this.at++, inp.idle === "disconnected" ? In.Disconnected : In.Timeout);
        this.f64(inp.ms);
        continue;
      }
      // A message without its bytes (a test, a human game's synthesised turn) is its JSON text: the worker
      // parses it back to the same value. A binary frame (raw null, no bytes) stays a binary frame.
      const bytes =
        inp.bytes ?? (inp.raw === null || inp.raw === undefined ? null : encoder.encode(textOf(inp.raw)));
      if (bytes === null) {
        this.view.setUint8(this.at++, In.Binary);
        this.f64(inp.ms);
        continue;
      }
      this.view.setUint8(this.at++, In.Message);
      this.f64(inp.ms);
      this.u32(bytes.byteLength);
      this.room(bytes.byteLength);
      this.u8.set(bytes, this.at);
      this.at += bytes.byteLength;
    }
  }

  /**
   * Worker to front: a tick's observations. `write(f, out, at)` writes seat f's observation into `out` from
   * `at` and returns the end, or -1 when it does not fit (the buffer grows and it is called again); null
   * `seat0`/`seat1` false mark a seat without an observation (a house seat).
   */
  observe(
    key: number,
    tick: number,
    deadline0: number,
    deadline1: number,
    write: (f: number, out: Uint8Array, at: number) => number,
    seat0: boolean,
    seat1: boolean,
  ): void {
    this.head(Rec.Observe, key, 4 + 16);
    this.u32(tick);
    this.f64(deadline0);
    this.f64(deadline1);
    for (let f = 0; f < 2; f++) {
      this.room(4);
      if (!(f === 0 ? seat0 : seat1)) {
        this.u32(NONE);
        continue;
      }
      const lenAt = this.at;
      let end = write(f, this.u8, lenAt + 4);
      while (end < 0) {
        this.room(this.buf.byteLength); // doubles it
        end = write(f, this.u8, lenAt + 4);
      }
      this.view.setUint32(lenAt, end - lenAt - 4, true);
      this.at = end;
    }
  }

  /** The batch's bytes, header set, to be copied elsewhere (the ring); clear() then starts the next batch. */
  bytes(): Uint8Array {
    this.view.setUint32(0, this.at, true);
    return this.u8.subarray(0, this.at);
  }

  /** The batch's control messages, in the order its CONTROL records index them. */
  get controlMessages(): readonly unknown[] {
    return this.controls;
  }

  clear(): void {
    this.at = HEADER;
    this.controls.length = 0;
  }

  /**
   * The batch to post (transfer its first element). The bytes are copied out at their exact length and the
   * writer keeps its buffer: a fresh buffer of the writer's full size per batch was external memory that
   * made V8 collect garbage more often (the round trip's p99 went to milliseconds in the link benchmark).
   */
  take(): [ArrayBuffer, ...unknown[]] {
    this.view.setUint32(0, this.at, true);
    const batch: [ArrayBuffer, ...unknown[]] = [this.buf.slice(0, this.at), ...this.controls];
    this.at = HEADER;
    this.controls.length = 0;
    return batch;
  }
}

function textOf(raw: unknown): string {
  return JSON.stringify(raw) ?? "null";
}

/** What the reader hands on for each record. */
export interface LinkHandlers {
  control(key: number, m: unknown): void;
  /** Front to worker. `inputs` is reused for the next record: read it before returning. */
  turns?(key: number, tick: number, inputs: [TurnInput | null, TurnInput | null], expired: number): void;
  /**
   * Worker to front. `obs` views the batch's buffer (null for a seat without one) and `deadlines` is reused
   * for the next record: use both before returning (a socket send copies what it needs).
   */
  observe?(
    key: number,
    tick: number,
    obs: [Uint8Array | null, Uint8Array | null],
    deadlines: [number, number],
  ): void;
}

/** Decodes a bot's message as the socket tier does: JSON when it parses, else the text itself. */
export function parseMessage(bytes: Uint8Array): unknown {
  const text = decoder.decode(bytes);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const IDLE: Record<number, IdleReason> = { 3: "timeout", 4: "disconnected" };

/**
 * A batch as the ring carries it (pool/ring.ts): the bytes, then the controls as JSON when there are any. The
 * front's controls (start, resume, peek, abort) are plain JSON values.
 */
export function ringPayload(w: LinkWriter): [Uint8Array, Uint8Array | null] {
  const controls = w.controlMessages;
  return [w.bytes(), controls.length > 0 ? encoder.encode(JSON.stringify(controls)) : null];
}

/** Reads a batch from a ring payload (see ringPayload); the payload must start at its buffer's offset 0. */
export function readRingBatch(payload: Uint8Array, h: LinkHandlers): void {
  if (payload.byteOffset !== 0) throw new Error("link: a ring payload must start at its buffer's start");
  const end = new DataView(payload.buffer, 0, 4).getUint32(0, true);
  const controls =
    payload.byteLength > end ? (JSON.parse(decoder.decode(payload.subarray(end))) as unknown[]) : [];
  readBatch([payload.buffer, ...controls], h);
}

/** Reads one batch, in order, calling the handlers. */
export function readBatch(batch: readonly unknown[], h: LinkHandlers): void {
  const buf = batch[0] as ArrayBuffer;
  const view = new DataView(buf);
  const end = view.getUint32(0, true);
  const inputs: [TurnInput | null, TurnInput | null] = [null, null];
  const obs: [Uint8Array | null, Uint8Array | null] = [null, null];
  const deadlines: [number, number] = [0, 0];
  let at = HEADER;
  while (at < end) {
    const kind = view.getUint8(at);
    const key = view.getUint32(at + 1, true);
    at += 5;
    if (kind === Rec.Control) {
      h.control(key, batch[1 + view.getUint32(at, true)]);
      at += 4;
    } else if (kind === Rec.Turns) {
      const tick = view.getUint32(at, true);
      const expired = view.getUint8(at + 4);
      at += 5;
      for (let f = 0; f < 2; f++) {
        const k = view.getUint8(at);
        const ms = view.getFloat64(at + 1, true);
        at += 9;
        if (k === In.None) inputs[f] = null;
        else if (k === In.Binary) inputs[f] = { raw: null, ms };
        else if (k === In.Message) {
          const len = view.getUint32(at, true);
          inputs[f] = { raw: parseMessage(new Uint8Array(buf, at + 4, len)), ms };
          at += 4 + len;
        } else inputs[f] = { idle: IDLE[k]!, ms };
      }
      h.turns?.(key, tick, inputs, expired);
    } else if (kind === Rec.Observe) {
      const tick = view.getUint32(at, true);
      deadlines[0] = view.getFloat64(at + 4, true);
      deadlines[1] = view.getFloat64(at + 12, true);
      at += 20;
      for (let f = 0; f < 2; f++) {
        const len = view.getUint32(at, true);
        at += 4;
        if (len === NONE) obs[f] = null;
        else {
          obs[f] = new Uint8Array(buf, at, len);
          at += len;
        }
      }
      h.observe?.(key, tick, obs, deadlines);
    } else throw new Error(`link: unknown record kind ${kind} at ${at - 5}`);
  }
}
