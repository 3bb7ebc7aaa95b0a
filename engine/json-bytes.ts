// Writes JSON text as UTF-8 bytes straight into a caller's Uint8Array, producing exactly the bytes of
// `new TextEncoder().encode(JSON.stringify(value))`: the same string escapes (including lone surrogates),
// the same number forms, the same key order. It exists so the observation writer can skip the intermediate
// string and its re-encoding on the pool workers' hot path; it knows nothing about observations.

/** Thrown inside a write when the buffer has no room left; the entry point that began the write catches it. */
export const OUT_OF_ROOM: Error = new RangeError("JSON output does not fit in the buffer");

const EMPTY = new Uint8Array(0);
const HEX = [48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102]; // 0-9a-f: JSON.stringify's lowercase hex

/**
 * For each ASCII code unit, how JSON.stringify writes it: 0 as itself, a letter for its two-character escape
 * (\" \\ \b \f \n \r \t), 1 for a \u00XX escape (the other control characters).
 */
const ASCII_ESCAPE = new Uint8Array(128);
for (let c = 0; c < 0x20; c++) ASCII_ESCAPE[c] = 1;
ASCII_ESCAPE[0x22] = 0x22;
ASCII_ESCAPE[0x5c] = 0x5c;
ASCII_ESCAPE[0x08] = 0x62; // b
ASCII_ESCAPE[0x0c] = 0x66; // f
ASCII_ESCAPE[0x0a] = 0x6e; // n
ASCII_ESCAPE[0x0d] = 0x72; // r
ASCII_ESCAPE[0x09] = 0x74; // t

/** The bytes of an ASCII-only text, for the fixed keys and punctuation a writer copies in. */
export function ascii(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) throw new Error(`not ASCII: ${JSON.stringify(text)}`);
    out[i] = c;
  }
  return out;
}

const TRUE = ascii("true");
const FALSE = ascii("false");
const NULL = ascii("null");

/** How many bytes `string(s)` writes, quotes included; used only when a string might not fit. */
export function jsonStringByteLength(s: string): number {
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      const e = ASCII_ESCAPE[c]!;
      n += e === 0 ? 1 : e === 1 ? 6 : 2;
    } else if (c < 0x800) n += 2;
    else if (c < 0xd800 || c > 0xdfff) n += 3;
    else if (c <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else n += 6;
  }
  return n;
}

const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff; // NaN (past the end) is not

/** How many bytes `utf8(s)` writes: TextEncoder's count, a lone surrogate being U+FFFD's three bytes. */
export function utf8ByteLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1))) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * A cursor over one Uint8Array. Every method checks the room it needs and throws OUT_OF_ROOM rather than
 * writing past the end, so a caller can catch that, grow its buffer and write again. One instance is reused
 * for every write (`reset`), so a write allocates nothing but the strings of non-integer numbers.
 */
export class JsonBytes {
  buf: Uint8Array = EMPTY;
  pos = 0;

  reset(buf: Uint8Array, pos: number): void {
    this.buf = buf;
    this.pos = pos;
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw OUT_OF_ROOM;
  }

  /** Copies fixed bytes (keys and punctuation, pre-encoded once). */
  bytes(b: Uint8Array): void {
    const n = b.length;
    this.need(n);
    const buf = this.buf;
    const p = this.pos;
    // Uint8Array.set has a fixed cost per call that a key of a few bytes does not repay; a loop does those.
    if (n > 8) buf.set(b, p);
    else for (let i = 0; i < n; i++) buf[p + i] = b[i]!;
    this.pos = p + n;
  }

  /** A pre-encoded key (with its comma and colon) and an int32 after it: one call for the commonest pair, as
   * the observation's writer has more calls than V8 inlines into one function. */
  keyInt(key: Uint8Array, n: number): void {
    this.bytes(key);
    this.int(n);
  }

  keyBool(key: Uint8Array, v: boolean): void {
    this.bytes(key);
    this.bytes(v ? TRUE : FALSE);
  }

  /** A key, then an int32 when `present`, else null (what the opponent's fields are while out of sight). */
  keyIntOrNull(key: Uint8Array, present: boolean, n: number): void {
    this.bytes(key);
    if (present) this.int(n);
    else this.bytes(NULL);
  }

  /** `a,b`: a tile's coordinates. */
  intPair(a: number, b: number): void {
    this.int(a);
    this.byte(0x2c);
    this.int(b);
  }

  byte(c: number): void {
    this.need(1);
    this.buf[this.pos++] = c;
  }

  bool(v: boolean): void {
    this.bytes(v ? TRUE : FALSE);
  }

  null(): void {
    this.bytes(NULL);
  }

  /** An int32 (every engine value is one); -0 is written as 0, as JSON.stringify does. */
  int(n: number): void {
    let v = n | 0;
    // Most engine values have one to three digits (coordinates, cooldowns, hit points): no digit counting.
    if (v >= 0 && v < 1000) {
      const buf = this.buf;
      const p = this.pos;
      if (v < 10) {
        this.need(1);
        buf[p] = 48 + v;
        this.pos = p + 1;
      } else if (v < 100) {
        this.need(2);
        const tens = (v / 10) | 0;
        buf[p] = 48 + tens;
        buf[p + 1] = 48 + v - tens * 10;
        this.pos = p + 2;
      } else {
        this.need(3);
        const hundreds = (v / 100) | 0;
        const rest = v - hundreds * 100;
        const tens = (rest / 10) | 0;
        buf[p] = 48 + hundreds;
        buf[p + 1] = 48 + tens;
        buf[p + 2] = 48 + rest - tens * 10;
        this.pos = p + 3;
      }
      return;
    }
    const negative = v < 0;
    if (negative) v = -v; // -2^31 becomes 2^31: a double, but v / 10 is back in int32 range
    let len = negative ? 2 : 1;
    for (let t = v; t >= 10; t = (t / 10) | 0) len++;
    this.need(len);
    const buf = this.buf;
    if (negative) buf[this.pos] = 0x2d;
    let p = this.pos + len;
    this.pos = p;
    do {
      buf[--p] = 48 + (v % 10);
      v = (v / 10) | 0;
    } while (v > 0);
  }

  /** Any number: integers in int32 range by digits, other finite numbers as Number#toString writes them
   * (the same shortest round-trip form and exponents JSON.stringify uses), NaN and the infinities as null. */
  number(x: number): void {
    if ((x | 0) === x) this.int(x);
    else if (Number.isFinite(x)) this.asciiText(String(x));
    else this.null();
  }

  /** Text known to be ASCII with nothing to escape (number forms). */
  private asciiText(s: string): void {
    const n = s.length;
    this.need(n);
    const buf = this.buf;
    const p = this.pos;
    for (let i = 0; i < n; i++) buf[p + i] = s.charCodeAt(i);
    this.pos = p + n;
  }

  /** A JSON string literal: quotes, JSON.stringify's escapes, the rest as UTF-8. */
  string(s: string): void {
    const n = s.length;
    // Six bytes a code unit is the most any of them takes (\uXXXX); only when even that might not fit is the
    // exact length counted, so a buffer too small is reported exactly when the string really does not fit.
    if (this.pos + 6 * n + 2 > this.buf.length) this.need(jsonStringByteLength(s));
    const buf = this.buf;
    let p = this.pos;
    buf[p++] = 0x22;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        const e = ASCII_ESCAPE[c]!;
        if (e === 0) buf[p++] = c;
        else if (e === 1) p = unicodeEscape(buf, p, c);
        else {
          buf[p++] = 0x5c;
          buf[p++] = e;
        }
      } else if (c < 0x800) {
        buf[p++] = 0xc0 | (c >> 6);
        buf[p++] = 0x80 | (c & 0x3f);
      } else if (c < 0xd800 || c > 0xdfff) {
        buf[p++] = 0xe0 | (c >> 12);
        buf[p++] = 0x80 | ((c >> 6) & 0x3f);
        buf[p++] = 0x80 | (c & 0x3f);
      } else if (c <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1))) {
        const cp = ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00) + 0x10000;
        buf[p++] = 0xf0 | (cp >> 18);
        buf[p++] = 0x80 | ((cp >> 12) & 0x3f);
        buf[p++] = 0x80 | ((cp >> 6) & 0x3f);
        buf[p++] = 0x80 | (cp & 0x3f);
      } else {
        // A lone surrogate: JSON.stringify escapes it (ES2019), so the text stays valid UTF-8.
        p = unicodeEscape(buf, p, c);
      }
    }
    buf[p++] = 0x22;
    this.pos = p;
  }

  /**
   * Text copied as UTF-8, unquoted and unescaped: JSON another serialiser already wrote (a bot's turn, which
   * JSON.stringify writes as it always has). The bytes of `TextEncoder.encode(s)`, a lone surrogate included
   * (as U+FFFD), though JSON.stringify's output never holds one.
   */
  utf8(s: string): void {
    const n = s.length;
    // Three bytes a code unit is the most any of them takes (a pair's four bytes are two units).
    if (this.pos + 3 * n > this.buf.length) this.need(utf8ByteLength(s));
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) buf[p++] = c;
      else if (c < 0x800) {
        buf[p++] = 0xc0 | (c >> 6);
        buf[p++] = 0x80 | (c & 0x3f);
      } else if (c >= 0xd800 && c <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1))) {
        const cp = ((c - 0xd800) << 10) + (s.charCodeAt(++i) - 0xdc00) + 0x10000;
        buf[p++] = 0xf0 | (cp >> 18);
        buf[p++] = 0x80 | ((cp >> 12) & 0x3f);
        buf[p++] = 0x80 | ((cp >> 6) & 0x3f);
        buf[p++] = 0x80 | (cp & 0x3f);
      } else {
        const u = c >= 0xd800 && c <= 0xdfff ? 0xfffd : c; // a lone surrogate, as TextEncoder writes it
        buf[p++] = 0xe0 | (u >> 12);
        buf[p++] = 0x80 | ((u >> 6) & 0x3f);
        buf[p++] = 0x80 | (u & 0x3f);
      }
    }
    this.pos = p;
  }

  /**
   * Any plain JSON value (what the protocol's event objects are): null, booleans, numbers, strings, arrays and
   * objects of those, keys in Object.keys order as JSON.stringify takes them, undefined members skipped in
   * objects and null in arrays. Not for values with toJSON, BigInts or boxed primitives.
   */
  value(v: unknown): void {
    switch (typeof v) {
      case "string":
        this.string(v);
        return;
      case "number":
        this.number(v);
        return;
      case "boolean":
        this.bool(v);
        return;
      case "object":
        if (v === null) this.null();
        else if (Array.isArray(v)) this.array(v);
        else this.object(v as Record<string, unknown>);
        return;
      default:
        throw new TypeError(`no JSON form for a ${typeof v}`);
    }
  }

  private array(a: unknown[]): void {
    this.byte(0x5b);
    for (let i = 0; i < a.length; i++) {
      if (i > 0) this.byte(0x2c);
      const x = a[i];
      if (x === undefined || typeof x === "function" || typeof x === "symbol") this.null();
      else this.value(x);
    }
    this.byte(0x5d);
  }

  private object(o: Record<string, unknown>): void {
    this.byte(0x7b);
    let first = true;
    for (const k of Object.keys(o)) {
      const x = o[k];
      if (x === undefined || typeof x === "function" || typeof x === "symbol") continue;
      if (!first) this.byte(0x2c);
      first = false;
      this.string(k);
      this.byte(0x3a);
      this.value(x);
    }
    this.byte(0x7d);
  }
}

function unicodeEscape(buf: Uint8Array, p: number, c: number): number {
  buf[p] = 0x5c;
  buf[p + 1] = 0x75;
  buf[p + 2] = HEX[c >> 12]!;
  buf[p + 3] = HEX[(c >> 8) & 15]!;
  buf[p + 4] = HEX[(c >> 4) & 15]!;
  buf[p + 5] = HEX[c & 15]!;
  return p + 6;
}

/** The UTF-8 JSON bytes of whatever `write` puts in a JsonBytes, at their exact length (for pre-encoding). */
export function encodeJson(write: (w: JsonBytes) => void): Uint8Array {
  const w = new JsonBytes();
  for (let size = 256; ; size *= 4) {
    w.reset(new Uint8Array(size), 0);
    try {
      write(w);
      return w.buf.slice(0, w.pos);
    } catch (e) {
      if (e !== OUT_OF_ROOM) throw e;
    }
  }
}
