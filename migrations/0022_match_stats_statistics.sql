-- Planner statistics of match_stats from a small sample (issue 38). ANALYZE samples 300 rows per unit of the
-- largest statistics target among a table's columns (100 by default: 30,000 rows), and holds the whole sample,
-- each row with its inline stats JSON (about 2 KB). In the embedded database that took about 61 MiB of PGlite's
-- WebAssembly memory at every start past 30,000 games, memory WebAssembly never gives back (the server's peak
-- during reads was 360-403 MiB at 100,000 games). The table is read only by its key: the JSON column needs no
-- statistics at all, and a unique key needs few, so 3,000 rows are sampled (about 6 MiB) and every other
-- table keeps PostgreSQL's default.
ALTER TABLE match_stats ALTER COLUMN stats SET STATISTICS 0;
ALTER TABLE match_stats ALTER COLUMN match_id SET STATISTICS 10;
ALTER TABLE match_stats ALTER COLUMN stats_version SET STATISTICS 10;
