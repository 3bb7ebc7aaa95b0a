// The match pool: Piscina worker threads each running many matches (one long-lived task per match, talking
// over its own MessageChannel). A worker that dies, or hangs past the watchdog, ends its matches as aborted;
// Piscina replaces the worker and the server keeps running.
import { cpus } from "node:os";
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";
import type { FromWorker, MatchOutcome, MatchSetup, ToWorker } from "./protocol.ts";

export interface PoolOptions {
  workers?: number;
  /** Matches one worker runs at once; matches are mostly idle, waiting for bots. */
  matchesPerWorker?: number;
}

/** The front process's handle on one running match. */
export interface MatchChannel {
  send(m: ToWorker): void;
  onMessage(fn: (m: FromWorker) => void): void;
  /** Resolves with the outcome, or rejects when the worker crashed or was stopped. */
  readonly done: Promise<MatchOutcome>;
  /** Terminates the match's worker (and with it the worker's other matches): the hung-worker remedy. */
  kill(why: string): void;
}

export class MatchPool {
  private readonly piscina: Piscina;

  constructor(o: PoolOptions = {}) {
    const workers = o.workers ?? Math.max(1, cpus().length);
    this.piscina = new Piscina({
      filename: new URL("./worker.mjs", import.meta.url).href,
      minThreads: workers,
      maxThreads: workers,
      concurrentTasksPerWorker: o.matchesPerWorker ?? 512,
      idleTimeout: Number.POSITIVE_INFINITY,
      // A crashed worker must not take the front process down: task rejections are handled per match.
      closeTimeout: 5_000,
    });
  }

  get threads(): number {
    return this.piscina.threads.length;
  }

  /** Terminates one worker thread; used by tests to show a crash loses only that worker's matches. */
  killThread(index = 0): void {
    void this.piscina.threads[index]?.terminate();
  }

  start(setup: MatchSetup): MatchChannel {
    const { port1, port2 } = new MessageChannel();
    let handler: (m: FromWorker) => void = () => {};
    // The worker thread running this match, from its hello; null until the task has started.
    let thread: number | null = null;
    let killed = false;
    port1.on("message", (m: FromWorker) => {
      if (m.t === "hello") thread = m.thread;
      if (!killed) handler(m);
    });
    // No AbortSignal on the task: Piscina gives an abortable task a worker of its own (one match per worker,
    // the rest queued without a hello whatever concurrentTasksPerWorker says). kill() ends the match itself.
    const task = this.piscina
      .run({ setup, port: port2 }, { transferList: [port2] as never })
      .finally(() => port1.close()) as Promise<MatchOutcome>;
    let fail: (err: Error) => void = () => {};
    const done = new Promise<MatchOutcome>((resolve, reject) => {
      fail = reject;
      task.then(resolve, reject);
    });
    return {
      send: (m) => port1.postMessage(m),
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
        }
      },
    };
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
