// The match list's keyset cursor across results still in the journal (issue 38): journaled results (the database
// was unreachable when they ended) are the newest and come first; a cursor at one of them continues with the
// older journaled ones and then the stored list from its newest, and a cursor at a stored match leaves the
// journal out. LadderReads over a store that holds the stored part in memory.
import { describe, expect, it } from "vitest";
import { LadderReads, type ReadsDeps } from "../../server/reads/reads.ts";
import type { MatchQuery, MatchRecord, StoredMatch } from "../../server/store/types.ts";
import { matchRecord } from "../helpers/match-records.ts";

const a = { id: "b_a", name: "jr-a" };
const b = { id: "b_b", name: "jr-b" };
const c = { id: "b_c", name: "jr-c" };
const seatsOf = (i: number): [typeof a, typeof a] => (i % 2 ? [a, b] : [b, c]);

/** Stored s1..s9 (seq 1..9), journaled j1..j4 (newest last). */
const stored: StoredMatch[] = Array.from({ length: 9 }, (_, i) => {
  const { stats: _stats, ...m } = matchRecord(`s${i + 1}`, seatsOf(i));
  return { ...m, replay_trimmed: false, has_stats: true };
});
const journal: MatchRecord[] = Array.from({ length: 4 }, (_, i) => matchRecord(`j${i + 1}`, seatsOf(i)));

const store = {
  async matchSeq(id: string) {
    const i = stored.findIndex((m) => m.id === id);
    return i < 0 ? null : i + 1;
  },
  async matches(q: MatchQuery) {
    return stored
      .map((m, i) => ({ m, seq: i + 1 }))
      .filter(
        ({ m, seq }) =>
          (q.beforeSeq === undefined || seq < q.beforeSeq) &&
          (!q.botName || m.bots.some((x) => x.name === q.botName)),
      )
      .reverse()
      .slice(0, q.limit)
      .map(({ m }) => m);
  },
};
const reads = new LadderReads({
  store,
  matchStore: store,
  ladders: { require: () => ({ id: "public" }) },
  bots: { snapshot: async () => ({ bots: [] }) },
  publicUrl: "http://ladder.test",
  journaled: () => journal,
} as unknown as ReadsDeps);

async function walk(q: { bot?: string }, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let before: string | undefined;
  for (let page = 0; page < 20; page++) {
    const got = await reads.matches({ ...q, limit, ...(before ? { before } : {}) });
    ids.push(...got.map((m) => m.id));
    if (got.length < limit) return ids;
    before = got.at(-1)!.id;
  }
  throw new Error("the cursor did not move");
}

describe("match list cursor with journaled results", () => {
  it("walks the journal, newest first, then the stored matches, each once", async () => {
    const all = ["j4", "j3", "j2", "j1", "s9", "s8", "s7", "s6", "s5", "s4", "s3", "s2", "s1"];
    for (const limit of [1, 2, 3, 5, 13, 50]) expect(await walk({}, limit)).toEqual(all);
  });

  it("a bot's list through a journaled cursor that is not its match", async () => {
    // jr-c plays j1 and j3 (and the stored s1, s3, s5, s7, s9).
    expect(await walk({ bot: "jr-c" }, 2)).toEqual(["j3", "j1", "s9", "s7", "s5", "s3", "s1"]);
    // A cursor at j2 (jr-a and jr-b): jr-c's journaled results older than it, then its stored ones.
    const after = await reads.matches({ bot: "jr-c", limit: 3, before: "j2" });
    expect(after.map((m) => m.id)).toEqual(["j1", "s9", "s7"]);
  });

  it("a stored cursor leaves the journal out; an unknown one is a 400", async () => {
    expect((await reads.matches({ limit: 3, before: "s5" })).map((m) => m.id)).toEqual(["s4", "s3", "s2"]);
    await expect(reads.matches({ limit: 3, before: "nope" })).rejects.toMatchObject({
      status: 400,
      code: "bad_request",
    });
  });
});
