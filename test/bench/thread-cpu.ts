// CPU time of a server process split by thread kind, from /proc/<pid>/task/<tid>/schedstat (nanoseconds, so a
// five-second window is not rounded to the 10 ms ticks of /proc/<pid>/task/<tid>/stat).
// - main: the thread whose tid is the pid (sockets, the match runner, matchmaker, ratings, HTTP);
// - pool: the match pool's worker threads (the server reports their tids, from each worker's /proc/thread-self);
// - database: the embedded PGlite thread (likewise reported);
// - background, split where the thread names allow it (Node 22 and later name their threads): V8's platform
//   workers and delayed-task thread (optimising compiler, concurrent GC), libuv's pool (file system, DNS, zlib),
//   and anything else. Node 20 names every thread "node", so its background is one figure.
import { readdirSync, readFileSync } from "node:fs";

export interface ThreadKinds {
  pool: number[];
  database: number[];
}

/** Milliseconds of CPU per kind of thread. */
export interface ThreadCpu {
  main: number;
  pool: number;
  database: number;
  v8: number;
  libuv: number;
  /** Background threads the name does not place (every background thread on Node 20). */
  other: number;
}

export const NO_KINDS: ThreadKinds = { pool: [], database: [] };

function readTask(pid: number, tid: string): { ms: number; comm: string } | null {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
    return { ms: ns / 1e6, comm };
  } catch {
    return null; // the thread ended between the listing and the read
  }
}

export function threadCpuByKind(pid: number, kinds: ThreadKinds = NO_KINDS): ThreadCpu {
  const cpu: ThreadCpu = { main: 0, pool: 0, database: 0, v8: 0, libuv: 0, other: 0 };
  const pool = new Set(kinds.pool);
  const database = new Set(kinds.database);
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const t = readTask(pid, tid);
    if (!t) continue;
    const id = Number(tid);
    if (id === pid) cpu.main += t.ms;
    else if (pool.has(id)) cpu.pool += t.ms;
    else if (database.has(id)) cpu.database += t.ms;
    else if (t.comm.startsWith("V8") || t.comm.startsWith("DelayedTask")) cpu.v8 += t.ms;
    else if (t.comm.startsWith("libuv")) cpu.libuv += t.ms;
    else cpu.other += t.ms;
  }
  return cpu;
}

export function cpuDelta(a: ThreadCpu, b: ThreadCpu): ThreadCpu {
  return {
    main: b.main - a.main,
    pool: b.pool - a.pool,
    database: b.database - a.database,
    v8: b.v8 - a.v8,
    libuv: b.libuv - a.libuv,
    other: b.other - a.other,
  };
}

export const cpuTotal = (c: ThreadCpu) => c.main + c.pool + c.database + c.v8 + c.libuv + c.other;
export const background = (c: ThreadCpu) => c.v8 + c.libuv + c.other;

/** CPU time in ms of a process's main thread (tid = pid) and of all its other threads. */
export function threadCpu(pid: number): { main: number; other: number } {
  const c = threadCpuByKind(pid);
  return { main: c.main, other: cpuTotal(c) - c.main };
}
