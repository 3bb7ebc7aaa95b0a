-- Start-up from a snapshot of the rating book (issue 38).
--
-- A ladder's rating book (every rated result aggregated per version pair and map, and the fit's log-strengths) as
-- of the rated match with order number `through_seq`, which was the `results`-th rated result of the ladder. At
-- start the server checks that the ladder still has exactly `results` rated results up to that match, restores the
-- book, reads only the results after it and refits warm; any other count means the snapshot is stale and the book
-- is rebuilt from every stored result (server/ladders/runtime.ts, server/ratings/book.ts).
CREATE TABLE rating_snapshots (
  ladder_id text PRIMARY KEY,
  through_seq bigint NOT NULL,
  results integer NOT NULL,
  book text NOT NULL,
  saved_at timestamptz NOT NULL DEFAULT now()
);
