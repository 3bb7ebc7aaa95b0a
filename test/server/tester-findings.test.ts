// What the outside testers found (issue 14 part 6), one test each: a banned account's public profile, the
// `nosniff` header on every answer, slow and greedy clients (header and request timeouts, the per-address
// connection cap), reserved bot names, and the second stop signal closing every socket with 1012. The single
// auth budget is in accounts-security.test.ts, the documentation links in docs-crawl.test.ts, the /create-bot
// simulator command in test/sim/downloads.test.ts, GET /api's endpoint list in discovery.test.ts, and the
// reconnect grace as a time in match-recovery.test.ts and test/unit/reconnect-grace.test.ts.
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RESERVED_BOT_NAMES } from "../../server/accounts/account-bots.ts";
import { call, freePort, type SignedIn, signUp, startAccountServer } from "../helpers/accounts.ts";
import { seededDataDir } from "../helpers/pglite-template.ts";
import { BotClient, type TestServer } from "../helpers/server.ts";

const HEADERS_TIMEOUT_MS = 1_000;
const REQUEST_TIMEOUT_MS = 2_000;
const PER_ADDRESS = 8;

let srv: TestServer;
let ada: SignedIn;
let root: SignedIn;

beforeAll(async () => {
  srv = await startAccountServer({
    adminEmails: ["root@example.com"],
    headersTimeoutMs: HEADERS_TIMEOUT_MS,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    maxConnectionsPerAddress: PER_ADDRESS,
  });
  [ada, root] = await Promise.all([
    signUp(srv, "ada@example.com", "ada"),
    signUp(srv, "root@example.com", "root"),
  ]);
}, 60_000);

afterAll(async () => {
  await srv?.stop();
});

describe("a banned account's public profile", () => {
  it("answers 404 on GET /api/users/<handle> and on /user/<handle> while the ban lasts (SPEC 4.1)", async () => {
    const made = await call(srv.url, "POST", "/api/account/bots", {
      token: ada.access,
      body: { name: "ada-one" },
    });
    expect(made.status).toBe(201);
    expect((await call(srv.url, "GET", "/api/users/ada")).status).toBe(200);

    expect((await call(srv.url, "POST", "/api/admin/accounts/ada/ban", { token: root.access })).status).toBe(
      200,
    );
    for (const handle of ["ada", "ADA"]) {
      const api = await call(srv.url, "GET", `/api/users/${handle}`);
      expect(api.status).toBe(404);
      expect(api.body.code).toBe("not_found");
      const page = await fetch(`${srv.url}/user/${handle}`);
      expect(page.status).toBe(404);
      expect(page.headers.get("x-robots-tag")).toBe("noindex");
      expect(await page.text()).not.toContain("ada-one");
    }
    // Unknown and banned answer alike: nothing tells them apart.
    const unknown = await call(srv.url, "GET", "/api/users/nobody-here");
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("not_found");

    expect(
      (await call(srv.url, "POST", "/api/admin/accounts/ada/unban", { token: root.access })).status,
    ).toBe(200);
    expect((await call(srv.url, "GET", "/api/users/ada")).status).toBe(200);
  });
});

describe("X-Content-Type-Options", () => {
  it("is nosniff on JSON answers, errors and pages alike", async () => {
    for (const path of [
      "/api",
      "/api/leaderboard",
      "/api/bots/nope",
      "/api/nowhere",
      "/openapi.json",
      "/",
      "/docs/rules",
    ]) {
      const res = await fetch(`${srv.url}${path}`);
      await res.arrayBuffer();
      expect(`${path} ${res.headers.get("x-content-type-options")}`).toBe(`${path} nosniff`);
    }
    const bad = await fetch(`${srv.url}/api/account/keys`, {
      method: "POST",
      headers: { authorization: `Bearer ${ada.access}`, "content-type": "application/json" },
      body: "{",
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

/** A raw connection from `localAddress` that has sent `data`; resolves with what the server answered. */
function rawClient(data: string, localAddress = "127.0.0.1") {
  const url = new URL(srv.url);
  const socket = connect({ host: url.hostname, port: Number(url.port), localAddress });
  let answer = "";
  socket.on("data", (d) => {
    answer += d.toString();
  });
  socket.on("error", () => {});
  const connected = new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  const closed = new Promise<{ answer: string; at: number }>((resolve) =>
    socket.once("close", () => resolve({ answer, at: Date.now() })),
  );
  void connected.then(() => socket.write(data));
  return { socket, connected, closed };
}

/** Status line and JSON body of a raw HTTP answer. */
function parsed(raw: string): { status: number; body: { error?: unknown; code?: unknown } } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
  const text = raw.slice(raw.indexOf("\r\n\r\n") + 4);
  return { status, body: text ? (JSON.parse(text) as { error?: unknown; code?: unknown }) : {} };
}

describe("slow and greedy clients", () => {
  it("answers a half-sent request's headers with 408 request_timeout once --headers-timeout has passed", async () => {
    const sent = Date.now();
    const c = rawClient("GET /api HTTP/1.1\r\nHost: x\r\nX-Slow: 1");
    await c.connected;
    const { answer, at } = await c.closed;
    expect(parsed(answer)).toEqual({
      status: 408,
      body: { error: "the request was not sent in time", code: "request_timeout" },
    });
    expect(answer).toMatch(/x-content-type-options: nosniff/i);
    // Not before the timeout; and cut off long before Node's default (60 s, checked every 30 s).
    expect(at - sent).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
    expect(at - sent).toBeLessThan(HEADERS_TIMEOUT_MS + 10_000);
  });

  it("answers a body that stops arriving with 408 once --request-timeout has passed", async () => {
    const sent = Date.now();
    const c = rawClient(
      'POST /api/bots HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
    );
    const { answer, at } = await c.closed;
    expect(parsed(answer).status).toBe(408);
    expect(parsed(answer).body.code).toBe("request_timeout");
    expect(at - sent).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(at - sent).toBeLessThan(REQUEST_TIMEOUT_MS + 10_000);
  });

  it("answers oversized headers with 431 in the error shape", async () => {
    const c = rawClient(`GET /api HTTP/1.1\r\nHost: x\r\nX-Big: ${"x".repeat(20_000)}\r\n\r\n`);
    const { answer } = await c.closed;
    expect(parsed(answer)).toMatchObject({ status: 431, body: { code: "headers_too_large" } });
  });

  it("answers a 5,000-character path segment 414 uri_too_long without echoing the address", async () => {
    const long = `secret${"s".repeat(5000)}`;
    for (const [path, accept] of [
      [`/api/bots/${long}`, "application/json"],
      [`/api/matches/${long}/stats`, "application/json"],
      [`/match/${long}`, "text/html"],
    ] as const) {
      const res = await fetch(`${srv.url}${path}`, { headers: { accept } });
      const text = await res.text();
      expect(res.status, path).toBe(414);
      expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
      expect(JSON.parse(text), path).toEqual({
        error: "a segment of the address is too long (at most 100 characters)",
        code: "uri_too_long",
      });
      expect(text).not.toContain("secret");
    }
    // A malformed escape is the router's too: a 400 in the error shape, no address in it.
    const bad = await fetch(`${srv.url}/api/bots/%E0%A4%A`);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: "bad_request" });
  });

  it("a slow-loris run from one address gets its cap of connections, and others are still served", async () => {
    // The attacker: more half-sent requests than one address may hold, from another loopback address.
    const attackers = Array.from({ length: PER_ADDRESS * 3 }, () =>
      rawClient("GET / HTTP/1.1\r\nHost: x\r\n", "127.0.0.2"),
    );
    await Promise.all(attackers.map((a) => a.connected));
    // Those over the cap are refused at once with 429, in the error shape.
    const refused = await Promise.all(
      attackers.map((a) =>
        Promise.race([a.closed, new Promise<null>((r) => setTimeout(() => r(null), HEADERS_TIMEOUT_MS / 2))]),
      ),
    );
    const early = refused.filter((r) => r !== null);
    expect(early).toHaveLength(PER_ADDRESS * 2);
    for (const r of early)
      expect(parsed(r!.answer)).toMatchObject({ status: 429, body: { code: "too_many_connections" } });
    // Meanwhile everyone else gets in, HTTP and WebSocket alike.
    expect((await call(srv.url, "GET", "/api/status")).status).toBe(200);
    const bot = new BotClient(srv.wsUrl, null);
    expect((await bot.next("error")).code).toBe("missing_authorization");
    // The attacker's held connections end at the headers timeout, and the address gets its places back.
    const held = await Promise.all(attackers.map((a) => a.closed));
    expect(held.filter((h) => parsed(h.answer).status === 408)).toHaveLength(PER_ADDRESS);
    const again = rawClient("GET /api/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "127.0.0.2");
    expect(parsed((await again.closed).answer).status).toBe(200);
  });
});

describe("reserved bot names", () => {
  /** Every literal word of the running server's paths that is a valid bot name. */
  function pathWords(): string[] {
    const tree = srv.app.http.printRoutes({ commonPrefix: false });
    const words = new Set(["bot", "human"]); // the two WebSocket paths (not Fastify routes)
    for (const m of tree.matchAll(/[├└]── (\S+)/g))
      for (const w of m[1]!.split("/")) if (/^[A-Za-z0-9_-]{2,24}$/.test(w)) words.add(w);
    return [...words].sort();
  }

  it("refuses every word of the server's paths and every Object.prototype member, in any case", async () => {
    const words = pathWords();
    expect(words.length).toBeGreaterThan(40);
    expect(words.filter((w) => !RESERVED_BOT_NAMES.has(w.toLowerCase()))).toEqual([]);
    const names = [
      ...words,
      "__proto__",
      "constructor",
      "hasOwnProperty",
      "toString",
      "prototype",
      "Admin",
      "ME",
    ];
    const accepted: string[] = [];
    for (const name of names) {
      const r = await call(srv.url, "POST", "/api/account/bots", { token: root.access, body: { name } });
      if (r.status !== 400 || r.body.code !== "invalid_bot" || !String(r.body.error).includes("reserved"))
        accepted.push(`${name}: ${r.status} ${JSON.stringify(r.body)}`);
    }
    expect(accepted).toEqual([]);
  });

  it("refuses them on rename and on the registration route too", async () => {
    const made = await call(srv.url, "POST", "/api/account/bots", {
      token: root.access,
      body: { name: "root-bot" },
    });
    expect(made.status).toBe(201);
    for (const name of ["__proto__", "constructor", "admin"]) {
      const renamed = await call(srv.url, "PUT", "/api/account/bots/root-bot/name", {
        token: root.access,
        body: { name },
      });
      expect({ name, status: renamed.status, code: renamed.body.code }).toEqual({
        name,
        status: 400,
        code: "invalid_bot",
      });
      const registered = await call(srv.url, "POST", "/api/bots", { token: root.access, body: { name } });
      expect({ name, status: registered.status, code: registered.body.code }).toEqual({
        name,
        status: 400,
        code: "invalid_bot",
      });
    }
    // An ordinary name that merely contains a reserved word is fine.
    const fine = await call(srv.url, "PUT", "/api/account/bots/root-bot/name", {
      token: root.access,
      body: { name: "admin-slayer" },
    });
    expect(fine.body).toEqual({ name: "admin-slayer" });
  });
});

// ---- the second stop signal, on the real process ------------------------------------------------------------

const ROOT = new URL("../../", import.meta.url).pathname;

/** `node server/main.ts` with accounts on a free port; resolves once it logs "ladder ready". */
async function startMain(
  dataDir: string,
): Promise<{ proc: ChildProcess; url: string; exited: Promise<number | null> }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { ...process.env };
  delete env.DATABASE_URL; // PGlite in the data dir: the process is what is tested here, not the driver
  const proc = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "server/main.ts",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--public-url",
      url,
      "--data-dir",
      dataDir,
      "--workers",
      "1",
      "--log-level",
      "info",
    ],
    { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  const log: string[] = [];
  const exited = new Promise<number | null>((resolve) => proc.once("exit", (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log.join("")}`)), 60_000);
    proc.stdout!.on("data", (chunk: Buffer) => {
      log.push(chunk.toString());
      if (chunk.toString().includes('"msg":"ladder ready"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    proc.stderr!.on("data", (chunk: Buffer) => log.push(chunk.toString()));
    void exited.then((code) => reject(new Error(`server exited with ${code}:\n${log.join("")}`)));
  });
  return { proc, url, exited };
}

describe("the second stop signal", () => {
  it("closes the /human and /bot sockets with 1012 server restarting, then exits", async () => {
    const dataDir = seededDataDir("ladder-stop-");
    const main = await startMain(dataDir);
    try {
      const pat = await signUp({ url: main.url, dataDir }, "pat@example.com", "pat");
      const reg = await call(main.url, "POST", "/api/account/bots", {
        token: pat.access,
        body: { name: "pat-bot" },
      });
      const bot = new BotClient(`${main.url.replace(/^http/, "ws")}/bot`, reg.body.token as string);
      await bot.open();
      const ticket = (await call(main.url, "POST", "/api/account/play-ticket", { token: pat.access })).body
        .ticket as string;
      const person = new BotClient(
        `${main.url.replace(/^http/, "ws")}/human?ticket=${ticket}&opponent=brawler`,
        null,
      );
      await person.next("hello", undefined, 30_000, 0);
      person.send({ type: "ready" });
      await person.next("observation", undefined, 30_000, 0);

      // The first signal drains: the human game (two-minute turns) keeps the server waiting.
      main.proc.kill("SIGTERM");
      await Promise.all([
        person.next("server_draining", undefined, 10_000, 0),
        bot.next("server_draining", undefined, 10_000, 0),
      ]);
      // The second stops at once, and every socket is told why.
      main.proc.kill("SIGTERM");
      expect(await Promise.all([person.closed(), bot.closed()])).toEqual([1012, 1012]);
      expect([person.closeReason, bot.closeReason]).toEqual(["server restarting", "server restarting"]);
      expect(await main.exited).toBe(1);
    } finally {
      main.proc.kill("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
