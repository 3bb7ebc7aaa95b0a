-- Whether a match has a stats record, stored with the match (issue 38): a match list reads it from the row it
-- already reads instead of probing match_stats per call, which the planner turned into a scan of every stats
-- key whatever the limit. Written by the same statement that writes the stats (server/store/match-insert.ts);
-- stats rows are never deleted on their own (only with their match, by cascade), so the flag cannot go stale.
ALTER TABLE matches ADD COLUMN has_stats boolean NOT NULL DEFAULT false;
UPDATE matches m SET has_stats = true WHERE EXISTS (SELECT 1 FROM match_stats s WHERE s.match_id = m.id);
