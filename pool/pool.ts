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
    const abort = new AbortController();
    let handler: (m: FromWorker) => void = () => {};
    port1.on("message", (m: FromWorker) => handler(m));
    const done = this.piscina
      .run({ setup, port: port2 }, { transferList: [port2] as never, signal: abort.signal })
      .finally(() => port1.close()) as Promise<MatchOutcome>;
    return {
      send: (m) => port1.postMessage(m),
      onMessage: (fn) => {
        handler = fn;
      },
      done,
      kill: (why) => abort.abort(new Error(why)),
    };
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
