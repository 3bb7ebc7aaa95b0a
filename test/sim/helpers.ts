// Shared helpers of the simulator tests: run the CLI in-process with captured output, fixture paths.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type CliIo, main } from "../../engine/sim/main.ts";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const FIXTURES = join(ROOT, "test", "fixtures", "sim");
export const fixture = (name: string) => join(FIXTURES, name);

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(
  args: string[],
  o: { tty?: boolean; fetch?: typeof fetch; cwd?: string } = {},
): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: o.tty ?? false },
    cwd: o.cwd ?? ROOT,
    ...(o.fetch ? { fetch: o.fetch } : {}),
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}
