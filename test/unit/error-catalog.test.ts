// The one error catalog (server/errors.ts) is the source of every coded failure: the HTTP factories take
// their status from it, the sockets their messages, and the starter bots' stop lists and the protocol's
// fatal connection codes must equal what it says. A code added in one place and not the other fails here.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FATAL_CONNECTION_CODES } from "../../engine/protocol.ts";
import {
  ApiError,
  BOT_STOP_CODES,
  CLOSES,
  CODES,
  type CodeSpec,
  closeFor,
  errors,
  SOCKET_ERRORS,
} from "../../server/errors.ts";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
const quoted = (block: string) => [...block.matchAll(/"([a-z_]+)"/g)].map((m) => m[1]!).sort();

describe("the error catalog", () => {
  const catalog = CODES as Record<string, CodeSpec>;

  it("gives every HTTP code a 4xx or 5xx status and every code a message", () => {
    for (const [code, spec] of Object.entries(catalog)) {
      expect(spec.message.length, code).toBeGreaterThan(0);
      if (spec.status !== null) expect(spec.status >= 400 && spec.status < 600, code).toBe(true);
      else expect(spec.socket, `${code} has neither a status nor a socket use`).toBeDefined();
    }
  });

  it("makes every factory's error from the catalog: its code is listed and its status is the catalog's", () => {
    // 409 where the catalog's account_banned is 403; the event routes' HTTP answers for two socket codes (403, 400).
    const overrides = new Set(["bannedCannotBeAdmin", "eventEnrollmentRequired", "unknownOpponent"]);
    for (const [name, make] of Object.entries(errors)) {
      const args = Array.from({ length: make.length }, () =>
        name === "unknownAvatar" || name === "unknownOpponent" ? ["a"] : "x",
      );
      const err = (make as (...a: unknown[]) => ApiError)(...args);
      expect(err, name).toBeInstanceOf(ApiError);
      expect(catalog[err.code!], `${name}: ${err.code}`).toBeDefined();
      if (!overrides.has(name)) expect(err.status, name).toBe(catalog[err.code!]!.status);
      expect(err.body(), name).toMatchObject({ error: expect.any(String), code: err.code });
    }
  });

  it("lists the socket codes with their messages", () => {
    const socketCodes = Object.entries(catalog)
      .filter(([, s]) => s.socket)
      .map(([c]) => c);
    expect(Object.keys(SOCKET_ERRORS).sort()).toEqual(socketCodes.sort());
    for (const code of [
      "quota_exceeded",
      "already_queued",
      "enrollment_required",
      "ladder_closed",
      "replaced",
    ])
      expect(SOCKET_ERRORS, code).toHaveProperty(code);
  });

  it("the protocol's fatal connection codes are the catalog's closing stop codes", () => {
    const closing = Object.entries(catalog)
      .filter(([, s]) => s.socket?.close && s.socket.stop && !s.socket.human)
      .map(([c]) => c)
      .sort();
    expect([...FATAL_CONNECTION_CODES].sort()).toEqual(closing);
  });

  it("the TypeScript and Python starters stop on exactly the catalog's bot stop codes", () => {
    const ts = /const STOP_CODES = new Set\(\[([^\]]*)\]\)/.exec(read("starters/typescript/bot.ts"));
    const py = /^STOP_CODES = \{([^}]*)\}/m.exec(read("starters/python/starter_bot.py"));
    expect(ts, "STOP_CODES in starters/typescript/bot.ts").not.toBeNull();
    expect(py, "STOP_CODES in starters/python/starter_bot.py").not.toBeNull();
    const expected = [...BOT_STOP_CODES].sort();
    expect(quoted(ts![1]!)).toEqual(expected);
    expect(quoted(py![1]!)).toEqual(expected);
  });

  it("every socket close takes its code from the catalog: 1008 with the code, 1013 and 1011, 1012 to restart", () => {
    expect(closeFor("invalid_token")).toEqual([1008, "invalid_token"]);
    expect(closeFor("rate_limited")).toEqual([1008, "rate_limited"]);
    expect(closeFor("unavailable")).toEqual([1013, "try again later"]);
    expect(closeFor("internal")).toEqual([1011, "internal error"]);
    expect(CLOSES.restarting).toEqual([1012, "server restarting"]); // SPEC 3.10
    // No close code is written as a number anywhere else in the socket code.
    for (const file of [
      "server/socket/hub.ts",
      "server/connection/bot-connection.ts",
      "server/socket/connection-set.ts",
      "server/human/human-play.ts",
    ])
      expect(read(file), file).not.toMatch(/\.close\(\s*1\d{3}/);
  });
});
