// Group commit of match results (server/results/durable-results.ts): results that end while a commit is under
// way are written together in the next one, each caller is answered only after its own commit, and a result
// the database refuses fails alone.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { DurableResults } from "../../server/results/durable-results.ts";
import { ResultJournal } from "../../server/results/journal.ts";
import type { MatchRecord } from "../../server/store/types.ts";

const record = (id: string): MatchRecord => ({ id }) as MatchRecord;

/** A store whose commits end when the test says, recording each transaction's results. */
function gatedStore(refuse = new Set<string>()) {
  const commits: string[][] = [];
  const gates: (() => void)[] = [];
  const commit = (ids: string[]) =>
    new Promise<void>((resolve, reject) => {
      gates.push(() => {
        if (ids.some((id) => refuse.has(id))) return reject(new Error(`refused ${ids.join(",")}`));
        commits.push(ids);
        resolve();
      });
    });
  return {
    commits,
    open: async () => {
      while (gates.length === 0) await new Promise((r) => setTimeout(r, 1));
      gates.shift()!();
      await new Promise((r) => setTimeout(r, 1));
    },
    store: {
      saveMatch: (m: MatchRecord) => commit([m.id]),
      saveMatches: (ms: readonly MatchRecord[]) => commit(ms.map((m) => m.id)),
    },
  };
}

function results(store: ReturnType<typeof gatedStore>["store"]) {
  const journal = new ResultJournal(join(mkdtempSync(join(tmpdir(), "group-commit-")), "journal"));
  return new DurableResults({ store, journal, log: pino({ level: "silent" }), commitTimeoutMs: 60_000 });
}

describe("group commit of results", () => {
  it("writes the results that ended during a commit together, and answers each after its commit", async () => {
    const g = gatedStore();
    const r = results(g.store);
    const answered: string[] = [];
    const first = r.persist(record("a")).then(() => answered.push("a"));
    await new Promise((res) => setTimeout(res, 1));
    const rest = ["b", "c", "d"].map((id) => r.persist(record(id)).then(() => answered.push(id)));
    expect(answered).toEqual([]);
    await g.open(); // a's own commit
    await first;
    expect(answered).toEqual(["a"]);
    await g.open(); // b, c and d in one transaction
    await Promise.all(rest);
    expect(g.commits).toEqual([["a"], ["b", "c", "d"]]);
    expect(answered).toEqual(["a", "b", "c", "d"]);
  });

  it("a refused result fails alone: the rest of its batch is written one by one", async () => {
    const g = gatedStore(new Set(["bad"]));
    const r = results(g.store);
    const first = r.persist(record("a"));
    await new Promise((res) => setTimeout(res, 1));
    const more = ["b", "bad", "c"].map((id) => r.persist(record(id)));
    await g.open(); // a
    await first;
    await g.open(); // the batch, refused as a whole
    await g.open(); // b
    await g.open(); // bad: refused, so it is journaled instead
    await g.open(); // c
    expect(await Promise.all(more)).toEqual(["stored", "journaled", "stored"]);
    expect(g.commits).toEqual([["a"], ["b"], ["c"]]);
    r.stop();
  });

  it("hands the results it wrote from the journal at start to a listener added after, once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "group-commit-"));
    const journal = new ResultJournal(join(dir, "journal"));
    for (const [id, ended] of [
      ["old", "2026-01-01T00:00:00.000Z"],
      ["refused", "2026-01-02T00:00:00.000Z"],
    ] as const)
      await journal.write({ id, ended } as MatchRecord);
    const written: string[] = [];
    const store = {
      saveMatch: async (m: MatchRecord) => {
        if (m.id === "refused") throw new Error("refused");
        written.push(m.id);
      },
      saveMatches: async () => {},
    };
    const r = new DurableResults({ store, journal, log: pino({ level: "silent" }), retryMinMs: 60_000 });
    await r.recover();
    r.stop();
    expect(written).toEqual(["old"]);
    // The cluster's results stream joins after the recovery: it is handed what was written, not what is pending.
    expect(r.takeRecovered().map((m) => m.id)).toEqual(["old"]);
    expect(r.takeRecovered()).toEqual([]);
    expect(r.pending().map((m) => m.id)).toEqual(["refused"]);
  });
});
