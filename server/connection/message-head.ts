// What the socket tier must know of a bot's message while it plays, read from the bytes without building
// anything: the top-level `type` and `tick`. A turn goes on to its pool worker as the bytes the socket
// received, where it is parsed and validated (pool/link.ts); parsing it here as well cost the socket thread
// a JSON.parse per message (about a tenth of its time in a live profile: V8 internalising every key and
// building the objects) only to read two fields (issue 13, part 1).
//
// The scan validates the whole text as JSON (RFC 8259, as JSON.parse does), so a text JSON.parse refuses is
// never taken for a turn. It answers only when it is sure to agree with JSON.parse: for anything it does not
// decode itself (a key or a `type` with escapes, a `tick` that is not a plain integer, a text that is not an
// object, deep nesting) it says so, and the caller parses the text the ordinary way.

/** The top-level fields the socket tier reads. */
export interface MessageHead {
  /** `type` when it is one of these strings; `other` for any other value, or none. */
  type: "turn" | "ready" | "queue" | "leave" | "other";
  /** `tick` when it is an integer number; null for any other value, or none. */
  tick: number | null;
}

enum C {
  Quote = 0x22,
  Backslash = 0x5c,
  Colon = 0x3a,
  Comma = 0x2c,
  OpenBrace = 0x7b,
  CloseBrace = 0x7d,
  OpenBracket = 0x5b,
  CloseBracket = 0x5d,
  Minus = 0x2d,
  Plus = 0x2b,
  Dot = 0x2e,
  Zero = 0x30,
  Nine = 0x39,
}

/** Nesting deeper than this is left to JSON.parse (no bot message needs it; the scan stays bounded). */
const MAX_DEPTH = 32;
/** Integer ticks up to 15 digits are exact in a double whichever way they are summed. */
const MAX_TICK_DIGITS = 15;

const TYPES: readonly MessageHead["type"][] = ["turn", "ready", "queue", "leave"];

/** Thrown inside the scan: not JSON, or not something the scan vouches for. Never escapes `readHead`. */
const GIVE_UP = new Error("give up");

class Scanner {
  b: Uint8Array = new Uint8Array(0);
  at = 0;

  ws(): void {
    const b = this.b;
    let at = this.at;
    while (at < b.length) {
      const c = b[at]!;
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      at++;
    }
    this.at = at;
  }

  /** Skips a string from its opening quote; returns true when it held an escape. */
  string(): boolean {
    const b = this.b;
    let at = this.at + 1;
    let escaped = false;
    for (;;) {
      if (at >= b.length) throw GIVE_UP;
      const c = b[at]!;
      if (c === C.Quote) break;
      if (c < 0x20) throw GIVE_UP; // a raw control character: JSON.parse refuses it
      if (c === C.Backslash) {
        escaped = true;
        const e = b[at + 1];
        if (e === 0x75) {
          // \uXXXX
          for (let k = 2; k < 6; k++) if (!isHex(b[at + k])) throw GIVE_UP;
          at += 6;
          continue;
        }
        if (
          e !== C.Quote &&
          e !== C.Backslash &&
          e !== 0x2f &&
          e !== 0x62 &&
          e !== 0x66 &&
          e !== 0x6e &&
          e !== 0x72 &&
          e !== 0x74
        )
          throw GIVE_UP;
        at += 2;
        continue;
      }
      // Bytes from 0x80 are the UTF-8 of characters JSON allows in a string (text decoding turns invalid
      // sequences into U+FFFD, which JSON.parse accepts too).
      at++;
    }
    this.at = at + 1;
    return escaped;
  }

  /** Skips a number; returns its value when it is a plain integer (no fraction or exponent), else NaN. */
  number(): number {
    const b = this.b;
    let at = this.at;
    const negative = b[at] === C.Minus;
    if (negative) at++;
    const first = at;
    if (b[at] === C.Zero) at++;
    else if (isDigit(b[at])) while (isDigit(b[at])) at++;
    else throw GIVE_UP;
    const digits = at - first;
    let plain = true;
    if (b[at] === C.Dot) {
      plain = false;
      at++;
      if (!isDigit(b[at])) throw GIVE_UP;
      while (isDigit(b[at])) at++;
    }
    if (b[at] === 0x65 || b[at] === 0x45) {
      plain = false;
      at++;
      if (b[at] === C.Plus || b[at] === C.Minus) at++;
      if (!isDigit(b[at])) throw GIVE_UP;
      while (isDigit(b[at])) at++;
    }
    this.at = at;
    if (!plain || digits > MAX_TICK_DIGITS) return Number.NaN;
    let v = 0;
    for (let k = first; k < first + digits; k++) v = v * 10 + (b[k]! - C.Zero);
    return negative ? -v : v;
  }

  literal(word: string): void {
    for (let k = 0; k < word.length; k++) if (this.b[this.at + k] !== word.charCodeAt(k)) throw GIVE_UP;
    this.at += word.length;
  }

  /** Skips any value. */
  value(depth: number): void {
    this.ws();
    const c = this.b[this.at];
    if (c === C.Quote) this.string();
    else if (c === C.OpenBrace) this.object(depth + 1, null);
    else if (c === C.OpenBracket) this.array(depth + 1);
    else if (c === C.Minus || isDigit(c)) this.number();
    else if (c === 0x74) this.literal("true");
    else if (c === 0x66) this.literal("false");
    else if (c === 0x6e) this.literal("null");
    else throw GIVE_UP;
  }

  array(depth: number): void {
    if (depth > MAX_DEPTH) throw GIVE_UP;
    this.at++;
    this.ws();
    if (this.b[this.at] === C.CloseBracket) {
      this.at++;
      return;
    }
    for (;;) {
      this.value(depth);
      this.ws();
      const c = this.b[this.at++];
      if (c === C.CloseBracket) return;
      if (c !== C.Comma) throw GIVE_UP;
    }
  }

  /** Skips an object; at the top level (`head` given) records `type` and `tick`, the last of each winning. */
  object(depth: number, head: MessageHead | null): void {
    if (depth > MAX_DEPTH) throw GIVE_UP;
    this.at++;
    this.ws();
    if (this.b[this.at] === C.CloseBrace) {
      this.at++;
      return;
    }
    for (;;) {
      this.ws();
      if (this.b[this.at] !== C.Quote) throw GIVE_UP;
      const keyStart = this.at + 1;
      const keyEscaped = this.string();
      const keyEnd = this.at - 1;
      this.ws();
      if (this.b[this.at++] !== C.Colon) throw GIVE_UP;
      if (head) {
        // An escaped key may spell `type` or `tick`: JSON.parse decides those.
        if (keyEscaped) throw GIVE_UP;
        if (this.spells(keyStart, keyEnd, "type")) this.typeValue(depth, head);
        else if (this.spells(keyStart, keyEnd, "tick")) this.tickValue(depth, head);
        else this.value(depth);
      } else this.value(depth);
      this.ws();
      const c = this.b[this.at++];
      if (c === C.CloseBrace) return;
      if (c !== C.Comma) throw GIVE_UP;
    }
  }

  /** Whether the bytes from `start` to `end` are exactly `word` (ASCII). */
  private spells(start: number, end: number, word: string): boolean {
    if (end - start !== word.length) return false;
    for (let k = 0; k < word.length; k++) if (this.b[start + k] !== word.charCodeAt(k)) return false;
    return true;
  }

  private typeValue(depth: number, head: MessageHead): void {
    this.ws();
    if (this.b[this.at] !== C.Quote) {
      this.value(depth);
      head.type = "other";
      return;
    }
    const start = this.at + 1;
    if (this.string()) throw GIVE_UP; // an escaped string may still spell a known type
    const end = this.at - 1;
    head.type = "other";
    for (const t of TYPES) {
      if (this.spells(start, end, t)) {
        head.type = t;
        return;
      }
    }
  }

  private tickValue(depth: number, head: MessageHead): void {
    this.ws();
    const c = this.b[this.at];
    if (c !== C.Minus && !isDigit(c)) {
      this.value(depth);
      head.tick = null;
      return;
    }
    const v = this.number();
    // A fraction, an exponent or a long integer: JSON.parse says whether it is an integer.
    if (Number.isNaN(v)) throw GIVE_UP;
    head.tick = v;
  }
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= C.Zero && c <= C.Nine;
}

function isHex(c: number | undefined): boolean {
  return (
    c !== undefined && ((c >= C.Zero && c <= C.Nine) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66))
  );
}

const scanner = new Scanner();

/**
 * Reads `type` and `tick` of a JSON object message into `head`. Returns false when the bytes are not a JSON
 * object, or hold something the scan leaves to JSON.parse; `head` is then unspecified.
 */
export function readHead(bytes: Uint8Array, head: MessageHead): boolean {
  head.type = "other";
  head.tick = null;
  const s = scanner;
  s.b = bytes;
  s.at = 0;
  try {
    s.ws();
    if (s.b[s.at] !== C.OpenBrace) return false;
    s.object(1, head);
    s.ws();
    return s.at === bytes.length;
  } catch (e) {
    if (e === GIVE_UP) return false;
    throw e;
  } finally {
    s.b = EMPTY;
  }
}

const EMPTY = new Uint8Array(0);

/** The head JSON.parse gives: what `readHead` must agree with (tests, and the hub's fallback). */
export function headOf(msg: unknown): MessageHead {
  const o = msg && typeof msg === "object" && !Array.isArray(msg) ? (msg as Record<string, unknown>) : null;
  const type = o?.type;
  const tick = o?.tick;
  return {
    type: (TYPES as readonly unknown[]).includes(type) ? (type as MessageHead["type"]) : "other",
    tick: typeof tick === "number" && Number.isInteger(tick) ? tick : null,
  };
}
