-- Reads that cost what the answer is, not what the history is (issue 38).
--
-- A bot version's latest matches as one index range scan: its health window (the latest 500 with stats,
-- server/bots/health-windows.ts) and the dashboard's sparklines (the tail of its rating history) walk
-- (bot_id, version, seq) newest first and stop at their limit, instead of reading every match of the bot.
CREATE INDEX match_bots_bot_version_seq_idx ON match_bots (bot_id, version, seq);

-- The ladder a seat's game was rated on (a ranked, non-voided match with a rating stored for the seat), null
-- otherwise: a bot's rating history is then picked from one index of match_bots alone, without visiting each
-- match row to test its ladder, mode and voided flag (the planner read the whole matches table for a house
-- bot's chart). Written by the insert statement with the seat (server/store/match-insert.ts); matches are never
-- re-rated or voided after they are stored, so it cannot go stale.
ALTER TABLE match_bots ADD COLUMN rated_ladder text;
UPDATE match_bots mb SET rated_ladder = m.ladder_id
FROM matches m
WHERE m.id = mb.match_id AND m.mode = 'ranked' AND NOT m.voided AND mb.rating_after IS NOT NULL;
CREATE INDEX match_bots_rated_idx ON match_bots (bot_id, rated_ladder, seq, version) WHERE rated_ladder IS NOT NULL;
