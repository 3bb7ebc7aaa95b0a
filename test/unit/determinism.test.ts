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

// Pinned for release 0.45.0, engine 0.24.0, rules 0.22.0 (the header carries all three). A change here means
// replays recorded before it no longer re-simulate: bump ENGINE_VERSION (or the rules version) in the same commit.
const GOLDEN: Record<string, string> = {
  "arena-21": "e5de7716f8283a5987bb2178b08e84fba3f2629004e400b0fc13cb0159b347ff",
  "columns-21": "be58f2309d51a9a3ed0babf0eb87d05dd2dc2ec7b152935a9ee0cd58cb600e08",
  "pillars-21": "c34190e50a4f87649ed4565ada616f717cca9947aea59b18501b8e3b04e1fa9c",
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
