// `npm run bench -- --storm` (issues 20 and 31): a connect storm against a playing ladder. The real server runs
// as a child process (server/main.ts) with six bots playing instant-reply matches against the house bots; after
// a calm window, 5,000 WebSocket connects with made-up tokens arrive in a burst from another process, spread
// over 50 loopback addresses (127.0.0.10-59: 100 each, under every per-address budget, as a storm from many
// machines would be). Reported for the embedded database and for PostgreSQL (when 127.0.0.1:5432 answers), for
// the default server and with its budget of unauthenticated upgrades lifted (--upgrades-per-second 0):
// `GET /api` p50/p99 on a keep-alive connection opened before the storm and on a new connection per request,
// and the running matches' tick round trip p50/p99, each beside the calm window of the same run. Targets:
// `GET /api` p99 on the open connection under 100 ms in the storm; tick time within 2x of calm.

import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import WebSocket from "ws";
import { type Child, startChild } from "../helpers/child-server.ts";

const STORM = 5_000;
const IN_FLIGHT = 1_000;
const PLAYERS = 6;
const PG_BASE = "postgres://postgres@127.0.0.1:5432/test";
/** The storm's 50 source addresses (Linux routes all of 127/8 to lo). */
const STORM_ADDRESSES = Array.from({ length: 50 }, (_, i) => `127.0.0.${10 + i}`);

interface Window {
  /** GET /api on the keep-alive connection opened before the storm. */
  api: number[];
  /** GET /api on a new connection each time. */
  fresh: number[];
  ticks: number[];
  /** Probes of GET /api that failed (refused, reset, or not 200), and how the failed connections ended. */
  failed: number;
  failures: Record<string, number>;
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freshSchema(): Promise<{ url: string; drop(): Promise<void> } | null> {
  const schema = `storm_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: PG_BASE, connectionTimeoutMillis: 2_000 });
  try {
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  } catch {
    return null;
  } finally {
    await admin.end().catch(() => {});
  }
  const url = new URL(PG_BASE);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_BASE });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
    },
  };
}

/** A bot that plays match after match with instant replies; each tick's round trip goes to `sink()`. */
async function player(child: Child, name: string, sink: () => number[]): Promise<WebSocket> {
  const res = await fetch(`${child.url}/api/bots`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, owner: `${name}-owner` }),
  });
  const { token } = (await res.json()) as { token: string };
  const ws = new WebSocket(child.wsUrl, { headers: { authorization: `Bearer ${token}` } });
  await new Promise((r) => ws.once("open", r));
  let sentAt = 0;
  ws.on("message", (data) => {
    const m = JSON.parse(data.toString()) as { type: string; tick?: number };
    if (m.type === "hello") ws.send('{"type":"ready"}');
    if (m.type === "observation") {
      if (sentAt) sink().push(performance.now() - sentAt);
      sentAt = performance.now();
      ws.send(`{"type":"turn","tick":${m.tick}}`);
    }
    if (m.type === "end") {
      sentAt = 0;
      ws.send('{"type":"queue","version":"v1"}');
    }
  });
  ws.send('{"type":"queue","version":"v1"}');
  return ws;
}

/** One connect with a made-up token: how it ended. */
function badConnect(url: string, i: number): Promise<string> {
  return new Promise((resolve) => {
    // From 50 other loopback addresses than the players and the probes, in turn: each address's budgets see
    // 100 connects and 100 failures, under the defaults (600 and 120 a minute).
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer storm-${i}` },
      handshakeTimeout: 30_000,
      localAddress: STORM_ADDRESSES[i % STORM_ADDRESSES.length]!,
    });
    let code = "";
    ws.on("unexpected-response", (_req, res) => {
      code = `http ${res.statusCode}`;
      res.resume();
      ws.terminate();
    });
    ws.on("message", (d) => {
      code ||= `ws ${(JSON.parse(d.toString()) as { code?: string }).code}`;
    });
    ws.on("close", () => resolve(code || "closed"));
    ws.on("error", (e) => {
      code ||= `error ${(e as { code?: string }).code ?? e.message}`;
    });
  });
}

interface Figures {
  apiP50: number;
  apiP99: number;
  apiMax: number;
  freshP50: number;
  freshP99: number;
  tickP50: number;
  tickP99: number;
}

export interface StormResult {
  database: string;
  limits: string;
  calm: Figures;
  storm: Figures;
  releasedS: number;
  outcomes: Record<string, number>;
  /** GET /api probes that failed during the storm, and how. */
  apiFailed: number;
  apiFailures: Record<string, number>;
}

/** `GET /api` on `agent`'s connection (or a new one): the milliseconds, or null when it failed (counted). */
function timedGet(url: string, agent: Agent | false, win: () => Window): Promise<number | null> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = get(`${url}/api`, { agent }, (res) => {
      res.resume();
      res.on("end", () => {
        if (res.statusCode === 200) return resolve(performance.now() - t0);
        const w = win();
        w.failed++;
        w.failures[`http ${res.statusCode}`] = (w.failures[`http ${res.statusCode}`] ?? 0) + 1;
        resolve(null);
      });
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      const w = win();
      w.failed++;
      w.failures[e.code ?? "error"] = (w.failures[e.code ?? "error"] ?? 0) + 1;
      resolve(null);
    });
  });
}

const figures = (w: Window): Figures => ({
  apiP50: pct(w.api, 50),
  apiP99: pct(w.api, 99),
  apiMax: Math.max(...w.api),
  freshP50: pct(w.fresh, 50),
  freshP99: pct(w.fresh, 99),
  tickP50: pct(w.ticks, 50),
  tickP99: pct(w.ticks, 99),
});

async function stormOnce(database: "embedded" | "postgres", budgetOn: boolean): Promise<StormResult | null> {
  const schema = database === "postgres" ? await freshSchema() : null;
  if (database === "postgres" && !schema) return null;
  const dataDir = mkdtempSync(join(tmpdir(), "ladder-storm-"));
  const child = await startChild(dataDir, schema?.url, {
    quietLevel: "warn",
    args: [
      "--tick-ms",
      "1000",
      "--listen-backlog",
      "4096",
      ...(budgetOn ? [] : ["--upgrades-per-second", "0"]),
    ],
  });
  const calm: Window = { api: [], fresh: [], ticks: [], failed: 0, failures: {} };
  const storm: Window = { api: [], fresh: [], ticks: [], failed: 0, failures: {} };
  let win = calm;
  const players = await Promise.all(
    Array.from({ length: PLAYERS }, (_, i) => player(child, `storm-p${i}`, () => win.ticks)),
  );
  let probing = true;
  // One keep-alive connection, opened now and used every 20 ms (well inside the keep-alive timeout): what a
  // client already connected sees of the storm.
  const kept = new Agent({ keepAlive: true, maxSockets: 1 });
  const probe = (async () => {
    while (probing) {
      const ms = await timedGet(child.url, kept, () => win);
      if (ms !== null) win.api.push(ms);
      await sleep(20);
    }
  })();
  // And a new connection each time: what a client arriving during the storm sees.
  const freshProbe = (async () => {
    while (probing) {
      const ms = await timedGet(child.url, false, () => win);
      if (ms !== null) win.fresh.push(ms);
      await sleep(50);
    }
  })();
  await sleep(6_000); // matches start (the house bots wait 2 s) and settle
  calm.api.length = 0;
  calm.ticks.length = 0;
  await sleep(5_000);
  win = storm;
  const t0 = performance.now();
  // The storm comes from its own process: in this one its thousands of sockets would delay the players' and
  // the probe's own reading, and that client-side lag would be measured as the server's.
  const stormer = fork(fileURLToPath(import.meta.url), ["--storm-client", child.wsUrl], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const outcomes = await new Promise<Record<string, number>>((resolve) =>
    stormer.once("message", (m) => resolve(m as Record<string, number>)),
  );
  const releasedS = (performance.now() - t0) / 1000;
  stormer.kill();
  await sleep(500);
  probing = false;
  await probe;
  await freshProbe;
  kept.destroy();
  for (const p of players) p.terminate();
  child.proc.kill("SIGKILL");
  await child.exited;
  rmSync(dataDir, { recursive: true, force: true });
  await schema?.drop();
  return {
    database,
    limits: budgetOn ? "default (200 upgrades/s)" : "--upgrades-per-second 0",
    calm: figures(calm),
    storm: figures(storm),
    releasedS,
    outcomes,
    apiFailed: storm.failed,
    apiFailures: storm.failures,
  };
}

export async function stormBench(runs: number): Promise<StormResult[]> {
  const out: StormResult[] = [];
  for (let r = 0; r < runs; r++)
    for (const database of ["embedded", "postgres"] as const)
      for (const budgetOn of [true, false]) {
        const res = await stormOnce(database, budgetOn);
        if (res) out.push(res);
        else if (r === 0 && budgetOn)
          console.log(`(no PostgreSQL at ${PG_BASE}: the ${database} runs are left out)`);
      }
  return out;
}

export function printStorm(results: StormResult[]): void {
  const f = (v: number) => (v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toFixed(2));
  const pair = (a: number, b: number) => `${f(a)} → ${f(b)}`;
  console.log(
    "\n| database | upgrade budget | GET /api open conn. p50 calm → storm (ms) | p99 calm → storm (ms) | longest in storm (ms) | GET /api new conn. p50 calm → storm (ms) | p99 calm → storm (ms) | tick p50 calm → storm (ms) | tick p99 calm → storm (ms) | storm released | failed GET /api | answers |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const answers = Object.entries(r.outcomes)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k}: ${n}`)
      .join(", ");
    console.log(
      `| ${r.database} | ${r.limits} | ${pair(r.calm.apiP50, r.storm.apiP50)} | ${pair(r.calm.apiP99, r.storm.apiP99)} | ${f(r.storm.apiMax)} | ${pair(r.calm.freshP50, r.storm.freshP50)} | ${pair(r.calm.freshP99, r.storm.freshP99)} | ${pair(r.calm.tickP50, r.storm.tickP50)} | ${pair(r.calm.tickP99, r.storm.tickP99)} | ${r.releasedS.toFixed(1)} s | ${r.apiFailed}${r.apiFailed ? ` (${JSON.stringify(r.apiFailures)})` : ""} | ${answers} |`,
    );
  }
  // Ranges over the runs, per database and setting: what docs/performance.md reports.
  const groups = new Map<string, StormResult[]>();
  for (const r of results)
    groups.set(`${r.database}, ${r.limits}`, [...(groups.get(`${r.database}, ${r.limits}`) ?? []), r]);
  console.log("\nranges over the runs (storm window; calm in brackets):");
  for (const [k, rs] of groups) {
    const range = (pick: (x: Figures) => number) => {
      const v = rs.map((r) => pick(r.storm));
      const c = rs.map((r) => pick(r.calm));
      return `${f(Math.min(...v))}-${f(Math.max(...v))} [${f(Math.min(...c))}-${f(Math.max(...c))}]`;
    };
    console.log(
      `${k} (${rs.length} runs): open conn. p50 ${range((x) => x.apiP50)} ms, p99 ${range((x) => x.apiP99)} ms; new conn. p50 ${range((x) => x.freshP50)} ms, p99 ${range((x) => x.freshP99)} ms; tick p99 ${range((x) => x.tickP99)} ms`,
    );
  }
  console.log(
    "\ntargets: GET /api p99 on the open connection < 100 ms in the storm; storm tick p50 and p99 within 2x of calm (same run)",
  );
}

/** The storm's own process: 5,000 bad-token connects, IN_FLIGHT at a time; sends the outcome counts back. */
async function stormClient(url: string): Promise<void> {
  const outcomes: Record<string, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < STORM) {
        const o = await badConnect(url, next++);
        outcomes[o] = (outcomes[o] ?? 0) + 1;
      }
    }),
  );
  process.send?.(outcomes);
}

if (process.argv[2] === "--storm-client") await stormClient(process.argv[3]!);
