// Client addresses behind a reverse proxy (issue 31, part 4): with --trust-proxy, a request whose TCP peer is
// a trusted proxy is from the right-most X-Forwarded-For entry that is not a trusted proxy, and every
// per-address limit falls on that address (the bot socket's failure and connect budgets, the sign-in rate
// limit, the per-address connection cap for upgraded sockets); from any other peer the header is ignored, so
// a made-up X-Forwarded-For buys no fresh budget. The proxy is 127.0.6.1 (Linux routes all of 127/8 to lo).
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { clientAddress, trustRule } from "../../server/client-address.ts";
import { parseConfig } from "../../server/config.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

const PROXY = "127.0.6.1";
const STRANGER = "127.0.6.2";

/** One bad-token upgrade from `localAddress` carrying `forwardedFor`: the HTTP status, or the socket's code. */
function upgrade(url: string, localAddress: string, forwardedFor: string): Promise<number | string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, {
      headers: { authorization: "Bearer made-up", "x-forwarded-for": forwardedFor },
      localAddress,
    });
    ws.on("unexpected-response", (_req, res) => {
      res.resume();
      resolve(res.statusCode!);
      ws.terminate();
    });
    ws.on("message", (d) => {
      resolve(String((JSON.parse(d.toString()) as { code?: string }).code));
      ws.close();
    });
    ws.on("error", () => {});
  });
}

/** A sign-in attempt (a rate-limited route) from `localAddress` carrying `forwardedFor`: the status. */
function signIn(url: string, localAddress: string, forwardedFor: string): Promise<number> {
  const body = JSON.stringify({ email: "nobody@example.com", password: "wrong-password-123" });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/auth/v1/token?grant_type=password`,
      {
        method: "POST",
        localAddress,
        agent: false,
        headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode!));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("--trust-proxy", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({
      trustProxy: [PROXY],
      socketAuthFailuresPerMinute: 2,
      socketConnectsPerMinute: 100_000,
      authRateLimit: 2,
    });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("gives two clients behind one trusted proxy their own socket budgets", async () => {
    const a = "198.51.100.1";
    const b = "198.51.100.2";
    expect(await upgrade(srv.wsUrl, PROXY, a)).toBe("invalid_token");
    expect(await upgrade(srv.wsUrl, PROXY, a)).toBe("invalid_token");
    expect(await upgrade(srv.wsUrl, PROXY, a)).toBe(429); // a's failures are spent
    // b, through the same proxy, has its own budget; the right-most untrusted entry is the client, whatever
    // the client wrote further left.
    expect(await upgrade(srv.wsUrl, PROXY, `${a}, ${b}`)).toBe("invalid_token");
    expect(await upgrade(srv.wsUrl, PROXY, b)).toBe("invalid_token");
    expect(await upgrade(srv.wsUrl, PROXY, b)).toBe(429);
  });

  it("ignores X-Forwarded-For from a peer that is not a trusted proxy", async () => {
    expect(await upgrade(srv.wsUrl, STRANGER, "203.0.113.1")).toBe("invalid_token");
    expect(await upgrade(srv.wsUrl, STRANGER, "203.0.113.2")).toBe("invalid_token");
    // A third made-up address buys nothing: the budget is the peer's own.
    expect(await upgrade(srv.wsUrl, STRANGER, "203.0.113.3")).toBe(429);
  });

  it("keys the sign-in rate limit (req.ip) on the forwarded client", async () => {
    const c = "198.51.100.3";
    const d = "198.51.100.4";
    expect(await signIn(srv.url, PROXY, c)).not.toBe(429);
    expect(await signIn(srv.url, PROXY, c)).not.toBe(429);
    expect(await signIn(srv.url, PROXY, c)).toBe(429);
    expect(await signIn(srv.url, PROXY, d)).not.toBe(429);
    // From an untrusted peer the header changes nothing.
    expect(await signIn(srv.url, STRANGER, "198.51.100.5")).not.toBe(429);
    expect(await signIn(srv.url, STRANGER, "198.51.100.6")).not.toBe(429);
    expect(await signIn(srv.url, STRANGER, "198.51.100.7")).toBe(429);
  });

  it("reads the flag as proxy-addr does, and refuses a malformed entry at start", () => {
    const c = parseConfig(["--anonymous-dev", "--trust-proxy", "loopback, 10.0.0.0/8"], {});
    expect(c).toMatchObject({ trustProxy: ["loopback", "10.0.0.0/8"] });
    expect(() => parseConfig(["--anonymous-dev", "--trust-proxy", "10.0.0.300"], {})).toThrow(
      /--trust-proxy/,
    );
    expect(parseConfig(["--anonymous-dev"], {})).toMatchObject({ trustProxy: [] });
    const trust = trustRule(["10.0.0.0/8"]);
    const req = (peer: string, xff: string) =>
      ({
        socket: { remoteAddress: peer },
        connection: { remoteAddress: peer },
        headers: { "x-forwarded-for": xff },
      }) as never;
    expect(clientAddress(req("10.1.2.3", "1.1.1.1, 10.9.9.9"), trust)).toBe("1.1.1.1");
    expect(clientAddress(req("192.0.2.9", "1.1.1.1"), trust)).toBe("192.0.2.9");
    expect(clientAddress(req("10.1.2.3", "1.1.1.1"), null)).toBe("10.1.2.3");
  });
});
