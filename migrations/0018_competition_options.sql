-- Issue 34's options (server/tournaments/, server/settlement/).
--
-- A tournament may be rated: its games are then ordinary rated games of its ladder (mode 'ranked'), which the
-- ladder's ratings, forecasts and leaderboard take in; by default (false) they are unrated games of mode
-- 'tournament', which all of those leave out.
ALTER TABLE tournaments ADD COLUMN rated boolean NOT NULL DEFAULT false;
