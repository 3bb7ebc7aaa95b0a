// Idle connections cannot lock the server (issue 31, part 2): an idle keep-alive connection is closed after
// --keep-alive-timeout, and when idle connections from many addresses (each under the per-address cap) fill
// the server-wide cap, a new client and a bot still get in: the longest-idle HTTP connections are closed to
// make room, and an upgraded bot socket is never closed for this.
//
// The number is used: 10,000 idle keep-alive connections from 40 loopback addresses (250 each, under
// the per-address cap of 256). The server runs as a child process (`node server/main.ts`, the real entry and
// flags) so that each process holds only its own side of the connections: in one process every connection is
// two descriptors, and 20,000 would not fit under this machine's file limit.
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Child, startChild } from "../helpers/child-server.ts";
import { freePort } from "../helpers/ports.ts";
import { BotClient, freshDatabaseUrl, startServer } from "../helpers/server.ts";

const IDLE = 10_000;
const ADDRESSES = 40;
/** Idle connections opened at once while filling (under the server's listen backlog of 511). */
const BATCH = 250;

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

/** A plain HTTP request on a connection of its own, closed after the answer (nothing left idle). */
function httpJson(
  url: string,
  method: "GET" | "POST",
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      {
        method,
        agent: false,
        headers: data
          ? { "content-type": "application/json", "content-length": Buffer.byteLength(data) }
          : {},
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

/** The child's open connections on its main listener, from its metrics listener (which is not capped). */
async function openOnServer(metricsUrl: string): Promise<number> {
  const { text } = await httpJson(metricsUrl, "GET");
  const m = /^arena_connections_open (\d+)$/m.exec(text);
  if (!m) throw new Error(`no arena_connections_open in the metrics:\n${text.slice(0, 300)}`);
  return Number(m[1]);
}

describe("idle keep-alive connections", () => {
  const CAP = IDLE + 1; // every place: the 10,000 idle connections and the bot connected before them
  let child: Child | undefined;
  let dataDir: string;
  let db: Awaited<ReturnType<typeof freshDatabaseUrl>> | undefined;
  let port: number;
  let metricsUrl: string;
  const held: Socket[] = [];
  const bots: BotClient[] = [];

  const register = async (name: string): Promise<string> => {
    const res = await httpJson(`${child!.url}/api/bots`, "POST", { name });
    const token = res.status === 201 ? (JSON.parse(res.text) as { token?: string }).token : undefined;
    if (!token) throw new Error(`registration failed: ${res.status} ${res.text}`);
    return token;
  };
  const bot = (token: string): BotClient => {
    const b = new BotClient(child!.wsUrl, token);
    bots.push(b);
    return b;
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "ladder-idle-"));
    db = await freshDatabaseUrl();
    const metricsPort = await freePort();
    // Found ready by its "ladder ready" line, so at the info level (request lines logged, which slows the fill
    // a little): `quietLevel` would poll with fetch, whose pool keeps a keep-alive connection holding a place.
    child = await startChild(dataDir, db.url, {
      args: [
        "--max-connections",
        String(CAP),
        "--max-connections-per-address",
        "256", // the default, stated: 250 idle connections from each address stay under it
        // A long keep-alive timeout (the longest allowed): the places must be freed by eviction here, not by
        // the timeout during the fill.
        "--keep-alive-timeout",
        "600",
        "--metrics-listen",
        `127.0.0.1:${metricsPort}`,
      ],
    });
    port = Number(new URL(child.url).port);
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  });
  afterAll(async () => {
    for (const s of held) s.destroy();
    for (const b of bots) b.ws.terminate();
    if (child) {
      child.proc.kill("SIGKILL");
      await child.exited;
    }
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("10,000 from 40 addresses fill the cap, yet a bot and a fresh HTTP client get in and a connected bot stays", async () => {
    const early = bot(await register("idle-early"));
    await early.open();
    const lateToken = await register("idle-late");
    // Nothing else is open: the registrations' connections are closed after their answers.
    await expect.poll(() => openOnServer(metricsUrl)).toBe(1);

    // 10,000 idle connections, 250 per address from 127.0.1.1-40, opened BATCH at a time; each is served
    // one GET /api and then sends nothing.
    const fillStart = performance.now();
    for (let i = 0; i < IDLE; i += BATCH) {
      const batch = Array.from({ length: BATCH }, (_, j) =>
        idleClient(port, `127.0.1.${((i + j) % ADDRESSES) + 1}`),
      );
      // Every socket is kept for the cleanup, also when one of the batch fails.
      const settled = await Promise.allSettled(batch);
      for (const r of settled) if (r.status === "fulfilled") held.push(r.value);
      const failed = settled.find((r) => r.status === "rejected");
      if (failed) throw failed.reason;
    }
    const fillS = (performance.now() - fillStart) / 1000;
    const closed = new Set<Socket>();
    for (const s of held) s.once("close", () => closed.add(s));
    // Every place is held: the 10,000 idle connections and the early bot (nothing else is open).
    expect(held.length).toBe(IDLE);
    expect(held.every((s) => !s.destroyed)).toBe(true);
    expect(await openOnServer(metricsUrl)).toBe(CAP);

    // A bot connects to the full server and is answered: an idle connection made room for it.
    const botStart = performance.now();
    const late = bot(lateToken);
    await late.open();
    late.send({ type: "queue", version: "v1" });
    await late.next("queued");
    const botMs = performance.now() - botStart;
    // The bot's socket stays: the server is full again, and a new client from an address of its own is served
    // the same way.
    const freshStart = performance.now();
    const status = await freshGet(port, "127.0.2.1");
    const freshMs = performance.now() - freshStart;
    expect(status).toBe(200);

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
    expect(await openOnServer(metricsUrl)).toBeLessThanOrEqual(CAP);
    // The places came from idle connections, the longest idle first (closes seen here a moment later): one
    // for the bot, one for the fresh client, and more for the 100 (as many as arrived while the server was full).
    await expect.poll(() => closed.size, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect([...closed].every((s) => held.indexOf(s) < closed.size + BATCH)).toBe(true);
    console.log(
      `idle connections: ${IDLE} idle from ${ADDRESSES} addresses filled ${CAP} places in ${fillS.toFixed(1)} s; ` +
        `new bot connected and answered in ${botMs.toFixed(0)} ms; ` +
        `fresh GET /api answered 200 in ${freshMs.toFixed(0)} ms; ${closed.size} idle connections closed to make room`,
    );
  }, 120_000);
});

describe("idle keep-alive connections, without eviction in play", () => {
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
