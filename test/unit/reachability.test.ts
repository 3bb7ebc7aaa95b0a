// The store's view of whether the database answered its last statement (server/db/reachability.ts): the
// socket's re-queue skips its cached version lookup only while this says reachable.
import { describe, expect, it } from "vitest";
import type { Db, Queryable } from "../../server/db/db.ts";
import { watchReachability } from "../../server/db/reachability.ts";

const refused = () =>
  Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
const constraint = () =>
  Object.assign(new Error('duplicate key value violates unique constraint "bots_pkey"'), { code: "23505" });

/** A database whose next statements fail with `next` (one each, in order), then answer. */
function scripted(): Db & { next: Error[] } {
  const next: Error[] = [];
  const run = async () => {
    const err = next.shift();
    if (err) throw err;
    return [];
  };
  const q: Queryable = { query: run, exec: async () => void (await run()) };
  return { next, driver: "pglite", ...q, tx: (fn) => fn(q), close: async () => {} };
}

describe("the database's reachability", () => {
  it("is lost with a statement that could not reach it and back with the next that did", async () => {
    const raw = scripted();
    const { db, reachability } = watchReachability(raw);
    expect(reachability.reachable).toBe(true);
    raw.next.push(refused());
    await expect(db.query("SELECT 1")).rejects.toThrow(/ECONNREFUSED/);
    expect(reachability.reachable).toBe(false);
    raw.next.push(refused());
    await expect(db.exec("SELECT 1")).rejects.toThrow(/ECONNREFUSED/);
    expect(reachability.reachable).toBe(false);
    await db.query("SELECT 1");
    expect(reachability.reachable).toBe(true);
  });

  it("stays reachable when the database answers with an error of the statement's own", async () => {
    const raw = scripted();
    const { db, reachability } = watchReachability(raw);
    raw.next.push(refused(), constraint());
    await expect(db.query("INSERT")).rejects.toThrow(/ECONNREFUSED/);
    await expect(db.query("INSERT")).rejects.toThrow(/duplicate key/);
    expect(reachability.reachable).toBe(true);
  });

  it("sees statements inside a transaction and the transaction itself", async () => {
    const raw = scripted();
    const { db, reachability } = watchReachability(raw);
    raw.next.push(refused());
    await expect(db.tx((q) => q.query("SELECT 1"))).rejects.toThrow(/ECONNREFUSED/);
    expect(reachability.reachable).toBe(false);
    await db.tx(async (q) => {
      await q.query("SELECT 1");
      // The first statement inside already says the database is back.
      expect(reachability.reachable).toBe(true);
    });
    expect(reachability.reachable).toBe(true);
  });
});
