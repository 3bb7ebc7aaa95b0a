// glibc's malloc gives memory back to the system only for blocks above its mmap threshold, and it raises that
// threshold (up to 32 MiB) each time such a block is freed. The server's start frees many large blocks (PGlite's
// WebAssembly compiled on V8's threads, its file bundle read into buffers), so afterwards the allocator keeps
// freed blocks of that size in its arenas: about 100 MiB of the server's resident memory after start, of about
// 310 (docs/performance-live-path.md, "Fourth pass"). A fixed threshold (a glibc tunable) turns the raising off. glibc
// reads tunables only when a process starts, so the entry re-executes itself once with one set: process.execve
// keeps the process id, its open files, arguments and Node flags. Where that cannot be done (Node before 22.15,
// not Linux, a child with an IPC channel to its parent, which the new program would lose) the server starts
// unchanged, and an operator's own malloc tunables are left alone.
import process from "node:process";

/** Blocks of 1 MiB and more come from (and go back to) the system; smaller ones stay with the allocator. */
export const MALLOC_TUNABLE = "glibc.malloc.mmap_threshold=1048576";

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

/** Re-executes this process with MALLOC_TUNABLE set, or returns when it is set or cannot be. */
export function tuneMalloc(): void {
  if (process.platform !== "linux") return;
  const tunables = process.env.GLIBC_TUNABLES ?? "";
  if (tunables.includes("glibc.malloc.")) return; // set already: by this function, or by the operator
  const execve = (process as unknown as { execve?: Execve }).execve;
  if (typeof execve !== "function" || process.channel) return;
  const env = { ...process.env, GLIBC_TUNABLES: tunables ? `${tunables}:${MALLOC_TUNABLE}` : MALLOC_TUNABLE };
  try {
    execve.call(
      process,
      process.execPath,
      [process.execPath, ...process.execArgv, ...process.argv.slice(1)],
      env,
    );
  } catch {
    // Refused (a permission model, a sandbox): the server runs with the allocator's defaults.
  }
}
