// `npm run bench -- --cluster` at load (issue 36): many matches at once on the cluster, so that the per-tick costs of
// cross-node play and of the failover journal are measured where their fixed costs are shared, not on one lone
// match (cluster-bench.ts). Bots answer each observation after a fixed delay (a bot a continent away: `replyMs`), so
// the matches overlap; each phase starts `matches` matches, a pair at a time (both bots queue together and the
// next pair waits for their `hello`s, so the two are paired with each other), and ends when all have ended:
// - one-node: both bots of every match on the first node (journal off): the single server's path;
// - cross-node: one bot on the first node and one on the second: every match has a seat playing through NATS;
// - journaled: both bots on the third node, which journals every tick (the default).
// Per phase: the CPU of the three node processes and of nats-server, divided by the ticks played by every match (the
// cluster's CPU per tick at that load), and the interval between two observations as one bot sees them from tick
// 10, less the bots' reply delay (what the server adds per tick at that load).
import { readFileSync } from "node:fs";
import WebSocket from "ws";
import type { Child } from "../helpers/child-server.ts";

const FROM_TICK = 10;

/** User plus system CPU of a process so far, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

export async function register(node: Child, name: string): Promise<string> {
  const res = await fetch(`${node.url}/api/bots`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, owner: `${name}-o` }),
  });
  if (res.status !== 201) throw new Error(`registering ${name}: ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

export interface Phase {
  /** Ticks played by every match of the phase. */
  ticks: number;
  /** Observation intervals of each match's first bot, from tick 10, less the reply delay (ms). */
  added: number[];
  /** CPU of the nodes and of nats-server over the phase (ms). */
  cpu: { nodes: number; nats: number };
  /** The most matches running at once (seen from the bots: greeted and not ended). */
  overlap: number;
  /** How long the phase took (ms), from the first registration to the last `end`. */
  ms: number;
}

/** CPU of the nodes and of nats-server while nothing plays, in ms per second over `ms` (heartbeats, leases). */
export async function idleCpu(all: readonly Child[], natsPid: number, ms = 3_000): Promise<number> {
  const sum = () => all.reduce((s, n) => s + cpuMs(n.proc.pid!), 0) + cpuMs(natsPid);
  const t0 = performance.now();
  const c0 = sum();
  await new Promise((r) => setTimeout(r, ms));
  return ((sum() - c0) * 1000) / (performance.now() - t0);
}

/** Plays `seats.length` matches, each between a bot on `seats[i][0]` and one on `seats[i][1]`. */
export async function playPhase(
  seats: readonly [Child, Child][],
  all: readonly Child[],
  natsPid: number,
  tag: string,
  replyMs: number,
): Promise<Phase> {
  const t0 = performance.now();
  const tokens = await Promise.all(
    seats.map((pair, m) => Promise.all(pair.map((n, i) => register(n, `${tag}-${m}-${i}`)))),
  );
  const cpu = () => ({ nodes: all.reduce((s, n) => s + cpuMs(n.proc.pid!), 0), nats: cpuMs(natsPid) });
  const before = cpu();
  const added: number[] = [];
  let ticks = 0;
  let running = 0;
  let overlap = 0;
  const ends: Promise<void>[] = [];
  const sockets: WebSocket[] = [];
  for (const [m, pair] of seats.entries()) {
    const greeted: Promise<void>[] = [];
    for (const [i, node] of pair.entries()) {
      const ws = new WebSocket(node.wsUrl, { headers: { authorization: `Bearer ${tokens[m]![i]}` } });
      sockets.push(ws);
      let last = 0;
      let hello!: () => void;
      greeted.push(new Promise<void>((r) => (hello = r)));
      ends.push(
        new Promise<void>((resolve, reject) => {
          ws.on("error", reject);
          ws.on("message", (data) => {
            const text = data.toString();
            const type = /"type":"(\w+)"/.exec(text)?.[1];
            if (type === "hello") {
              ws.send('{"type":"ready"}');
              if (i === 0) overlap = Math.max(overlap, ++running);
              hello();
            } else if (type === "observation") {
              const tick = Number(/"tick":(\d+)/.exec(text)?.[1] ?? 0);
              setTimeout(() => {
                if (ws.readyState === ws.OPEN) ws.send(`{"type":"turn","tick":${tick}}`);
              }, replyMs);
              if (i === 0) {
                const now = performance.now();
                if (tick > FROM_TICK && last > 0) added.push(now - last - replyMs);
                last = now;
                ticks++;
              }
            } else if (type === "end") {
              if (i === 0) running--;
              resolve();
            }
          });
          ws.on("open", () => ws.send('{"type":"queue","version":"v1"}'));
        }),
      );
    }
    await Promise.race([
      Promise.all(greeted),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`pair ${tag}-${m} was not paired`)), 30_000),
      ),
    ]);
  }
  await Promise.race([
    Promise.all(ends),
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`the ${tag} matches did not end`)), 300_000),
    ),
  ]);
  const after = cpu();
  for (const ws of sockets) ws.close();
  return {
    ticks,
    added,
    cpu: { nodes: after.nodes - before.nodes, nats: after.nats - before.nats },
    overlap,
    ms: performance.now() - t0,
  };
}
