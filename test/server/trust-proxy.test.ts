// Client addresses behind a reverse proxy (issue 31, part 4): with --trust-proxy, a request whose TCP peer is
// a trusted proxy is from the right-most X-Forwarded-For entry that is not a trusted proxy, and every
// per-address limit falls on that address (the bot socket's failure and connect budgets, the sign-in rate
// limit, the per-address connection cap for upgraded sockets); from any other peer the header is ignored, so
// a made-up X-Forwarded-For buys no fresh budget. The proxy is 127.0.6.1 (Linux routes all of 127/8 to lo).
import { request } from "node:http";
import { connect, type Socket } from "node:net";
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

/** A keep-alive `GET /api` from `localAddress` whose connection stays open: its status and socket. */
function heldGet(port: number, localAddress: string): Promise<{ status: number; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress });
    let got = "";
    socket.on("error", reject);
    socket.once("connect", () => socket.write("GET /api HTTP/1.1\r\nHost: ladder\r\n\r\n"));
    socket.on("data", (d: Buffer) => {
      got += d.toString("latin1");
      if (got.includes("\r\n\r\n")) resolve({ status: Number(got.slice(9, 12)), socket });
    });
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
      maxConnectionsPerAddress: 2,
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

  it("does not cap the proxy's own connections per address, but caps each client's WebSockets through it", async () => {
    // Three connections held open at once from the proxy's address, over a cap of two: all served.
    const port = Number(new URL(srv.url).port);
    const held = await Promise.all([1, 2, 3].map(() => heldGet(port, PROXY)));
    expect(held.map((h) => h.status)).toEqual([200, 200, 200]);
    for (const h of held) h.socket.destroy();
    // One at a time: this test's own fetches come from 127.0.0.1, under the same cap of two.
    const tokens: string[] = [];
    for (const i of [1, 2, 3, 4]) tokens.push(await srv.register(`proxied-${i}`));
    const open = (token: string, forwardedFor: string) =>
      new Promise<WebSocket | number>((resolve) => {
        const ws = new WebSocket(srv.wsUrl, {
          headers: { authorization: `Bearer ${token}`, "x-forwarded-for": forwardedFor },
          localAddress: PROXY,
        });
        ws.on("unexpected-response", (_req, res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        ws.on("open", () => resolve(ws));
        ws.on("error", () => {});
      });
    const e1 = await open(tokens[0]!, "198.51.100.30");
    const e2 = await open(tokens[1]!, "198.51.100.30");
    expect(e1).toBeInstanceOf(WebSocket);
    expect(e2).toBeInstanceOf(WebSocket);
    expect(await open(tokens[2]!, "198.51.100.30")).toBe(429); // that client's cap of two
    const f = await open(tokens[3]!, "198.51.100.31"); // another client behind the same proxy
    expect(f).toBeInstanceOf(WebSocket);
    for (const w of [e1, e2, f]) (w as WebSocket).close();
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
