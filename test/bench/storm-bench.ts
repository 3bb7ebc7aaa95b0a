// `npm run bench -- --storm` (issue 20): a connect storm against a playing ladder. The real server runs as a
// child process (server/main.ts) with six bots playing instant-reply matches against the house bots; after a
// calm window, 5,000 WebSocket connects with made-up tokens arrive in a burst from this process. Reported for
// the embedded database and for PostgreSQL (when 127.0.0.1:5432 answers), with the server's default
// per-address budgets and with them lifted (what the in-memory token check alone buys): `GET /api` p50/p99 and
// its longest wait, and the running matches' tick round trip p50/p99, each as a ratio to the calm window of the
// same run. Targets: `GET /api` never unanswered for more than 1 s; tick time within 2x of calm.

import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
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
const STORM_ADDRESS = "127.0.0.2";

interface Window {
  api: number[];
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
    // From another loopback address than the players and the probe: the storm's address is the one its
    // budgets and connection cap fall on, as they would for an attacker.
    const ws = new WebSocket(url, {
      headers: { authorization: `Bearer storm-${i}` },
      handshakeTimeout: 30_000,
      localAddress: STORM_ADDRESS,
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

export interface StormResult {
  database: string;
  limits: string;
  calm: { apiP50: number; apiP99: number; tickP50: number; tickP99: number };
  storm: { apiP50: number; apiP99: number; apiMax: number; tickP50: number; tickP99: number };
  releasedS: number;
  outcomes: Record<string, number>;
  /** GET /api probes that failed during the storm, and how. */
  apiFailed: number;
  apiFailures: Record<string, number>;
}

async function stormOnce(database: "embedded" | "postgres", limitsOn: boolean): Promise<StormResult | null> {
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
      ...(limitsOn
        ? []
        : [
            "--socket-connects-per-minute",
            "10000000",
            "--socket-auth-failures-per-minute",
            "10000000",
            "--max-connections-per-address",
            "0",
          ]),
    ],
  });
  const calm: Window = { api: [], ticks: [], failed: 0, failures: {} };
  const storm: Window = { api: [], ticks: [], failed: 0, failures: {} };
  let win = calm;
  const players = await Promise.all(
    Array.from({ length: PLAYERS }, (_, i) => player(child, `storm-p${i}`, () => win.ticks)),
  );
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const t0 = performance.now();
      const ok = await fetch(`${child.url}/api`).then(
        (r) => r.arrayBuffer().then(() => r.ok),
        (e: { cause?: { code?: string } }) => {
          const code = e.cause?.code ?? "error";
          win.failures[code] = (win.failures[code] ?? 0) + 1;
          return false;
        },
      );
      win.api.push(performance.now() - t0);
      if (!ok) win.failed++;
      await sleep(20);
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
  for (const p of players) p.terminate();
  child.proc.kill("SIGKILL");
  await child.exited;
  rmSync(dataDir, { recursive: true, force: true });
  await schema?.drop();
  return {
    database,
    limits: limitsOn ? "default budgets" : "budgets lifted",
    calm: {
      apiP50: pct(calm.api, 50),
      apiP99: pct(calm.api, 99),
      tickP50: pct(calm.ticks, 50),
      tickP99: pct(calm.ticks, 99),
    },
    storm: {
      apiP50: pct(storm.api, 50),
      apiP99: pct(storm.api, 99),
      apiMax: Math.max(...storm.api),
      tickP50: pct(storm.ticks, 50),
      tickP99: pct(storm.ticks, 99),
    },
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
      for (const limitsOn of [true, false]) {
        const res = await stormOnce(database, limitsOn);
        if (res) out.push(res);
        else if (r === 0 && limitsOn)
          console.log(`(no PostgreSQL at ${PG_BASE}: the ${database} runs are left out)`);
      }
  return out;
}

export function printStorm(results: StormResult[]): void {
  const f = (v: number) => (v >= 100 ? Math.round(v).toLocaleString("en-US") : v.toFixed(2));
  console.log(
    "\n| database | per-address budgets | GET /api p50 calm → storm (ratio) | GET /api p99 calm → storm (ratio) | longest GET /api in the storm | tick p50 calm → storm (ratio) | tick p99 calm → storm (ratio) | storm released | failed GET /api | answers |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|");
  for (const r of results) {
    const pair = (a: number, b: number) => `${f(a)} → ${f(b)} ms (${(b / a).toFixed(2)}x)`;
    const answers = Object.entries(r.outcomes)
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k}: ${n}`)
      .join(", ");
    console.log(
      `| ${r.database} | ${r.limits} | ${pair(r.calm.apiP50, r.storm.apiP50)} | ${pair(r.calm.apiP99, r.storm.apiP99)} | ${f(r.storm.apiMax)} ms | ${pair(r.calm.tickP50, r.storm.tickP50)} | ${pair(r.calm.tickP99, r.storm.tickP99)} | ${r.releasedS.toFixed(1)} s | ${r.apiFailed}${r.apiFailed ? ` (${JSON.stringify(r.apiFailures)})` : ""} | ${answers} |`,
    );
  }
  console.log(
    "\ntargets: longest GET /api in the storm ≤ 1,000 ms; storm tick p50 and p99 within 2x of calm (same run)",
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
