// Two settings of the process's memory that can only be made when it starts, so the entry re-executes itself once
// with them (process.execve keeps the process id, its open files, arguments and Node flags):
//
// - glibc's malloc gives memory back to the system only for blocks above its mmap threshold, and it raises that
//   threshold (up to 32 MiB) each time such a block is freed. The server's start frees many large blocks (PGlite's
//   WebAssembly compiled on V8's threads, its file bundle read into buffers), so afterwards the allocator keeps
//   freed blocks of that size in its arenas: about 100 MiB of the server's resident memory after start, of about
//   310 (docs/performance-live-path.md, "Fourth pass"). A fixed threshold (a glibc tunable) turns the raising off.
// - V8's young generation: Node 22 and later let each isolate's semi-spaces grow to 32 MiB or more on a machine
//   with this much memory (Node 20: 16), and a server that builds big answers (the leaderboard's 2,000 rows) grows
//   them and keeps the pages. At 8 MiB the embedded-database server peaked at 366-399 MiB during the read runs of
//   a 100,000-game ladder instead of 506-509 (16 MiB: 405-424), with no loss in the live benchmark
//   (docs/performance-reads.md, "Seventh pass"); an operator's own --max-semi-space-size (in the Node flags or
//   NODE_OPTIONS) is left alone.
//
// Where the process cannot be re-executed (Node before 22.15, not Linux, a child with an IPC channel to its parent,
// which the new program would lose) the server starts unchanged, and an operator's own malloc tunables are kept.
import process from "node:process";

/** Blocks of 1 MiB and more come from (and go back to) the system; smaller ones stay with the allocator. */
export const MALLOC_TUNABLE = "glibc.malloc.mmap_threshold=1048576";

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

/** Each isolate's young generation: semi-spaces of at most 16 MiB. */
export const YOUNG_GENERATION_FLAG = "--max-semi-space-size=8";

/** Whether the process runs with a semi-space size of its own (a Node flag or NODE_OPTIONS). */
function youngGenerationSet(): boolean {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
  return flags.some((f) => f.startsWith("--max-semi-space-size"));
}

/** Re-executes this process with MALLOC_TUNABLE and YOUNG_GENERATION_FLAG, or returns when both are set or cannot be. */
export function tuneMemory(): void {
  if (process.platform !== "linux") return;
  const tunables = process.env.GLIBC_TUNABLES ?? "";
  // Set already (by this function, or by the operator): left as it is.
  const mallocSet = tunables.includes("glibc.malloc.");
  const youngSet = youngGenerationSet();
  if (mallocSet && youngSet) return;
  const execve = (process as unknown as { execve?: Execve }).execve;
  if (typeof execve !== "function" || process.channel) return;
  const env = mallocSet
    ? process.env
    : { ...process.env, GLIBC_TUNABLES: tunables ? `${tunables}:${MALLOC_TUNABLE}` : MALLOC_TUNABLE };
  try {
    execve.call(
      process,
      process.execPath,
      [
        process.execPath,
        ...(youngSet ? [] : [YOUNG_GENERATION_FLAG]),
        ...process.execArgv,
        ...process.argv.slice(1),
      ],
      env,
    );
  } catch {
    // Refused (a permission model, a sandbox): the server runs with the allocator's defaults.
  }
}
