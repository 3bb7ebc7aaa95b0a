// The match pool: Piscina worker threads each running many matches (one long-lived task per match). A match
// says hello over its own MessageChannel; after that its messages go over its worker's link in batches (see
// protocol.ts). A worker that dies, or hangs past the watchdog, ends its matches as aborted; Piscina replaces
// the worker and the server keeps running.
import { cpus } from "node:os";
import { MessageChannel, type MessagePort } from "node:worker_threads";
import { Piscina } from "piscina";
import { type LinkHandlers, LinkWriter, readBatch, ringPayload } from "./link.ts";
import type { FromWorker, MatchOutcome, MatchSetup, TaskInput, ToWorker, WorkerHello } from "./protocol.ts";
import { RingWriter } from "./ring.ts";
import { collectTrace, Hop, stamp, traceNow, tracing } from "./trace.ts";

/**
 * The worker entry that matches how this module runs. From the sources (tsx, vitest) it is worker.cjs, which
 * loads the TypeScript worker through tsx; in the server build (build/server/main.js) it is the built worker
 * that scripts/build-server.ts writes beside the bundle, plain JavaScript like the rest of the build.
 */
export const WORKER_ENTRY = import.meta.url.endsWith(".ts")
  ? new URL("./worker.cjs", import.meta.url).href
  : new URL("./pool-worker.js", import.meta.url).href;

/** The front's end of one worker thread's link, with the batch being gathered for it in this turn. */
interface Link {
  port: MessagePort;
  /** The worker's ring (ring.ts): the batches go there, and by the port only when it is full. */
  ring: RingWriter | null;
  /** Batches sent by the port while the ring was full: the ring is used again once the worker took them all. */
  portSent: number;
  out: LinkWriter;
  flushing: boolean;
  /**
   * Matches on this worker whose observations went out and whose turns have not come back yet: only their
   * turns can still join a batch. With none left, the batch goes out at once instead of at the end of the
   * event-loop turn (see post()).
   */
  awaitingBots: Set<number>;
  /** Trace only (pool/trace.ts): match key and tick of each tick's turns in the batch being gathered. */
  traced: number[];
}

export interface PoolOptions {
  workers?: number;
  /** Matches one worker runs at once; matches are mostly idle, waiting for bots. */
  matchesPerWorker?: number;
  /**
   * Bytes of each worker's ring (pool/ring.ts); tests make it small to send batches by the port, and 0 sends
   * every batch by the port as before the ring.
   */
  ringBytes?: number;
}

/** The front process's handle on one running match. */
export interface MatchChannel {
  /** The pool's number for the match (the key of its link records and of its trace rows). */
  readonly key: number;
  /** Sends a message to the match's worker. `m` is read during the call and not kept: a sender may reuse it. */
  send(m: ToWorker): void;
  onMessage(fn: (m: FromWorker) => void): void;
  /** Resolves with the outcome, or rejects when the worker crashed or was stopped. */
  readonly done: Promise<MatchOutcome>;
  /** Terminates the match's worker (and with it the worker's other matches): the hung-worker remedy. */
  kill(why: string): void;
}

/** One worker thread as the operator's metrics see it. */
export interface WorkerFigures {
  threadId: number;
  /** Matches running on it now (from their hello to their end). */
  matches: number;
  /** Its event loop's busy and idle time since it started (ms), as Node measures it for the thread. */
  activeMs: number;
  idleMs: number;
}

export class MatchPool {
  /**
   * Started with the first match, not with the server: each worker thread holds the engine's WebAssembly and
   * its module graph (about 22 MiB), which an idle server does not need (docs/performance-live-path.md, "Memory at
   * start"). All `size` threads start together then, so the matches spread over them from the first.
   */
  private piscinaOrNull: Piscina | null = null;
  private readonly size: number;
  private readonly matchesPerWorker: number;
  private readonly ringBytes: number | undefined;
  /** Batches that went by a link's port because its ring was full (ring.ts); the rest went by the ring. */
  portBatches = 0;
  /** Workers Piscina has started, the first `size` included: the ones beyond replaced a dead worker. */
  private created = 0;
  /** Running matches by worker threadId. */
  private readonly matchesOn = new Map<number, number>();
  private nextKey = 1;
  /** Each running match's handler for what arrives over a link, by match key. */
  private readonly routes = new Map<number, (m: FromWorker) => void>();
  /** Links by worker threadId. */
  private readonly links = new Map<number, Link>();
  /** Operating-system thread ids of the workers, by threadId (from their hellos). */
  private readonly tids = new Map<number, number>();
  /** Hellos that arrived before their thread's link (it rides on another match's hello), by threadId. */
  private readonly waitingForLink = new Map<number, (() => void)[]>();

  constructor(o: PoolOptions = {}) {
    this.size = o.workers ?? Math.max(1, cpus().length);
    this.matchesPerWorker = o.matchesPerWorker ?? 512;
    // ARENA_LINK_RING=0 turns the ring off (the benchmark's before and after in one build).
    this.ringBytes = o.ringBytes ?? (process.env.ARENA_LINK_RING === "0" ? 0 : undefined);
    if (tracing) collectTrace();
  }

  private get piscina(): Piscina {
    if (this.piscinaOrNull) return this.piscinaOrNull;
    const piscina = new Piscina({
      filename: WORKER_ENTRY,
      minThreads: this.size,
      maxThreads: this.size,
      concurrentTasksPerWorker: this.matchesPerWorker,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData: { ringBytes: this.ringBytes },
      // A crashed worker must not take the front process down: task rejections are handled per match.
      closeTimeout: 5_000,
      // An idle worker waits for its next task on its event loop rather than blocked in Atomics.wait: that
      // wait counted as busy time, so an idle pool read as 100 % utilised in the operator's metrics. Tasks are
      // one per match, so the faster hand-over Atomics gives a task is not worth anything here.
      atomics: "disabled",
    });
    piscina.on("workerCreate", () => {
      this.created++;
    });
    this.piscinaOrNull = piscina;
    return piscina;
  }

  /** Worker threads alive: none before the first match. */
  get threads(): number {
    return this.piscinaOrNull?.threads.length ?? 0;
  }

  /** Matches waiting for a worker (all threads full, or a replacement still starting). */
  get queued(): number {
    return this.piscinaOrNull?.queueSize ?? 0;
  }

  /** Workers started to replace one that died or was terminated as hung. */
  get restarts(): number {
    return Math.max(0, this.created - this.size);
  }

  /** Each live worker's matches and event-loop time; read at a metrics scrape, never on the tick path. */
  workers(): WorkerFigures[] {
    return (this.piscinaOrNull?.threads ?? []).map((t) => {
      const elu = t.performance.eventLoopUtilization();
      // Time blocked on the ring's doorbell is idle, though its event loop counts it as busy.
      const waited = Math.min(this.links.get(t.threadId)?.ring?.waitedMs ?? 0, elu.active);
      return {
        threadId: t.threadId,
        matches: this.matchesOn.get(t.threadId) ?? 0,
        activeMs: elu.active - waited,
        idleMs: elu.idle + waited,
      };
    });
  }

  /**
   * The operating-system thread ids of the live workers that have run a match (the benchmark reads their CPU
   * time from /proc/<pid>/task/<tid>).
   */
  osThreadIds(): number[] {
    const live = new Set((this.piscinaOrNull?.threads ?? []).map((t) => t.threadId));
    return [...this.tids].flatMap(([thread, tid]) => (live.has(thread) ? [tid] : []));
  }

  /** Terminates one worker thread; used by tests to show a crash loses only that worker's matches. */
  killThread(index = 0): void {
    void this.piscinaOrNull?.threads[index]?.terminate();
  }

  start(setup: MatchSetup): MatchChannel {
    const key = this.nextKey++;
    const { port1, port2 } = new MessageChannel();
    let handler: (m: FromWorker) => void = () => {};
    // The worker thread running this match, from its hello; null until the task has started.
    let thread: number | null = null;
    let link: Link | null = null;
    let killed = false;
    let settled = false;
    const deliver = (m: FromWorker) => {
      if (!killed) handler(m);
    };
    this.routes.set(key, deliver);
    port1.on("message", (m: WorkerHello) => {
      if (m.t !== "hello") return;
      thread = m.thread;
      if (m.tid !== null) this.tids.set(m.thread, m.tid);
      // A hello read after the task settled (another port, no ordering between them) is not counted: the
      // count would never come down.
      if (!settled) this.matchesOn.set(thread, (this.matchesOn.get(thread) ?? 0) + 1);
      if (m.link) this.addLink(m.thread, m.link, m.ring ? new RingWriter(m.ring) : null);
      const hello: FromWorker = { t: "hello", hello: m.hello, thread: m.thread, tid: m.tid };
      const go = () => {
        link = this.links.get(hello.thread) ?? null;
        deliver(hello);
      };
      if (this.links.has(m.thread)) go();
      else this.waitingForLink.set(m.thread, [...(this.waitingForLink.get(m.thread) ?? []), go]);
    });
    // No AbortSignal on the task: Piscina gives an abortable task a worker of its own (one match per worker,
    // the rest queued without a hello whatever concurrentTasksPerWorker says). kill() ends the match itself.
    const input: TaskInput = { setup, key, port: port2 };
    const run = this.piscina.run(input, { transferList: [port2] as never });
    // A worker waiting on its doorbell reads its task (and the match's port) when it next runs its event loop.
    this.nudgeAll();
    const task = run.finally(() => {
      port1.close();
      this.routes.delete(key);
      link?.awaitingBots.delete(key);
      settled = true;
      if (thread !== null) {
        const left = (this.matchesOn.get(thread) ?? 1) - 1;
        if (left > 0) this.matchesOn.set(thread, left);
        else this.matchesOn.delete(thread);
      }
    }) as Promise<MatchOutcome>;
    let fail: (err: Error) => void = () => {};
    const done = new Promise<MatchOutcome>((resolve, reject) => {
      fail = reject;
      task.then(resolve, reject);
    });
    return {
      key,
      send: (m) => {
        if (link) this.post(link, key, m);
        else {
          port1.postMessage(m);
          this.nudgeAll();
        }
      },
      onMessage: (fn) => {
        handler = fn;
      },
      done,
      kill: (why) => {
        if (killed) return;
        killed = true;
        fail(new Error(why)); // the match ends now, with this reason
        if (thread !== null) {
          // Running: terminate its worker (Piscina fails the worker's other tasks and starts a new worker).
          void this.piscina.threads.find((t) => t.threadId === thread)?.terminate();
        } else {
          // Not started yet (queued, or its worker is booting): it aborts itself as soon as it starts.
          port1.postMessage({ t: "abort", why } satisfies ToWorker);
          this.nudgeAll();
        }
      },
    };
  }

  /**
   * What arrives over the links. A tick's message is one object reused for every tick of every match: its
   * observations are views into the batch's buffer and are only valid during the call (the runner writes them
   * to the sockets at once, which keep what they need).
   */
  private readonly tickMessage: Extract<FromWorker, { t: "tick" }> = {
    t: "tick",
    tick: 0,
    obs: [null, null],
    deadlineMs: [0, 0],
  };
  /** Trace only: when the batch being read arrived. */
  private batchAt = 0;
  private handlersFor(link: Link): LinkHandlers {
    return {
      control: (key, m) => this.routes.get(key)?.(m as FromWorker),
      observe: (key, tick, obs, deadlines) => {
        const m = this.tickMessage;
        m.tick = tick;
        m.obs = obs;
        m.deadlineMs = deadlines;
        const route = this.routes.get(key);
        if (!route) return;
        if (tracing && tick > 0) stamp(key, tick - 1, Hop.received, this.batchAt);
        link.awaitingBots.add(key);
        route(m);
      },
    };
  }

  /** Wakes every worker waiting on its doorbell, so that it reads its ports now (see start()). */
  private nudgeAll(): void {
    for (const l of this.links.values()) l.ring?.nudge();
  }

  private addLink(thread: number, port: MessagePort, ring: RingWriter | null): void {
    const link: Link = {
      port,
      ring,
      portSent: 0,
      out: new LinkWriter(),
      flushing: false,
      awaitingBots: new Set(),
      traced: [],
    };
    this.links.set(thread, link);
    const handlers = this.handlersFor(link);
    port.on("message", (batch: unknown[]) => {
      if (tracing) this.batchAt = traceNow();
      readBatch(batch, handlers);
    });
    // The worker ended (crashed, terminated or the pool closed): its matches fail through their tasks.
    port.once("close", () => {
      if (this.links.get(thread) === link) this.links.delete(thread);
    });
    // A link must not keep the process alive on its own; running matches hold their own ports and tasks.
    port.unref();
    const waiting = this.waitingForLink.get(thread);
    this.waitingForLink.delete(thread);
    for (const go of waiting ?? []) go();
  }

  /**
   * Queues a message on a link. The batch goes out once per event-loop turn, after the turn's socket reads
   * (setImmediate runs after the poll phase), so the ticks of all matches that resolved in one turn share one
   * postMessage. When no other match on the worker is waiting for its bots, nothing more can join the batch
   * this turn, and it goes out at once: a lone match (or the last of a turn) does not wait for the rest of the
   * poll phase and the immediate queue, tens of microseconds of its tick's latency on a small machine.
   */
  private post(link: Link, key: number, m: ToWorker): void {
    if (m.t === "tick") {
      link.awaitingBots.delete(key);
      const expired = m.expired ? m.expired.reduce((bits, f) => bits | (1 << f), 0) : 0;
      link.out.turns(key, m.tick, m.inputs, expired);
      if (tracing) {
        stamp(key, m.tick, Hop.queued);
        link.traced.push(key, m.tick);
      }
    } else link.out.control(key, m);
    if (link.awaitingBots.size === 0) {
      this.flush(link);
      return;
    }
    if (link.flushing) return;
    link.flushing = true;
    setImmediate(() => {
      link.flushing = false;
      this.flush(link);
    });
  }

  private flush(link: Link): void {
    if (link.out.empty) return;
    const ring = link.ring;
    if (ring && link.portSent === ring.portDone) {
      const [bytes, controls] = ringPayload(link.out);
      if (ring.write(bytes, controls)) link.out.clear();
    }
    if (!link.out.empty) {
      // No ring, or it is full (or still behind a batch that went this way): the port keeps the order.
      const batch = link.out.take();
      link.port.postMessage(batch, [batch[0]]);
      if (ring) {
        this.portBatches++;
        link.portSent++;
        ring.nudge();
      }
    }
    if (tracing) {
      const at = traceNow();
      for (let i = 0; i < link.traced.length; i += 2)
        stamp(link.traced[i]!, link.traced[i + 1]!, Hop.posted, at);
      link.traced.length = 0;
    }
  }

  async close(): Promise<void> {
    await this.piscinaOrNull?.destroy();
    for (const l of this.links.values()) l.port.close();
    this.links.clear();
  }
}
