// server/memory-tuning.ts: the entry re-executes itself once with glibc's mmap threshold fixed and a smaller young
// generation, in the same process, and leaves an operator's own malloc tunables, semi-space size and IPC children
// alone. Each case runs a small program that calls tuneMemory() and prints what it then runs with.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { MALLOC_TUNABLE, YOUNG_GENERATION_FLAG } from "../../server/memory-tuning.ts";
import { skipAllIf } from "../helpers/skips.ts";

const run = promisify(execFile);
const MODULE = new URL("../../server/memory-tuning.ts", import.meta.url).href;
const PROGRAM = `const { tuneMemory } = await import(${JSON.stringify(MODULE)});
tuneMemory();
console.log(JSON.stringify({ pid: process.pid, tunables: process.env.GLIBC_TUNABLES ?? null, args: process.argv.slice(1), flags: process.execArgv }));`;
const cannotExec =
  process.platform !== "linux"
    ? "glibc tunables are for Linux"
    : typeof (process as { execve?: unknown }).execve !== "function"
      ? `Node ${process.version} has no process.execve (22.15 and later have it)`
      : null;

async function tuned(
  env: NodeJS.ProcessEnv,
): Promise<{ pid: number; tunables: string | null; args: string[]; flags: string[] }> {
  const child = run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", PROGRAM, "a", "b"], {
    env: { ...process.env, ...env },
  });
  const { stdout } = await child;
  const out = JSON.parse(stdout.trim().split("\n").at(-1)!);
  expect(out.pid).toBe(child.child.pid); // the same process, re-executed
  return out;
}

describe("tuneMemory", () => {
  skipAllIf(cannotExec);

  it("re-executes the process once with the tunable and the young generation's flag, keeping its arguments", async () => {
    const out = await tuned({ GLIBC_TUNABLES: "" });
    expect(out.tunables).toBe(MALLOC_TUNABLE);
    expect(out.args).toEqual(["a", "b"]);
    expect(out.flags.filter((f) => f.startsWith("--max-semi-space-size"))).toEqual([YOUNG_GENERATION_FLAG]);
  });

  it("leaves an operator's own semi-space size alone", async () => {
    const out = await tuned({ GLIBC_TUNABLES: "", NODE_OPTIONS: "--max-semi-space-size=64" });
    expect(out.tunables).toBe(MALLOC_TUNABLE);
    expect(out.flags.some((f) => f.startsWith("--max-semi-space-size"))).toBe(false);
  });

  it("adds to other glibc tunables", async () => {
    const out = await tuned({ GLIBC_TUNABLES: "glibc.pthread.rseq=0" });
    expect(out.tunables).toBe(`glibc.pthread.rseq=0:${MALLOC_TUNABLE}`);
  });

  it("leaves an operator's own malloc tunables alone", async () => {
    const out = await tuned({ GLIBC_TUNABLES: "glibc.malloc.trim_threshold=65536" });
    expect(out.tunables).toBe("glibc.malloc.trim_threshold=65536");
    expect(out.flags).toContain(YOUNG_GENERATION_FLAG);
  });
});
