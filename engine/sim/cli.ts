// Entry of arena-sim (`npm run sim -- <args>`, and the bundled dist/arena-sim.mjs / .js): runs one command and
// exits with its code. Bot programs still running are killed on the way out, also on Ctrl-C.
import { main } from "./main.ts";
import { killAllBotPrograms } from "./process-seat.ts";

// Supported are the maintained lines, 22 and 24. The bundle (built for Node 20) still runs on 20 and 21, so those
// are not refused; older ones would fail on the bundle's syntax or APIs, so they stop here with the advice.
const major = Number(process.versions.node.split(".")[0]);
if (major < 20) {
  process.stderr.write(`arena-sim needs Node.js 22 or newer; this is ${process.version}\n`);
  process.exit(2);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    killAllBotPrograms();
    process.exit(signal === "SIGINT" ? 130 : 143);
  });
}

main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd() }).then(
  (code) => {
    killAllBotPrograms();
    process.exitCode = code;
  },
  (err: unknown) => {
    killAllBotPrograms();
    process.stderr.write(
      `arena-sim: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exitCode = 1;
  },
);
