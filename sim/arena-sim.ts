// Entry of arena-sim (`npm run sim -- <args>`, and the bundled dist/arena-sim.mjs / .js): runs one command and
// exits with its code. Bot programs still running are killed on the way out, also on Ctrl-C.
//
// This file puts the simulator together: the engine's commands (engine/sim) and, for `league`, the ladder's own
// rating book (server/ratings), so a league rates exactly as the ladder does. It sits above both layers, outside
// engine/, which imports nothing from the server (.dependency-cruiser.cjs). It is also the script of the
// league's worker threads: started as a worker with league data, it plays games instead of parsing arguments.
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { type LeagueRatings, type LeagueWorkerData, leagueWorker } from "../engine/sim/league.ts";
import { main } from "../engine/sim/main.ts";
import { killAllBotPrograms } from "../engine/sim/process-seat.ts";
import { RatingBook } from "../server/ratings/book.ts";

/** The ladder's rating book over a league's games: the same load and fit the ladder runs at start-up. */
const ratings: LeagueRatings = (games) => {
  const book = new RatingBook();
  book.load(games);
  return (key) => book.get(key);
};

const leagueData = workerData as LeagueWorkerData | undefined;
if (!isMainThread && parentPort && leagueData?.arenaSimLeague) {
  void leagueWorker(leagueData, parentPort);
} else {
  // Supported are the maintained lines, 22 and 24. The bundle (built for Node 20) still runs on 20 and 21, so
  // those are not refused; older ones would fail on the bundle's syntax or APIs, so they stop here with the
  // advice.
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

  main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
    ratings,
    // This very file, as the league's worker script: the bundle when bundled, this source under tsx.
    workerScript: process.argv[1]!,
  }).then(
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
}
