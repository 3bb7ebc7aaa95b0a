// Plays one scripted match inside a worker thread and posts its replay text back, so tests can compare
// replays made in different threads.
import { parentPort, workerData } from "node:worker_threads";
import { playMatch, strategySeat } from "../../engine/sim/play.ts";
import { scriptedBot } from "./scripted-bot.ts";

const { seed, map } = workerData as { seed: number; map: string };
const { match } = await playMatch([strategySeat(scriptedBot(seed)), strategySeat(scriptedBot(seed + 1))], {
  matchId: `det-${seed}`,
  seed,
  map,
});
parentPort!.postMessage(match.replay.jsonl());
