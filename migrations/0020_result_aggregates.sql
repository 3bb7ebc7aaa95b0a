-- Start-up that does not read every stored match (issue 38).
--
-- What a start used to aggregate from the whole history, kept as rows that the database updates with each insert:
-- every version's rated record on each ladder (the leaderboard's wins, losses, draws and newest rated game), every
-- bot's seat balance (fighter-0 games minus fighter-1 games, scrimmages and tournaments not counted: the
-- matchmaker's seat rule), and each ladder's number of rated results (the rating snapshot's freshness check:
-- the snapshot's count plus the results stored after it must equal it). Statement-level triggers on the two
-- tables the result insert writes (server/store/match-insert.ts) add each batch's rows in the same transaction,
-- so the aggregates are exactly the stored history's, on both databases and on every node of a cluster. Matches
-- are never deleted, re-rated or voided after they are stored (0016), so inserts are all they follow.
CREATE TABLE ladder_version_records (
  ladder_id text NOT NULL,
  bot_id text NOT NULL,
  version text NOT NULL,
  wins bigint NOT NULL,
  losses bigint NOT NULL,
  draws bigint NOT NULL,
  -- The seq of the version's newest rated game on the ladder.
  last bigint NOT NULL,
  PRIMARY KEY (ladder_id, bot_id, version)
);

CREATE TABLE bot_seat_balance (
  bot_id text PRIMARY KEY,
  balance bigint NOT NULL
);

CREATE TABLE ladder_rated_counts (
  ladder_id text PRIMARY KEY,
  results bigint NOT NULL
);

INSERT INTO ladder_version_records (ladder_id, bot_id, version, wins, losses, draws, last)
SELECT m.ladder_id, mb.bot_id, mb.version,
       count(*) FILTER (WHERE m.winner_bot_id = mb.bot_id),
       count(*) FILTER (WHERE m.winner_bot_id <> mb.bot_id),
       count(*) FILTER (WHERE m.winner_bot_id IS NULL),
       max(mb.seq)
FROM match_bots mb JOIN matches m ON m.id = mb.match_id
WHERE m.mode = 'ranked' AND NOT m.voided
GROUP BY m.ladder_id, mb.bot_id, mb.version;

INSERT INTO bot_seat_balance (bot_id, balance)
SELECT mb.bot_id, sum(CASE WHEN mb.fighter = 0 THEN 1 ELSE -1 END)
FROM match_bots mb JOIN matches m ON m.id = mb.match_id
WHERE m.mode NOT IN ('scrimmage', 'tournament')
GROUP BY mb.bot_id;

INSERT INTO ladder_rated_counts (ladder_id, results)
SELECT ladder_id, count(*) FROM matches WHERE mode = 'ranked' AND NOT voided GROUP BY ladder_id;

CREATE FUNCTION matches_rated_counts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ladder_rated_counts AS c (ladder_id, results)
  SELECT ladder_id, count(*) FROM new_matches WHERE mode = 'ranked' AND NOT voided GROUP BY ladder_id
  ON CONFLICT (ladder_id) DO UPDATE SET results = c.results + EXCLUDED.results;
  RETURN NULL;
END $$;

CREATE TRIGGER matches_rated_counts AFTER INSERT ON matches
  REFERENCING NEW TABLE AS new_matches FOR EACH STATEMENT EXECUTE FUNCTION matches_rated_counts();

CREATE FUNCTION match_bots_aggregates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO ladder_version_records AS r (ladder_id, bot_id, version, wins, losses, draws, last)
  SELECT m.ladder_id, s.bot_id, s.version,
         count(*) FILTER (WHERE m.winner_bot_id = s.bot_id),
         count(*) FILTER (WHERE m.winner_bot_id <> s.bot_id),
         count(*) FILTER (WHERE m.winner_bot_id IS NULL),
         max(s.seq)
  FROM new_seats s JOIN matches m ON m.id = s.match_id
  WHERE m.mode = 'ranked' AND NOT m.voided
  GROUP BY m.ladder_id, s.bot_id, s.version
  ON CONFLICT (ladder_id, bot_id, version) DO UPDATE
    SET wins = r.wins + EXCLUDED.wins, losses = r.losses + EXCLUDED.losses, draws = r.draws + EXCLUDED.draws,
        last = greatest(r.last, EXCLUDED.last);
  INSERT INTO bot_seat_balance AS b (bot_id, balance)
  SELECT s.bot_id, sum(CASE WHEN s.fighter = 0 THEN 1 ELSE -1 END)
  FROM new_seats s JOIN matches m ON m.id = s.match_id
  WHERE m.mode NOT IN ('scrimmage', 'tournament')
  GROUP BY s.bot_id
  ON CONFLICT (bot_id) DO UPDATE SET balance = b.balance + EXCLUDED.balance;
  RETURN NULL;
END $$;

CREATE TRIGGER match_bots_aggregates AFTER INSERT ON match_bots
  REFERENCING NEW TABLE AS new_seats FOR EACH STATEMENT EXECUTE FUNCTION match_bots_aggregates();

-- The replay files stored matches still refer to, which a start reads to sweep orphaned files
-- (server/results/feature.ts): the kept replays only (each bot's newest few), not a scan of every match.
CREATE INDEX matches_replay_kept_idx ON matches (replay_file) WHERE replay_file IS NOT NULL AND NOT replay_trimmed;
