// The worker_thread a `module:` bot runs in, as source text: the simulator starts it with `eval: true`, so the
// same code works under tsx, under vitest and inside the one-file bundle, with no worker file to ship. It loads
// the user's module, builds its decide function from each match's hello and answers observations; the main
// thread owns every deadline, so a decide that loops forever only ever costs timeouts.
//
// Messages, main -> worker: {t: "start", seq, hello} | {t: "turn", seq, obs}
//           worker -> main: {t: "loaded", meta} | {t: "load_error", error} | {t: "started", seq}
//                           | {t: "start_error", seq, error} | {t: "turn", seq, turn} | {t: "throw", seq, error}
// The worker source is plain CommonJS-flavoured JavaScript (eval workers run as scripts) and must stay so.

export interface ModuleMeta {
  /** How the module's exports were understood. */
  kind: "createDecide" | "decide" | "strategy" | "default";
  name: string | null;
  display_name: string | null;
  version: string | null;
}

export type WorkerReply =
  | { t: "loaded"; meta: ModuleMeta }
  | { t: "load_error"; error: string }
  | { t: "started"; seq: number }
  | { t: "start_error"; seq: number; error: string }
  | { t: "turn"; seq: number; turn: unknown }
  | { t: "throw"; seq: number; error: string };

export interface ModuleWorkerData {
  /** file: URL of the bot module. */
  url: string;
  /** file: URL of tsx's ESM API, set when the module is TypeScript. */
  tsxApi: string | null;
}

export const MODULE_WORKER_SOURCE = String.raw`
"use strict";
const { parentPort, workerData } = require("node:worker_threads");

const errorText = (e) => {
  if (e && typeof e === "object" && "message" in e) {
    const where = typeof e.stack === "string" ? e.stack.split("\n").find((l) => /^\s+at /.test(l)) : undefined;
    return String(e.message) + (where ? " (" + where.trim() + ")" : "");
  }
  return String(e);
};
const str = (v) => (typeof v === "string" && v.length > 0 ? v : null);

let pick = null; // how to build decide from a hello
let decide = null; // the current match's decide(obs)

function understand(m) {
  const d = m.default;
  const sources = [m];
  if (d && typeof d === "object") sources.push(d);
  const meta = (kind, from) => ({
    kind,
    name: str(from.name) ?? str(m.name),
    display_name: str(from.display_name) ?? str(m.display_name),
    version: str(from.version) ?? str(m.version),
  });
  for (const s of sources) {
    if (typeof s.createDecide === "function") return { meta: meta("createDecide", s), make: (h) => s.createDecide(h) };
    if (typeof s.decide === "function") return { meta: meta("decide", s), make: () => s.decide };
    if (typeof s.create === "function") return { meta: meta("strategy", s), make: (h) => s.create(h) };
  }
  if (typeof d === "function") {
    // A default function is either createDecide(hello) or decide(obs). Its name says which when it has one;
    // otherwise call it with the hello: a function back means a factory, anything else (or a throw) a decide.
    const n = d.name;
    if (n === "createDecide" || /^create/.test(n)) return { meta: meta("createDecide", {}), make: (h) => d(h) };
    if (n === "decide") return { meta: meta("decide", {}), make: () => d };
    return {
      meta: meta("default", {}),
      make: async (h) => {
        let r;
        try {
          r = await d(h);
        } catch {
          return d;
        }
        return typeof r === "function" ? r : d;
      },
    };
  }
  throw new Error("the module exports none of createDecide(hello), decide(obs), a default export of either, or a strategy {create(hello)}");
}

async function load() {
  let m;
  if (workerData.tsxApi) {
    const api = await import(workerData.tsxApi);
    m = await api.tsImport(workerData.url, workerData.url);
  } else m = await import(workerData.url);
  pick = understand(m);
  return pick.meta;
}

// A module bot may return just the parts of a turn; type and tick are filled in as the wire form needs them.
function wire(turn, tick) {
  if (turn === undefined || turn === null) return { type: "turn", tick };
  if (typeof turn === "object" && !Array.isArray(turn) && !("type" in turn)) turn = { type: "turn", tick, ...turn };
  const text = JSON.stringify(turn);
  if (text === undefined) throw new Error("decide returned a value that is not JSON (" + typeof turn + ")");
  return JSON.parse(text);
}

parentPort.on("message", async (msg) => {
  if (msg.t === "start") {
    try {
      decide = null;
      const d = await pick.make(msg.hello);
      if (typeof d !== "function") throw new Error("createDecide(hello) returned " + typeof d + ", not a function");
      decide = d;
      parentPort.postMessage({ t: "started", seq: msg.seq });
    } catch (e) {
      parentPort.postMessage({ t: "start_error", seq: msg.seq, error: errorText(e) });
    }
  } else if (msg.t === "turn") {
    try {
      const turn = wire(await decide(msg.obs), msg.obs.tick);
      parentPort.postMessage({ t: "turn", seq: msg.seq, turn });
    } catch (e) {
      parentPort.postMessage({ t: "throw", seq: msg.seq, error: errorText(e) });
    }
  }
});

load().then(
  (meta) => parentPort.postMessage({ t: "loaded", meta }),
  (e) => parentPort.postMessage({ t: "load_error", error: errorText(e) }),
);
`;
