import { existsSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, extname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { HOUSE_BOTS } from "../house/index.ts";
import type { TurnInput } from "../match.ts";
import type { HelloMessageT, ObservationT } from "../protocol.ts";
import type { ReplayFighter } from "../replay.ts";
import {
  MODULE_WORKER_SOURCE,
  type ModuleMeta,
  type ModuleWorkerData,
  type WorkerReply,
} from "./module-worker.ts";
import { strategySeat } from "./play.ts";
import { ProcessRunner } from "./process-seat.ts";
import {
  type BotRunner,
  type BotSpec,
  errorLine,
  now,
  type SeatNote,
  type SimContext,
  type SimSeat,
} from "./seat-types.ts";

export type { BotRunner, BotSpec, SeatNote, SimContext, SimSeat } from "./seat-types.ts";
export { clip, errorLine, now } from "./seat-types.ts";

/** A bad `--a`/`--b` value: reported as a usage error (exit 2). */
export class BotSpecError extends Error {}

export function houseBotNames(): string[] {
  return Object.keys(HOUSE_BOTS);
}

export function parseBotSpec(spec: string, cwd: string): BotSpec {
  if (spec.startsWith("module:")) {
    const p = spec.slice("module:".length).trim();
    if (!p) throw new BotSpecError("module: needs a path, e.g. module:./my-bot.mjs");
    const path = resolve(cwd, p);
    if (!existsSync(path) || !statSync(path).isFile())
      throw new BotSpecError(`module ${p}: no such file (${path})`);
    return { kind: "module", spec, path };
  }
  if (spec.startsWith("cmd:")) {
    const command = spec.slice("cmd:".length).trim();
    if (!command) throw new BotSpecError('cmd: needs a command line, e.g. "cmd:python3 bot.py"');
    return { kind: "cmd", spec, command };
  }
  if (Object.hasOwn(HOUSE_BOTS, spec)) return { kind: "house", spec, name: spec };
  throw new BotSpecError(
    `unknown bot ${JSON.stringify(spec)}: use a house bot (${houseBotNames().join(", ")}), module:<path to .mjs/.js/.ts> or cmd:<command line>`,
  );
}

export function createRunner(spec: BotSpec, label: string, ctx: SimContext): BotRunner {
  if (spec.kind === "house") return new HouseRunner(spec);
  if (spec.kind === "module") return new ModuleRunner(spec, label, ctx);
  return new ProcessRunner(spec, label, ctx);
}

// ---------------------------------------------------------------- house bots

class HouseRunner implements BotRunner {
  readonly fighter: ReplayFighter;
  constructor(readonly spec: BotSpec & { kind: "house" }) {
    const s = HOUSE_BOTS[spec.name]!;
    this.fighter = { name: s.name, display_name: s.display_name, version: s.version };
  }
  async init(): Promise<void> {}
  seat(matchId: string): SimSeat {
    const inner = strategySeat(HOUSE_BOTS[this.spec.name]!);
    const notes: SeatNote[] = [];
    return {
      fighter: inner.fighter,
      notes,
      start: (hello) => inner.start(hello),
      turn(obs, deadline) {
        try {
          return inner.turn(obs, deadline);
        } catch (err) {
          notes.push({
            kind: "throw",
            match_id: matchId,
            tick: obs.tick,
            message: `decide threw: ${errorLine(err)}`,
          });
          return { idle: "timeout", ms: 0 };
        }
      },
    };
  }
  async close(): Promise<void> {}
}

// ---------------------------------------------------------------- module bots (worker_thread)

const TS_EXTENSIONS = new Set([".ts", ".mts", ".cts", ".tsx"]);

/** tsx's ESM API, to import a TypeScript bot inside the worker: the running tsx, else one the cwd can resolve. */
function tsxApiUrl(cwd: string): string | null {
  for (const arg of process.execArgv) {
    const m = /^(file:\/\/.*[\\/]tsx[\\/]dist[\\/])loader\.mjs$/.exec(arg);
    if (m) return `${m[1]}esm/api/index.mjs`;
  }
  for (const base of [cwd, process.cwd()]) {
    try {
      const pkgPath = createRequire(join(base, "noop.js")).resolve("tsx/package.json");
      const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as {
        exports?: Record<string, { import?: { default?: string } }>;
      };
      const entry = pkg.exports?.["./esm/api"]?.import?.default;
      if (entry) return pathToFileURL(join(dirname(pkgPath), entry)).href;
    } catch {
      // not resolvable from here
    }
  }
  return null;
}

interface Pending {
  seq: number;
  resolve(reply: WorkerReply | { t: "timeout" } | { t: "dead"; why: string }): void;
  timer: NodeJS.Timeout;
}

class ModuleRunner implements BotRunner {
  fighter: ReplayFighter;
  private worker: Worker | null = null;
  private loaded: Promise<ModuleMeta> | null = null;
  private pending: Pending | null = null;
  private seq = 0;
  private dead: string | null = null;
  /** A request the worker never answered: it may be stuck, so the next match gets a fresh worker. */
  private stuck = false;
  private readonly data: ModuleWorkerData;

  constructor(
    readonly spec: BotSpec & { kind: "module" },
    private readonly label: string,
    private readonly ctx: SimContext,
  ) {
    const base = basename(spec.path, extname(spec.path));
    this.fighter = { name: base, display_name: base, version: "local" };
    let tsxApi: string | null = null;
    if (TS_EXTENSIONS.has(extname(spec.path))) {
      tsxApi = tsxApiUrl(ctx.cwd);
      if (!tsxApi) {
        throw new BotSpecError(
          `module ${spec.path} is TypeScript, and no tsx was found to load it: run the simulator with tsx (npx tsx arena-sim.mjs ...), install tsx where the bot lives, or compile the bot to .mjs`,
        );
      }
    }
    this.data = { url: pathToFileURL(spec.path).href, tsxApi };
  }

  async init(): Promise<void> {
    const meta = await this.ensure();
    const base = this.fighter.name;
    this.fighter = {
      name: meta.name ?? base,
      display_name: meta.display_name ?? meta.name ?? base,
      version: meta.version ?? "local",
    };
  }

  private ensure(): Promise<ModuleMeta> {
    if (this.worker && !this.dead && !this.stuck && this.loaded) return this.loaded;
    if (this.worker) void this.worker.terminate();
    this.dead = null;
    this.stuck = false;
    const worker = new Worker(MODULE_WORKER_SOURCE, {
      eval: true,
      workerData: this.data,
      stdout: true,
      stderr: true,
    });
    this.worker = worker;
    this.pipeOutput(worker.stdout);
    this.pipeOutput(worker.stderr);
    this.loaded = new Promise<ModuleMeta>((resolveLoad, rejectLoad) => {
      worker.on("message", (msg: WorkerReply) => {
        if (msg.t === "loaded") resolveLoad(msg.meta);
        else if (msg.t === "load_error")
          rejectLoad(new BotSpecError(`cannot load module ${this.spec.path}: ${msg.error}`));
        else if (this.worker === worker) this.onReply(msg);
      });
      worker.on("error", (err) => {
        this.die(worker, `the module's worker crashed: ${errorLine(err)}`);
        rejectLoad(new BotSpecError(`cannot load module ${this.spec.path}: ${errorLine(err)}`));
      });
      worker.on("exit", (code) => {
        this.die(worker, `the module's worker exited with code ${code}`);
        rejectLoad(new BotSpecError(`cannot load module ${this.spec.path}: worker exited with code ${code}`));
      });
    });
    return this.loaded;
  }

  private pipeOutput(stream: Readable): void {
    createInterface({ input: stream }).on("line", (line) =>
      this.ctx.log?.(`[${this.label} ${this.fighter.name}] ${line}`),
    );
  }

  private die(worker: Worker, why: string): void {
    if (this.worker !== worker || this.dead) return;
    this.dead = why;
    const p = this.pending;
    if (p) {
      this.pending = null;
      clearTimeout(p.timer);
      p.resolve({ t: "dead", why });
    }
  }

  private onReply(msg: WorkerReply): void {
    if ("seq" in msg && msg.seq === this.seq) this.stuck = false; // caught up with the latest request
    const p = this.pending;
    if (!p || !("seq" in msg) || msg.seq !== p.seq) return; // a late answer to a request that already timed out
    this.pending = null;
    clearTimeout(p.timer);
    p.resolve(msg);
  }

  /** Sends one request and waits for its answer, at most timeoutMs. */
  private request(
    msg: { t: "start"; hello: HelloMessageT } | { t: "turn"; obs: ObservationT },
    timeoutMs: number,
  ) {
    return new Promise<WorkerReply | { t: "timeout" } | { t: "dead"; why: string }>((resolveReq) => {
      if (this.dead || !this.worker) return resolveReq({ t: "dead", why: this.dead ?? "no worker" });
      const seq = ++this.seq;
      const timer = setTimeout(() => {
        if (this.pending?.seq === seq) this.pending = null;
        this.stuck = true;
        resolveReq({ t: "timeout" });
      }, timeoutMs);
      this.pending = { seq, resolve: resolveReq, timer };
      this.worker.postMessage({ ...msg, seq });
    });
  }

  seat(matchId: string): SimSeat {
    const notes: SeatNote[] = [];
    let reportedDeath = false;
    let throws = 0;
    let throwNote: SeatNote | null = null;
    const noteDeath = (tick: number, why: string) => {
      if (reportedDeath) return;
      reportedDeath = true;
      notes.push({ kind: "worker_crash", match_id: matchId, tick, message: `${why} at tick ${tick}` });
    };
    return {
      fighter: this.fighter,
      notes,
      start: async (hello) => {
        try {
          await this.ensure();
        } catch (err) {
          notes.push({ kind: "start_error", match_id: matchId, tick: 0, message: errorLine(err) });
          return false;
        }
        const r = await this.request({ t: "start", hello }, hello.deadlines.startup_ms);
        if (r.t === "started") return true;
        const message =
          r.t === "start_error"
            ? `createDecide(hello) threw: ${r.error}`
            : r.t === "timeout"
              ? `createDecide(hello) did not return within the startup window (${hello.deadlines.startup_ms} ms)`
              : `could not start: ${r.t === "dead" ? r.why : r.t}`;
        notes.push({
          kind: r.t === "timeout" ? "no_ready" : "start_error",
          match_id: matchId,
          tick: 0,
          message,
        });
        return false;
      },
      turn: async (obs, deadline): Promise<TurnInput> => {
        const t0 = now();
        const r = await this.request({ t: "turn", obs }, deadline);
        const ms = now() - t0;
        if (r.t === "turn") return { raw: r.turn, ms };
        if (r.t === "timeout") return { idle: "timeout", ms: deadline };
        if (r.t === "throw") {
          // A throw is a failed tick, like a bot that sent nothing: an idle counted as a timeout. Noted once per
          // match with the first message; the count is added when the match ends.
          throws++;
          if (!throwNote) {
            throwNote = {
              kind: "throw",
              match_id: matchId,
              tick: obs.tick,
              message: `decide threw at tick ${obs.tick}: ${r.error}`,
            };
            notes.push(throwNote);
          }
          return { idle: "timeout", ms };
        }
        noteDeath(obs.tick, r.t === "dead" ? r.why : "unexpected reply");
        return { idle: "disconnected", ms: 0 };
      },
      finish: () => {
        if (throwNote) throwNote.count = throws;
        if (throwNote && throws > 1)
          throwNote.message = `decide threw ${throws} times, first at tick ${throwNote.message.slice("decide threw at tick ".length)}`;
      },
    };
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    if (w) await w.terminate();
  }
}
