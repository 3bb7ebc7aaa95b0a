// Same seed and turns give the same replay bytes: in two fresh engine instances, in two worker threads,
// and against a pinned golden hash that changes only with an engine or rules change.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { playMatch, strategySeat } from "../../engine/sim/play.ts";
import { verifyReplay } from "../../engine/verify.ts";
import { scriptedBot } from "../helpers/scripted-bot.ts";
import { tsWorker } from "../helpers/ts-worker.ts";

const sha = (s: string | Uint8Array) => createHash("sha256").update(s).digest("hex");

async function replayHere(seed: number, map: string) {
  const { match } = await playMatch([strategySeat(scriptedBot(seed)), strategySeat(scriptedBot(seed + 1))], {
    matchId: `det-${seed}`,
    seed,
    map,
  });
  return match;
}

function replayInWorker(seed: number, map: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const w = tsWorker(new URL("../helpers/replay-worker.ts", import.meta.url), { seed, map });
    w.once("message", (text: string) => {
      resolve(text);
      void w.terminate();
    });
    w.once("error", reject);
  });
}

// Pinned for engine 0.23.0 / rules 0.22.0. A change here means replays recorded before it no longer
// re-simulate: bump ENGINE_VERSION (or the rules version) in the same commit.
const GOLDEN: Record<string, string> = {
  "arena-21": "317f0d5b7e032e949070b7032b8542420617fd5bb63244a5cd69f3f1d868d106",
  "columns-21": "cc3ce576137cbdcddf156faebc5290f38181c745999139b7bc1fc8243055986e",
  "pillars-21": "31266cc739778cd0e689d1e79c02135b69509fe456630a0b7e89aac63ec8e574",
};

describe("determinism", () => {
  for (const map of Object.keys(GOLDEN)) {
    it(`gives byte-identical replays in two instances and two worker threads (${map})`, async () => {
      const a = await replayHere(1234, map);
      const b = await replayHere(1234, map);
      expect(a.replay.jsonl()).toBe(b.replay.jsonl());
      expect(sha(a.replay.gzip())).toBe(sha(b.replay.gzip()));
      const [w1, w2] = await Promise.all([replayInWorker(1234, map), replayInWorker(1234, map)]);
      expect(w1).toBe(a.replay.jsonl());
      expect(w2).toBe(a.replay.jsonl());
      expect(verifyReplay(a.replay.gzip())).toMatchObject({ ok: true });
      expect(sha(a.replay.jsonl())).toBe(GOLDEN[map]);
    });
  }

  it("gives different games for different seeds", async () => {
    const a = await replayHere(1, "arena-21");
    const b = await replayHere(2, "arena-21");
    expect(a.replay.jsonl()).not.toBe(b.replay.jsonl());
  });
});
