// Idle connections cannot lock the server (issue 31, part 2): an idle keep-alive connection is closed after
// --keep-alive-timeout, and when idle connections from many addresses (each under the per-address cap) fill
// the server-wide cap, a new client and a bot still get in: the longest-idle HTTP connections are closed to
// make room, and an upgraded bot socket is never closed for this.
//
// The run held 10,000 places; here the cap is 2,000 and 2,000 idle connections fill it (the same
// behaviour at a count this process's file limit allows: every connection is two descriptors in one process).
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BotClient, startServer, type TestServer } from "../helpers/server.ts";

const CAP = 2_000;
const ADDRESSES = 40;

/** A keep-alive connection from `localAddress` that sends one `GET /api` and then nothing. */
function idleClient(port: number, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: "127.0.0.1", localAddress });
    let got = "";
    s.on("error", reject);
    s.once("connect", () => s.write("GET /api HTTP/1.1\r\nHost: ladder\r\nConnection: keep-alive\r\n\r\n"));
    s.on("data", (d: Buffer) => {
      got += d.toString("latin1");
      // The status line and headers are enough: the connection has been served and is now idle.
      if (got.includes("\r\n\r\n")) {
        s.removeAllListeners("data");
        s.on("data", () => {});
        s.on("error", () => {});
        if (got.startsWith("HTTP/1.1 200")) resolve(s);
        else reject(new Error(`not served: ${got.slice(0, 80)}`));
      }
    });
  });
}

/** One `GET /api` on a fresh connection from `localAddress`: its status, or the connection error. */
function freshGet(port: number, localAddress: string): Promise<number | string> {
  return new Promise((resolve) => {
    const s = connect({ port, host: "127.0.0.1", localAddress });
    let got = "";
    s.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    s.on("close", () => resolve(got ? Number(got.slice(9, 12)) : "closed without an answer"));
    s.once("connect", () => s.write("GET /api HTTP/1.1\r\nHost: ladder\r\nConnection: close\r\n\r\n"));
    s.on("data", (d: Buffer) => {
      got += d.toString("latin1");
    });
  });
}

describe("idle keep-alive connections", () => {
  let srv: TestServer;
  let port: number;
  beforeAll(async () => {
    // A long keep-alive timeout: the places must be freed by eviction here, not by the timeout.
    srv = await startServer({ maxConnections: CAP, keepAliveTimeoutMs: 120_000 });
    port = Number(new URL(srv.url).port);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it("fill the cap from 40 addresses, yet a fresh HTTP client and a bot get in and a connected bot stays", async () => {
    const early = new BotClient(srv.wsUrl, await srv.register("idle-early"));
    await early.open();
    const lateToken = await srv.register("idle-late");
    const held: Socket[] = [];
    // CAP idle connections, 50 per address (under the per-address cap of 256), opened 200 at a time.
    for (let i = 0; i < CAP; i += 200)
      held.push(
        ...(await Promise.all(
          Array.from({ length: 200 }, (_, j) => idleClient(port, `127.0.1.${((i + j) % ADDRESSES) + 1}`)),
        )),
      );
    const cap = srv.app.connectionCap.stats;
    expect(cap.open).toBe(CAP); // every place is held (the bot's among them)

    // A new client from an address of its own is served; idle connections made room for it.
    const evictedBefore = cap.evicted;
    expect(await freshGet(port, "127.0.2.1")).toBe(200);
    expect(cap.evicted).toBeGreaterThan(evictedBefore);
    // So is a bot: it connects and is answered.
    const late = new BotClient(srv.wsUrl, lateToken);
    await late.open();
    late.send({ type: "queue", version: "v1" });
    await late.next("queued");
    // Many more new clients still get in, each closing an idle connection, never the bots' sockets.
    const statuses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => freshGet(port, `127.0.3.${(i % 50) + 1}`)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(early.closeCode).toBeNull();
    expect(late.closeCode).toBeNull();
    const since = early.received.length;
    early.send({ type: "queue", version: "v1" });
    await early.next("queued", undefined, 15_000, since);
    expect(cap.open).toBeLessThanOrEqual(CAP);
    for (const s of held) s.destroy();
    early.close();
    late.close();
  }, 120_000);

  it("are closed by the server after --keep-alive-timeout", async () => {
    const quick = await startServer({ keepAliveTimeoutMs: 300 });
    try {
      const s = await idleClient(Number(new URL(quick.url).port), "127.0.1.1");
      // The server ends the connection (Fastify's own default would keep it 72 s, past this test's timeout).
      await new Promise((resolve) => s.once("close", resolve));
    } finally {
      await quick.stop();
    }
  }, 10_000);
});
