// Entry of arena-sim (`npm run sim -- <args>`, and the bundled dist/arena-sim.mjs / .js): runs one command and
// exits with its code. Bot programs still running are killed on the way out, also on Ctrl-C.
import { main } from "./main.ts";
import { killAllBotPrograms } from "./process-seat.ts";

const major = Number(process.versions.node.split(".")[0]);
if (major < 20) {
  process.stderr.write(`arena-sim needs Node.js 20 or newer; this is ${process.version}\n`);
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
