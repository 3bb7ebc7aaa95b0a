// The socket tier reads a playing bot's message type and tick from its bytes (server/connection/message-head.ts)
// instead of parsing it. Whenever the scan answers, it must agree with JSON.parse of the same text, the
// way the socket tier read messages before; and it must answer for the messages bots actually send.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { headOf, type MessageHead, readHead } from "../../server/connection/message-head.ts";

const utf8 = new TextEncoder();

/** What JSON.parse makes of the bytes (decoded as the hub decodes them), or undefined when it refuses. */
function parsed(bytes: Uint8Array): MessageHead | undefined {
  try {
    return headOf(JSON.parse(Buffer.from(bytes).toString("utf8")));
  } catch {
    return undefined;
  }
}

/** The property: an answer from the scan is JSON.parse's answer. */
function agrees(bytes: Uint8Array): boolean {
  const head: MessageHead = { type: "other", tick: null };
  if (!readHead(bytes, head)) return false;
  const want = parsed(bytes);
  expect(want, Buffer.from(bytes).toString("utf8")).toBeDefined();
  expect(head, Buffer.from(bytes).toString("utf8")).toEqual(want);
  return true;
}

const space = fc.constantFrom("", " ", "\n", "\t", "\r\n  ");
const typeValue = fc.oneof(
  fc.constantFrom("turn", "ready", "queue", "leave", "ping", "Turn", "turn ", ""),
  fc.string(),
  fc.jsonValue(),
);
const tickValue = fc.oneof(
  fc.integer({ min: -5, max: 100_000 }),
  fc.maxSafeInteger(),
  fc.double(),
  fc.constantFrom(0, -0, 1e21, 3.0, "3", null, true),
  fc.jsonValue(),
);
/** A message object as text: type, tick and other keys in any order, sometimes duplicated, any spacing. */
const message = fc
  .tuple(
    fc.array(
      fc.oneof(
        fc.tuple(fc.constant("type"), typeValue),
        fc.tuple(fc.constant("tick"), tickValue),
        fc.tuple(fc.constantFrom("actions", "move", "say", "x", "tyqe", "ticks"), fc.jsonValue()),
        fc.tuple(fc.string(), fc.jsonValue()),
      ),
      { maxLength: 6 },
    ),
    space,
    space,
  )
  .map(([fields, a, b]) => {
    const body = fields
      .map(([k, v]) => `${a}${JSON.stringify(k)}${b}:${a}${JSON.stringify(v)}${b}`)
      .join(",");
    return `${a}{${body}}${b}`;
  });

describe("reading a message's type and tick from its bytes", () => {
  it("agrees with JSON.parse on generated messages, and answers for the plain ones", () => {
    fc.assert(
      fc.property(message, (text) => {
        const answered = agrees(utf8.encode(text));
        // No escapes in keys or type, and an integer tick short enough: the scan must answer itself.
        const plain = !text.includes("\\") && !/"tick"\s*:\s*-?\d+[.eE]/.test(text) && !/\d{16}/.test(text);
        if (plain) expect(answered, text).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });

  it("never answers for a text JSON.parse refuses: any JSON value, cut, spliced or with a byte changed", () => {
    const mutated = fc
      .tuple(
        fc.oneof(message, fc.json()),
        fc.nat(),
        // Mostly JSON's own punctuation, where a lenient scan would go wrong; sometimes any byte.
        fc.oneof(
          fc.constantFrom(...[...'{}[],:"\\ -.e0u'].map((c) => c.charCodeAt(0))),
          fc.nat({ max: 255 }),
        ),
        fc.nat({ max: 3 }),
      )
      .map(([text, at, byte, how]) => {
        const b = utf8.encode(text);
        const i = b.length === 0 ? 0 : at % b.length;
        if (how === 0) return b.subarray(0, i); // cut short
        if (how === 1) return Uint8Array.from([...b.subarray(0, i), byte, ...b.subarray(i)]); // a byte inserted
        if (how === 2) return Uint8Array.from([...b.subarray(0, i), ...b.subarray(i + 1)]); // a byte removed
        const c = Uint8Array.from(b);
        if (c.length > 0) c[i] = byte; // a byte replaced
        return c;
      });
    fc.assert(
      fc.property(mutated, (bytes) => {
        agrees(bytes);
      }),
      { numRuns: 10_000 },
    );
  });

  it("agrees on arbitrary bytes and on every JSON value", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        agrees(bytes);
      }),
      { numRuns: 5_000 },
    );
    fc.assert(
      fc.property(fc.json(), (text) => {
        agrees(utf8.encode(text));
      }),
      { numRuns: 5_000 },
    );
  });

  it("leaves to JSON.parse what it does not decode itself, and reads a starter bot's turn", () => {
    const head: MessageHead = { type: "other", tick: null };
    const scan = (text: string) => readHead(utf8.encode(text), head);
    expect(scan('{"type":"turn","tick":41,"actions":{"move":"N","attack":{"kind":"melee","dir":"E"}}}')).toBe(
      true,
    );
    expect(head).toEqual({ type: "turn", tick: 41 });
    expect(scan('{"ty\\u0070e":"turn"}')).toBe(false); // an escaped key
    expect(scan('{"type":"tur\\u006e"}')).toBe(false); // an escaped type
    expect(scan('{"type":"turn","tick":4e1}')).toBe(false); // an exponent
    expect(scan('{"type":"turn","tick":1234567890123456}')).toBe(false); // past 15 digits
    expect(scan("[1,2]")).toBe(false); // not an object
    expect(scan(`{"a":${"[".repeat(40)}${"]".repeat(40)}}`)).toBe(false); // deep nesting
    expect(scan('{"type":"turn"} x')).toBe(false); // trailing text
    expect(scan('\uFEFF{"type":"turn"}')).toBe(false); // a byte-order mark, which JSON.parse refuses too
    // Near misses JSON.parse refuses, each next to its valid twin.
    for (const [bad, good] of [
      ['{"type":"turn","a":[1,]}', '{"type":"turn","a":[1]}'],
      ['{"type":"turn","a":1,}', '{"type":"turn","a":1}'],
      ['{"type":"turn","a":{"b":1,}}', '{"type":"turn","a":{"b":1}}'],
      ['{"type":"turn","a":[,1]}', '{"type":"turn","a":[1]}'],
      ['{"type":"turn","a":01}', '{"type":"turn","a":0}'],
      ['{"type":"turn","a":1.}', '{"type":"turn","a":1.0}'],
      ['{"type":"turn","a":tru}', '{"type":"turn","a":true}'],
      ['{"type":"turn","a":"\\x"}', '{"type":"turn","a":"\\n"}'],
      ['{"type":"turn","a":"\\u12g4"}', '{"type":"turn","a":"\\u12f4"}'],
      ['{"type":"turn" "a":1}', '{"type":"turn", "a":1}'],
      ['{"type":"turn","a" 1}', '{"type":"turn","a": 1}'],
      ['{"type":"turn","tick":-}', '{"type":"turn","tick":-0}'],
    ]) {
      expect(parsed(utf8.encode(bad!)), bad).toBeUndefined();
      expect(scan(bad!), bad).toBe(false);
      expect(scan(good!), good).toBe(true);
    }
  });
});
