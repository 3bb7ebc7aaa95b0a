// Starts the real server (buildApp) on port 0 for integration tests, on PGlite in a temp dir, or on a fresh
// PostgreSQL schema when DATABASE_URL is set, and gives tests a small real WebSocket bot client.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import WebSocket from "ws";
import { type App, type AppDeps, buildApp } from "../../server/app.ts";
import { type Config, testConfig } from "../../server/config.ts";
import { seedPglite } from "./pglite-template.ts";

export interface TestServer {
  app: App;
  url: string;
  wsUrl: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Registers a bot on the anonymous ladder; returns its token. */
  register(name: string, owner?: string): Promise<string>;
  get<T = unknown>(path: string): Promise<{ status: number; body: T }>;
  stop(): Promise<void>;
}

/** A fresh, isolated database: a new schema on the PostgreSQL server when DATABASE_URL is set. */
export async function freshDatabaseUrl(): Promise<{ url: string | undefined; drop(): Promise<void> }> {
  const base = process.env.DATABASE_URL;
  if (!base) return { url: undefined, async drop() {} };
  const schema = `srv_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  const url = new URL(base);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

export async function startServer(over: Partial<Config> = {}, deps: AppDeps = {}): Promise<TestServer> {
  const dataDir = over.dataDir ?? mkdtempSync(join(tmpdir(), "ladder-srv-"));
  const db = over.databaseUrl ? { url: over.databaseUrl, async drop() {} } : await freshDatabaseUrl();
  if (!db.url) seedPglite(dataDir);
  const config = testConfig({
    workers: 1,
    tickMs: 1000,
    startupMs: 3000,
    reconnectGraceMs: 3000,
    matchIntervalMs: 0,
    ...over,
    dataDir,
    ...(db.url ? { databaseUrl: db.url } : {}),
  });
  const app = await buildApp(config, { houseWaitMs: 0, ...deps });
  const port = await app.listen();
  const url = `http://127.0.0.1:${port}`;
  return {
    app,
    url,
    wsUrl: `ws://127.0.0.1:${port}/bot`,
    dataDir,
    databaseUrl: db.url,
    async register(name, owner) {
      const res = await fetch(`${url}/api/bots`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(owner ? { name, owner } : { name }),
      });
      const body = (await res.json()) as { token?: string; error?: string };
      if (res.status !== 201 || !body.token)
        throw new Error(`registration failed: ${res.status} ${JSON.stringify(body)}`);
      return body.token;
    },
    async get(path) {
      const res = await fetch(`${url}${path}`);
      return { status: res.status, body: await res.json() };
    },
    async stop() {
      await app.close();
      await db.drop();
      if (!over.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Msg = { type: string; [k: string]: unknown };

/** A real WebSocket bot client that records every message and lets a test await the next one of a type. */
export class BotClient {
  readonly ws: WebSocket;
  readonly received: Msg[] = [];
  closeCode: number | null = null;
  closeReason = "";
  private waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void; reject: (e: Error) => void }[] =
    [];
  private readonly opened: Promise<void>;
  private readonly closedP: Promise<number>;

  constructor(wsUrl: string, token: string | null) {
    this.ws = new WebSocket(wsUrl, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    this.opened = new Promise((resolve, reject) => {
      this.ws.once("open", () => resolve());
      this.ws.once("error", reject);
    });
    this.closedP = new Promise((resolve) => {
      this.ws.on("close", (code, reason) => {
        this.closeCode = code;
        this.closeReason = reason.toString();
        for (const w of this.waiters)
          w.reject(new Error(`socket closed (${code} ${this.closeReason}) while waiting`));
        this.waiters = [];
        resolve(code);
      });
    });
    this.ws.on("error", () => {});
    this.ws.on("message", (data) => {
      let m: Msg;
      try {
        m = JSON.parse(data.toString()) as Msg;
      } catch {
        return;
      }
      this.received.push(m);
      const i = this.waiters.findIndex((w) => w.pred(m));
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(m);
    });
  }

  open(): Promise<void> {
    return this.opened;
  }
  closed(): Promise<number> {
    return this.closedP;
  }

  send(m: unknown): void {
    this.ws.send(typeof m === "string" ? m : JSON.stringify(m));
  }

  /** The next message (from now on, or already received after index `since`) matching type/predicate. */
  next<T extends Msg = Msg>(
    type: string,
    pred: (m: Msg) => boolean = () => true,
    timeoutMs = 15_000,
    since?: number,
  ): Promise<T> {
    const match = (m: Msg) => m.type === type && pred(m);
    if (since !== undefined) {
      const found = this.received.slice(since).find(match);
      if (found) return Promise.resolve(found as T);
    }
    return new Promise<T>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`timed out waiting for ${type}`)), timeoutMs);
      this.waiters.push({
        pred: match,
        resolve: (m) => {
          clearTimeout(t);
          resolve(m as T);
        },
        reject: (e) => {
          clearTimeout(t);
          reject(e);
        },
      });
    });
  }

  /** Answers every observation with an idle turn (or `turn(obs)`) until `end`; resolves with the end message. */
  playUntilEnd(
    turn: (obs: Msg) => unknown = (o) => ({ type: "turn", tick: o.tick }),
    timeoutMs = 60_000,
  ): Promise<Msg> {
    const onMsg = (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as Msg;
      if (m.type === "hello") this.send({ type: "ready" });
      if (m.type === "observation") this.send(turn(m));
    };
    this.ws.on("message", onMsg);
    return this.next("end", () => true, timeoutMs).finally(() => this.ws.off("message", onMsg));
  }

  /** Queues and resolves with the `hello` of the match the bot is paired into. */
  async queueForMatch(version = "v1"): Promise<Msg> {
    const since = this.received.length;
    this.send({ type: "queue", version });
    await this.next("queued", undefined, 15_000, since);
    return this.next("hello", undefined, 15_000, since);
  }

  /** Answers each observation from now on with `turn(obs)` (nothing when it returns undefined); returns a stop. */
  autoplay(turn: (obs: Msg) => unknown = (o) => ({ type: "turn", tick: o.tick })): () => void {
    const onMsg = (data: WebSocket.RawData) => {
      const m = JSON.parse(data.toString()) as Msg;
      if (m.type !== "observation") return;
      const t = turn(m);
      if (t !== undefined) this.send(t);
    };
    this.ws.on("message", onMsg);
    return () => this.ws.off("message", onMsg);
  }

  close(): void {
    this.ws.close();
  }
}
