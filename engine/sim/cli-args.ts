// What every arena-sim command shares: the output streams a test hands in, the exit codes, usage errors and the
// option parsing (node:util parseArgs) with its integer options.
import { parseArgs } from "node:util";
import type { LeagueRatings } from "./league.ts";

export interface CliIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  cwd: string;
  fetch?: typeof fetch;
  /** The ladder's rating book, for `league` (the simulator's entry hands it in: see sim/arena-sim.ts). */
  ratings?: LeagueRatings;
  /** The script league worker threads run (the simulator's entry file). */
  workerScript?: string | URL;
}

export const EXIT = { ok: 0, failed: 1, usage: 2, outdated: 3 } as const;

/** A usage mistake: printed with a pointer to --help, exit 2. */
export class UsageError extends Error {}

export const MAX_MESSAGE_BYTES = 4096;

type OptionSpec = Record<string, { type: "string" | "boolean"; short?: string; multiple?: boolean }>;

export function parse<O extends OptionSpec>(args: string[], options: O, positionals = false) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: positionals });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ""));
  }
}

export function intOption(
  name: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`);
  }
  return n;
}
