// In each test process (vitest's setupFiles): when the process exits, or is told to by a signal, while a test
// file is still running, says so and with what code or signal, on its stderr and in the file VITEST_EXIT_LOG
// names (scripts/test.mjs prints that file at the end). A fork lost in the middle of a file leaves nothing else
// behind (test/helpers/worker-loss-reporter.ts). SIGKILL and a native abort cannot be seen from here: no line then
// means one of those.
import { appendFileSync, writeSync } from "node:fs";
import { afterAll, beforeAll, expect } from "vitest";

// One watch per process: the setup file runs again for each file a process takes, and its state lives on.
const KEY = Symbol.for("arena-ladder.fork-exit-watch");
type Watch = { running: string | null };
const holder = process as unknown as Record<symbol, Watch | undefined>;
const fresh = holder[KEY] === undefined;
if (fresh) holder[KEY] = { running: null };
const watch = holder[KEY] as Watch;

beforeAll(() => {
  watch.running = expect.getState().testPath ?? "a test file";
});
afterAll(() => {
  watch.running = null;
});

function say(what: string): void {
  if (!watch.running) return;
  const line = `[test process ${process.pid}] ${what} while ${watch.running} was running\n`;
  try {
    writeSync(2, line);
    if (process.env.VITEST_EXIT_LOG) appendFileSync(process.env.VITEST_EXIT_LOG, line);
  } catch {
    // nowhere to say it
  }
}

if (fresh) {
  process.on("exit", (code) => say(`exits with code ${code}`));
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP", "SIGUSR2"] as const) {
    // Said, then the signal's own default action (the listener is gone once it has run).
    process.once(signal, () => {
      say(`got ${signal}`);
      process.kill(process.pid, signal);
    });
  }
}
