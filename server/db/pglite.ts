// The embedded driver: PGlite persisted in <dataDir>/pglite, running in a worker thread of its own so that
// PostgreSQL's work (a match's result, a leaderboard load) never holds up the socket thread; each statement is
// a message to that thread and its rows a message back. PGlite is one session, so a statement sent while a
// transaction is open would run inside that transaction. A mutex serialises everything: a transaction holds it
// from BEGIN to COMMIT, and plain statements wait their turn.
import { AsyncLocalStorage } from "node:async_hooks";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import type { Db, Queryable } from "./db.ts";

class Mutex {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const out = this.#tail.then(fn);
    this.#tail = out.catch(() => {});
    return out;
  }
}

/**
 * PostgreSQL's buffer cache inside PGlite's WebAssembly memory. PGlite's default (128 MB) is a server's; this
 * database holds a ladder's accounts, bots and results, and the operating system caches its files as well.
 * 32 MB kept the embedded database at about 200 MiB resident instead of about 330 MiB with no measurable change
 * in query time; 16 MB takes about 10 MiB more off the server's memory after start, and the database thread's
 * CPU per tick in the live benchmark did not rise (docs/performance-live-path.md, "Memory at start").
 */
const SHARED_BUFFERS = "16MB";

/**
 * Creates the database cluster of a fresh data directory in a short-lived child process. PGlite's initdb step
 * grows the process by about 500 MiB (its WebAssembly memory and compiled code) that it never gives back; in
 * a child, that memory goes when the child exits, and the server opens the finished cluster like any restart.
 */
async function initCluster(dir: string): Promise<void> {
  const pglite = import.meta.resolve("@electric-sql/pglite");
  const script = `const { PGlite } = await import(${JSON.stringify(pglite)});
    await (await PGlite.create(${JSON.stringify(dir)})).close();`;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`creating the embedded database in ${dir} failed (exit ${code}): ${err.trim()}`)),
    );
  });
}

// The worker's whole program: open the cluster, then answer one request at a time. Plain JavaScript evaluated
// as the worker's source, so the same code runs from the TypeScript sources and from a compiled build.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const { PGlite } = await import(workerData.pglite);
  let pg;
  try {
    pg = await PGlite.create(workerData.dir, {
      startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=" + workerData.sharedBuffers],
    });
  } catch (err) {
    parentPort.postMessage({ id: 0, error: { message: String(err && err.message || err) } });
    return;
  }
  let tid = null;
  try {
    tid = Number(require("node:fs").readlinkSync("/proc/thread-self").split("/").pop());
  } catch {}
  parentPort.postMessage({ id: 0, ok: true, tid });
  parentPort.on("message", async (m) => {
    try {
      if (m.op === "query") {
        const r = await pg.query(m.sql, m.params);
        parentPort.postMessage({ id: m.id, rows: r.rows });
      } else if (m.op === "exec") {
        await pg.exec(m.sql);
        parentPort.postMessage({ id: m.id });
      } else if (m.op === "gc") {
        // The memory benchmark's full collection (a process started with --expose-gc; nothing otherwise).
        globalThis.gc?.();
        parentPort.postMessage({ id: m.id });
      } else if (m.op === "close") {
        await pg.close();
        parentPort.postMessage({ id: m.id });
        parentPort.close();
      }
    } catch (err) {
      const e = { message: String(err && err.message || err) };
      for (const k of ["code", "detail", "constraint", "table", "column", "severity"])
        if (err && typeof err[k] === "string") e[k] = err[k];
      parentPort.postMessage({ id: m.id, error: e });
    }
  });
})();
`;

type Reply = {
  id: number;
  rows?: unknown[];
  ok?: boolean;
  /** The thread's operating-system id, in the first reply (null without /proc). */
  tid?: number | null;
  error?: Record<string, string>;
};

/** Operating-system thread ids of this process's open PGlite threads (the benchmark reads their CPU time). */
const openThreads = new Set<number>();
export function pgliteThreadIds(): number[] {
  return [...openThreads];
}

/** This process's open PGlite threads, for collectDbGarbage. */
const openDbs = new Set<PgliteThread>();

/**
 * A full collection in each open PGlite thread (its JS heap is its own: a main-thread `gc()` leaves it), for the
 * memory benchmark's readings; does nothing unless the process runs with --expose-gc.
 */
export async function collectDbGarbage(): Promise<void> {
  await Promise.all([...openDbs].map((t) => t.request({ op: "gc" }).catch(() => {})));
}

/** The PGlite thread: one request at a time in, one reply per request out. */
class PgliteThread {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve(r: Reply): void; reject(e: Error): void }>();
  private seq = 0;
  private failed: Error | null = null;
  /** The database thread's operating-system id, once it is open. */
  tid: number | null = null;

  constructor(dir: string) {
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { dir, pglite: import.meta.resolve("@electric-sql/pglite"), sharedBuffers: SHARED_BUFFERS },
    });
    this.worker.on("message", (r: Reply) => {
      const w = this.waiting.get(r.id);
      if (!w) return;
      this.waiting.delete(r.id);
      if (this.waiting.size === 0) this.worker.unref();
      if (r.error) w.reject(Object.assign(new Error(r.error.message), r.error));
      else w.resolve(r);
    });
    const fail = (err: Error) => {
      this.failed = err;
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => {
      if (this.tid !== null) openThreads.delete(this.tid);
      openDbs.delete(this);
      fail(new Error(`the embedded database thread ended (exit ${code})`));
    });
    this.waiting.set(0, { resolve: () => {}, reject: () => {} });
  }

  /** Resolves once the database is open (the thread's first reply). */
  ready(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting.set(0, {
        resolve: (r) => {
          this.tid = r.tid ?? null;
          if (this.tid !== null) openThreads.add(this.tid);
          openDbs.add(this);
          resolve();
        },
        reject,
      });
    });
  }

  request(
    m:
      | { op: "query"; sql: string; params: readonly unknown[] }
      | { op: "exec" | "close" | "gc"; sql?: string },
  ) {
    if (this.failed) return Promise.reject(this.failed);
    const id = ++this.seq;
    // Referenced while a reply is owed, so a script awaiting a query is not ended under it; unreferenced when
    // idle, so an open database alone does not keep a process alive.
    this.worker.ref();
    return new Promise<Reply>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ ...m, id });
    });
  }

  async query<T>(sql: string, params: readonly unknown[]): Promise<T[]> {
    return (await this.request({ op: "query", sql, params })).rows as T[];
  }

  async exec(sql: string): Promise<void> {
    await this.request({ op: "exec", sql });
  }

  async close(): Promise<void> {
    openDbs.delete(this);
    await this.request({ op: "close" });
    await this.worker.terminate();
  }
}

export async function openPglite(dataDir: string): Promise<Db> {
  const dir = join(dataDir, "pglite");
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, "PG_VERSION"))) await initCluster(dir);
  const pg = new PgliteThread(dir);
  try {
    await pg.ready();
  } catch (err) {
    await pg.close().catch(() => {});
    throw err;
  }
  const lock = new Mutex();
  // Marks the async context of a running transaction: the outer Db waiting on the mutex from there would
  // deadlock, so it throws instead. The flag is cleared at the end so work merely started from inside a
  // transaction may use the Db later.
  const inTx = new AsyncLocalStorage<{ open: boolean }>();
  let closed = false;

  const guarded = <T>(fn: () => Promise<T>): Promise<T> => {
    if (inTx.getStore()?.open) {
      return Promise.reject(new Error("Db used from inside its own transaction; use the transaction handle"));
    }
    return lock.run(() => (closed ? Promise.reject(new Error("database is closed")) : fn()));
  };
  const handle: Queryable = {
    query: <T>(sql: string, params: readonly unknown[] = []) => pg.query<T>(sql, params),
    exec: (sql: string) => pg.exec(sql),
  };

  return {
    driver: "pglite",
    query<T>(sql: string, params: readonly unknown[] = []) {
      return guarded(() => pg.query<T>(sql, params));
    },
    exec(sql: string) {
      return guarded(() => pg.exec(sql));
    },
    tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      return guarded(async () => {
        await pg.exec("BEGIN");
        const mark = { open: true };
        try {
          const out = await inTx.run(mark, () => fn(handle));
          await pg.exec("COMMIT");
          return out;
        } catch (err) {
          await pg.exec("ROLLBACK").catch(() => {});
          throw err;
        } finally {
          mark.open = false;
        }
      });
    },
    async close() {
      // Behind the mutex, so queued work finishes first; PGlite's close shuts PostgreSQL down cleanly
      // (checkpoint) and its node filesystem writes straight to the data dir.
      await lock.run(async () => {
        if (closed) return;
        closed = true;
        await pg.close();
      });
    },
  };
}
