-- Issue 34's options (server/tournaments/, server/settlement/).
--
-- A tournament may be rated: its games are then ordinary rated games of its ladder (mode 'ranked'), which the
-- ladder's ratings, forecasts and leaderboard take in; by default (false) they are unrated games of mode
-- 'tournament', which all of those leave out.
ALTER TABLE tournaments ADD COLUMN rated boolean NOT NULL DEFAULT false;

-- A settlement may end an event's window rather than the ladder's: the event it was scheduled for (its end
-- defaults to the event's closing, which it may not follow), null for a ladder's own settlement.
ALTER TABLE settlements ADD COLUMN event_id text;
