// Whether the database answered its last statement. A statement that fails because the database cannot be
// reached (isDbUnavailable) marks it unreachable; the next statement it answers, with rows or with an error of
// its own, marks it reachable again. A caller that may skip a read it has cached (the socket's re-queue with a
// known version) reads this first, so that while the database is known to be down the read is made and fails
// as it would have, and the first read that succeeds is what says it is back.
import { type Db, isDbUnavailable, type Queryable } from "./db.ts";

export interface Reachability {
  /** False from a statement that could not reach the database until one that did. */
  readonly reachable: boolean;
}

export function watchReachability(db: Db): { db: Db; reachability: Reachability } {
  const state = { reachable: true };
  const watch = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      const out = await run();
      state.reachable = true;
      return out;
    } catch (err) {
      state.reachable = !isDbUnavailable(err);
      throw err;
    }
  };
  const watched = (q: Queryable): Queryable => ({
    query: (sql, params) => watch(() => q.query(sql, params)),
    exec: (sql) => watch(() => q.exec(sql)),
  });
  const plain = watched(db);
  return {
    db: {
      driver: db.driver,
      query: plain.query,
      exec: plain.exec,
      tx: (fn) => watch(() => db.tx((q) => fn(watched(q)))),
      close: () => db.close(),
    },
    reachability: state,
  };
}
