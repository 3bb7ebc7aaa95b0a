// The rating book at start-up (issue 38): from the ladder's saved snapshot plus the rated results stored after it
// when the snapshot still matches the database, else from every stored result. The snapshot is written here too,
// after a full rebuild or once enough results were read past it, so that the next start reads only the tail.
//
// Stale means: the snapshot's number of rated results plus those stored after its last match is not the ladder's
// number of rated results (results deleted, a database restored from an older dump, a snapshot from another
// database), or the snapshot's format or map list is not this build's. Rated results are never re-rated or
// voided once stored (migrations/0016), so equal counts mean the same results. The ladder's count is a row the
// database keeps with each insert (migrations/0020), so the check reads the tail and one row, not the history.
import { type RatingBook, ratedGame } from "./book.ts";
import type { RatedResultRow, RatingStore } from "./rating-store.ts";

/** The reads and the one write a book's start makes. */
export type BookStartStore = Pick<
  RatingStore,
  "ratingSnapshot" | "ratedResultCount" | "ratedResults" | "saveRatingSnapshot"
>;

/** Results read past the snapshot at start from which it is rewritten (a full rebuild always rewrites it). */
export const SNAPSHOT_AFTER = 1000;

export type BookStart =
  | { from: "snapshot"; tail: number }
  | { from: "full"; stale: boolean; results: number };

/** Loads `book` (fresh) with the ladder's stored rated results and fits it; says which way it went. */
export async function startBook(
  book: RatingBook,
  store: BookStartStore,
  ladderId: string,
): Promise<BookStart> {
  const snap = await store.ratingSnapshot(ladderId);
  // The count first: a result stored between the two reads makes the tail longer than the count allows, and the
  // start falls back to the full rebuild rather than miss it.
  const total = snap ? await store.ratedResultCount(ladderId) : 0;
  const tail = snap ? await store.ratedResults(ladderId, snap.through_seq) : [];
  if (snap && snap.results + tail.length === total && book.restore(snap.book)) {
    book.load(tail.map(ratedGame));
    if (tail.length >= SNAPSHOT_AFTER) await save(book, store, ladderId, tail, snap.results + tail.length);
    return { from: "snapshot", tail: tail.length };
  }
  const rows = await store.ratedResults(ladderId);
  book.load(rows.map(ratedGame));
  if (rows.length > 0) await save(book, store, ladderId, rows, rows.length);
  return { from: "full", stale: snap !== null, results: rows.length };
}

async function save(
  book: RatingBook,
  store: BookStartStore,
  ladderId: string,
  rows: RatedResultRow[],
  results: number,
) {
  const through = rows.at(-1)?.seq;
  if (through === undefined) return;
  await store.saveRatingSnapshot(ladderId, { through_seq: through, results, book: book.snapshot() });
}
