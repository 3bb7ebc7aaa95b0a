// `npm run bench -- --cluster` (issue 36, part 3): what a cross-node match adds per tick, against a match on one
// node, in the same run. Two cluster nodes (child processes of `node server/main.ts --cluster`, no house bots,
// logging at `warn`) on one PostgreSQL schema (DATABASE_URL) and a nats-server started on a free port, as the
// cluster tests do. Each repetition plays two matches of fresh instant-reply bots (both answer an observation the
// moment it arrives; the match runs until the zone knocks both out): one with both bots on the first node (the
// match runs there, as the single server's path), one with a bot on each node (one seat plays through NATS).
// Per tick: the interval between two observations as one bot sees them (from tick 10), median and p95, and the
// CPU time of both node processes divided by the ticks (the whole server: sockets, runner, pool, NATS client).
// Also the encoding of one observation frame between nodes, msgpackr (what the cluster sends) against JSON.
// Failover journaling (part 5): the two nodes above run with --no-failover-journal, so their rows are cross-node
// play alone; a third node journals each tick's inputs (the default), and a one-node match on it against one on
// the first node, in the same repetition, gives the journal's added latency per tick and its CPU per tick (the
// match's node plus the nats-server process, which stores each entry).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Packr } from "msgpackr";
import WebSocket from "ws";
import { type Child, startChild } from "../helpers/child-server.ts";
import { type Nats, startNats } from "../helpers/nats.ts";
import { freshDatabaseUrl } from "../helpers/server.ts";
import { cpuMs, idleCpu, type Phase, playPhase, register } from "./cluster-load.ts";

const FROM_TICK = 10;

export interface ClusterRow {
  name: string;
  values: number[];
  unit: string;
}

interface Played {
  intervals: number[];
  ticks: number;
  observation: string;
}

/** Two instant-reply bots on `nodes[0]` and `nodes[1]` play one match; the first bot's intervals are kept. */
async function playOne(nodes: [Child, Child], tag: string): Promise<Played> {
  const tokens = await Promise.all(nodes.map((n, i) => register(n, `${tag}-${i}`)));
  const times: number[] = [];
  let observation = "";
  let ticks = 0;
  const sockets = nodes.map(
    (n, i) => new WebSocket(n.wsUrl, { headers: { authorization: `Bearer ${tokens[i]}` } }),
  );
  const ended = sockets.map(
    (ws, i) =>
      new Promise<void>((resolve, reject) => {
        ws.on("error", reject);
        ws.on("message", (data) => {
          const text = data.toString();
          const type = /"type":"(\w+)"/.exec(text)?.[1];
          if (type === "hello") ws.send('{"type":"ready"}');
          else if (type === "observation") {
            const tick = Number(/"tick":(\d+)/.exec(text)?.[1] ?? 0);
            ws.send(`{"type":"turn","tick":${tick}}`);
            if (i === 0) {
              if (tick >= FROM_TICK) times.push(performance.now());
              observation = text;
              ticks = tick;
            }
          } else if (type === "end") resolve();
        });
        ws.on("open", () => ws.send('{"type":"queue","version":"v1"}'));
      }),
  );
  await Promise.race([
    Promise.all(ended),
    new Promise((_, reject) => setTimeout(() => reject(new Error(`match ${tag} did not end`)), 120_000)),
  ]);
  for (const ws of sockets) ws.close();
  return { intervals: times.slice(1).map((t, i) => t - times[i]!), ticks, observation };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length * p) / 100))] ?? 0;
};

/** Encode and decode of one frame, each way, `n` times: µs per frame. */
function encodings(observation: string): { msgpackr: number; json: number; bytes: [number, number] } {
  const packr = new Packr({ useRecords: true, mapsAsObjects: true });
  const frame = { p: true, b: Buffer.from(observation) };
  const n = 20_000;
  let t0 = performance.now();
  let packed: Uint8Array = new Uint8Array();
  for (let i = 0; i < n; i++) {
    packed = packr.pack(frame);
    packr.unpack(packed);
  }
  const mp = ((performance.now() - t0) * 1000) / n;
  t0 = performance.now();
  let text = "";
  for (let i = 0; i < n; i++) {
    text = JSON.stringify({ p: true, s: observation });
    JSON.parse(text);
  }
  const js = ((performance.now() - t0) * 1000) / n;
  return { msgpackr: mp, json: js, bytes: [packed.length, Buffer.byteLength(text)] };
}

/** Bots' reply delay at load: 40 ms, a bot a continent away (25 ticks a second at most). */
const LOAD_REPLY_MS = 40;

/** `load`: matches at once in the loaded phases (cluster-load.ts); 0 leaves them out. */
export async function clusterBench(reps: number, load = 16): Promise<ClusterRow[]> {
  if (!process.env.DATABASE_URL)
    throw new Error("npm run bench -- --cluster needs DATABASE_URL (PostgreSQL)");
  let nats: Nats | null = null;
  let db: Awaited<ReturnType<typeof freshDatabaseUrl>> | null = null;
  const nodes: Child[] = [];
  const dirs: string[] = [];
  try {
    nats = await startNats();
    db = await freshDatabaseUrl();
    for (let i = 0; i < 3; i++) {
      const dir = mkdtempSync(join(tmpdir(), `ladder-cluster-bench-${i}-`));
      dirs.push(dir);
      nodes.push(
        await startChild(dir, db.url, {
          args: ["--cluster", nats.url, "--no-house-bots", ...(i < 2 ? ["--no-failover-journal"] : [])],
          quietLevel: "warn",
        }),
      );
    }
    // The nodes see each other before the first match (placement reads the heartbeats).
    for (const n of nodes)
      for (;;) {
        const s = (await (await fetch(`${n.url}/api/status`)).json()) as { cluster?: { nodes: unknown[] } };
        if ((s.cluster?.nodes.length ?? 0) >= 3) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    const [a, b, c] = nodes as [Child, Child, Child];
    const natsPid = nats.proc.pid!;
    const rows = new Map<string, ClusterRow>();
    const add = (name: string, value: number, unit: string) => {
      const r = rows.get(name) ?? { name, values: [], unit };
      r.values.push(value);
      rows.set(name, r);
    };
    let observation = "";
    for (let r = 0; r < reps; r++) {
      const cpu0 = cpuMs(a.proc.pid!) + cpuMs(b.proc.pid!);
      const local = await playOne([a, a], `bl${r}`);
      const cpu1 = cpuMs(a.proc.pid!) + cpuMs(b.proc.pid!);
      const cross = await playOne([a, b], `bx${r}`);
      const cpu2 = cpuMs(a.proc.pid!) + cpuMs(b.proc.pid!);
      observation = cross.observation;
      add("one-node match: tick interval p50", pct(local.intervals, 50), "ms");
      add("cross-node match: tick interval p50", pct(cross.intervals, 50), "ms");
      add("added latency per tick, p50", pct(cross.intervals, 50) - pct(local.intervals, 50), "ms");
      add("one-node match: tick interval p95", pct(local.intervals, 95), "ms");
      add("cross-node match: tick interval p95", pct(cross.intervals, 95), "ms");
      add("added latency per tick, p95", pct(cross.intervals, 95) - pct(local.intervals, 95), "ms");
      add("one-node match: CPU of both nodes per tick", (cpu1 - cpu0) / Math.max(1, local.ticks), "ms");
      add("cross-node match: CPU of both nodes per tick", (cpu2 - cpu1) / Math.max(1, cross.ticks), "ms");
      // Failover journaling: the same one-node match on the journaling node, against the first node's above.
      const off = { node: cpu1 - cpu0, nats: 0 };
      const n0 = cpuMs(natsPid);
      const a0 = cpuMs(a.proc.pid!);
      const plain = await playOne([a, a], `bo${r}`);
      off.node = cpuMs(a.proc.pid!) - a0;
      off.nats = cpuMs(natsPid) - n0;
      const c0 = cpuMs(c.proc.pid!);
      const n1 = cpuMs(natsPid);
      const journaled = await playOne([c, c], `bj${r}`);
      const on = { node: cpuMs(c.proc.pid!) - c0, nats: cpuMs(natsPid) - n1 };
      add("journaling off: tick interval p50", pct(plain.intervals, 50), "ms");
      add("journaling on: tick interval p50", pct(journaled.intervals, 50), "ms");
      add(
        "failover journaling: added latency per tick, p50",
        pct(journaled.intervals, 50) - pct(plain.intervals, 50),
        "ms",
      );
      add(
        "failover journaling: added latency per tick, p95",
        pct(journaled.intervals, 95) - pct(plain.intervals, 95),
        "ms",
      );
      add(
        "journaling off: CPU per tick (match's node + NATS)",
        (off.node + off.nats) / Math.max(1, plain.ticks),
        "ms",
      );
      add(
        "journaling on: CPU per tick (match's node + NATS)",
        (on.node + on.nats) / Math.max(1, journaled.ticks),
        "ms",
      );
      add("failover journaling: NATS server CPU per tick", on.nats / Math.max(1, journaled.ticks), "ms");
      if (load > 0) {
        const many = (pair: [Child, Child]) => Array.from({ length: load }, () => pair);
        // What the three nodes and NATS burn with nothing to play (heartbeats, leases, the queue's diff), taken
        // off each phase's CPU so that the per-tick figures are the matches' own.
        const idle = await idleCpu(nodes, natsPid);
        add("cluster idle: CPU of 3 nodes + NATS", idle, "ms/s");
        const phases: [string, Phase][] = [
          ["one-node", await playPhase(many([a, a]), nodes, natsPid, `ll${r}`, LOAD_REPLY_MS)],
          ["cross-node", await playPhase(many([a, b]), nodes, natsPid, `lx${r}`, LOAD_REPLY_MS)],
          ["journaled", await playPhase(many([c, c]), nodes, natsPid, `lj${r}`, LOAD_REPLY_MS)],
        ];
        const at = `at load (${load} matches, bots reply in ${LOAD_REPLY_MS} ms)`;
        const base = phases[0]![1];
        const perTick = (p: Phase) =>
          (p.cpu.nodes + p.cpu.nats - (idle * p.ms) / 1000) / Math.max(1, p.ticks);
        for (const [name, p] of phases) {
          add(`${at}: ${name}, most matches at once`, p.overlap, "");
          add(`${at}: ${name}, ticks played`, p.ticks, "");
          add(`${at}: ${name}, cluster CPU per tick (3 nodes + NATS, less idle)`, perTick(p), "ms");
          add(`${at}: ${name}, NATS server CPU per tick`, p.cpu.nats / Math.max(1, p.ticks), "ms");
          add(`${at}: ${name}, server's time per tick p50`, pct(p.added, 50), "ms");
          add(`${at}: ${name}, server's time per tick p95`, pct(p.added, 95), "ms");
          if (p === base) continue;
          add(`${at}: ${name}, extra CPU per tick over one-node`, perTick(p) - perTick(base), "ms");
          add(`${at}: ${name}, added latency per tick p50`, pct(p.added, 50) - pct(base.added, 50), "ms");
        }
      }
    }
    const e = encodings(observation);
    add("observation frame between nodes, msgpackr (encode+decode)", e.msgpackr, "µs");
    add("the same frame as JSON (encode+decode)", e.json, "µs");
    add("its size: msgpackr", e.bytes[0], "bytes");
    add("its size: JSON", e.bytes[1], "bytes");
    return [...rows.values()];
  } finally {
    for (const n of nodes) if (n.proc.exitCode === null) n.proc.kill("SIGKILL");
    await Promise.all(nodes.map((n) => n.exited));
    await nats?.stop();
    await db?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

export function printCluster(rows: ClusterRow[], reps: number): void {
  const f = (v: number) => (Math.abs(v) >= 100 ? Math.round(v).toString() : v.toFixed(2));
  console.log(
    `\ncluster (issue 36): two nodes without the failover journal and one with it, one match at a time, then many at once; median of ${reps} [range]\n`,
  );
  console.log("| benchmark | figure |");
  console.log("|---|---|");
  for (const r of rows) {
    const s = [...r.values].sort((x, y) => x - y);
    const med = s[Math.floor(s.length / 2)]!;
    const range = s.length > 1 ? ` [${f(s[0]!)} – ${f(s.at(-1)!)}]` : "";
    console.log(`| ${r.name} | ${f(med)} ${r.unit}${range} |`);
  }
}
