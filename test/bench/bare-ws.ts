// The ceiling for the live benchmarks: a bare `ws` lockstep loop with nothing of the ladder in it. A client's
// first message (its "queue") puts it in a FIFO; two waiting clients make a "match": the server sends both the
// same observation-sized JSON text, waits for both replies (any message counts), sends the next one, and
// after `ticks` ticks sends a small `end`; a client queues again by sending another message. Same library,
// same options (no compression, the SPEC's maxPayload) and the same message sizes as the ladder. Like any
// lockstep server it reads what the clients send (decodes the text and parses the JSON) and counts only a
// `turn` as a reply; it does nothing else with it (no validation, no simulation: that is the ladder's work).
//
// It runs as its own process (forked by test/bench/live-bench.ts through startBare), like the ladder server,
// so the clients of both runs live in the same benchmark process and see the same machine.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type WebSocket, WebSocketServer } from "ws";

interface Pair {
  socks: [WebSocket, WebSocket];
  tick: number;
  replies: number;
  ticks: number;
  /** performance.now() when the second reply of the tick was read (trace); 0 before the first tick. */
  readAt: number;
}

/**
 * The bare server's side of the per-hop trace (test/bench/live-trace.ts): per tick, µs from the second reply
 * read to the first send returned, and from there to the second; read and cleared by `trace` over IPC.
 */
const traced: number[] = [];

/** Runs the bare server in this process; resolves with its port. */
export function serveBare(observation: string): Promise<{ port: number; close(): void }> {
  const waiting: { ws: WebSocket; ticks: number }[] = [];
  const pairOf = new Map<WebSocket, Pair | null>();
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false, maxPayload: 4096 });
  const step = (p: Pair) => {
    if (p.tick >= p.ticks) {
      for (const s of p.socks) {
        pairOf.set(s, null);
        s.send('{"type":"end"}');
      }
      return;
    }
    p.replies = 0;
    p.socks[0].send(observation);
    const t1 = performance.now();
    p.socks[1].send(observation);
    if (p.readAt > 0) traced.push(p.tick, 1000 * (t1 - p.readAt), 1000 * (performance.now() - t1));
  };
  wss.on("connection", (ws, req) => {
    const ticks = Number(new URL(req.url ?? "/", "http://x").searchParams.get("ticks") ?? 300);
    pairOf.set(ws, null);
    ws.on("message", (data: Buffer, binary: boolean) => {
      let type: unknown;
      try {
        const m = JSON.parse(binary ? "" : data.toString("utf8")) as { type?: unknown } | null;
        type = m && typeof m === "object" ? m.type : undefined;
      } catch {
        type = undefined;
      }
      const p = pairOf.get(ws);
      if (!p) {
        if (waiting.some((w) => w.ws === ws)) return; // already waiting
        waiting.push({ ws, ticks });
        if (waiting.length < 2) return;
        const [a, b] = waiting.splice(0, 2) as [
          { ws: WebSocket; ticks: number },
          { ws: WebSocket; ticks: number },
        ];
        const pair: Pair = { socks: [a.ws, b.ws], tick: 0, replies: 0, ticks: a.ticks, readAt: 0 };
        pairOf.set(a.ws, pair);
        pairOf.set(b.ws, pair);
        step(pair);
        return;
      }
      if (type !== "turn" || ++p.replies < 2) return;
      p.readAt = performance.now();
      p.tick++;
      step(p);
    });
    ws.on("close", () => {
      pairOf.delete(ws);
      const i = waiting.findIndex((w) => w.ws === ws);
      if (i >= 0) waiting.splice(i, 1);
    });
    ws.on("error", () => ws.terminate());
  });
  return new Promise((resolve) => {
    wss.on("listening", () => {
      const addr = wss.address();
      resolve({ port: addr && typeof addr === "object" ? addr.port : 0, close: () => wss.close() });
    });
  });
}

export interface BareServer {
  url: string;
  pid: number;
  /** The trace since the last call: [tick, read -> first send µs, first -> second send µs] per tick. */
  trace(): Promise<number[]>;
  stop(): Promise<void>;
}

/** Forks this file as the bare server process with `observation` as the message it sends each tick. */
export async function startBare(observation: string): Promise<BareServer> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ["--serve-bare"], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("message", (m) => resolve((m as { port: number }).port));
    child.once("exit", (code) => reject(new Error(`bare ws server exited with ${code}`)));
    child.send({ observation });
  });
  return {
    url: `ws://127.0.0.1:${port}/`,
    pid: child.pid!,
    trace() {
      const r = new Promise<number[]>((resolve) =>
        child.once("message", (m) => resolve((m as { trace: number[] }).trace)),
      );
      child.send("trace");
      return r;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await gone;
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.send) {
  process.once("message", (m) => {
    void serveBare((m as { observation: string }).observation).then(({ port }) => process.send!({ port }));
    process.on("message", (q) => {
      if (q !== "trace") return;
      process.send!({ trace: traced });
      traced.length = 0;
    });
  });
}
