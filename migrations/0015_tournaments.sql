-- Tournaments (issue 34, part 3; server/tournaments/). Staff schedule a round-robin or Swiss tournament on a
-- ladder; bots check in, the rounds are paired and played as unrated matches of mode `tournament`, which every
-- rating, forecast, leaderboard and quota reader leaves out (they read mode 'ranked' only).
ALTER TABLE matches DROP CONSTRAINT matches_mode_check;
ALTER TABLE matches ADD CONSTRAINT matches_mode_check
  CHECK (mode IN ('ranked', 'human', 'scrimmage', 'tournament'));

CREATE TABLE tournaments (
  id text PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  name text NOT NULL,
  ladder_id text NOT NULL,
  format text NOT NULL CHECK (format IN ('round_robin', 'swiss')),
  -- Swiss: the rounds asked for; round-robin: null until the start fixes it from the entrants.
  rounds integer CHECK (rounds BETWEEN 1 AND 99),
  games_per_pairing integer NOT NULL CHECK (games_per_pairing BETWEEN 1 AND 9),
  starts_at timestamptz NOT NULL,
  checkin_s integer NOT NULL CHECK (checkin_s >= 0),
  forfeit_after_s integer NOT NULL CHECK (forfeit_after_s >= 1),
  state text NOT NULL CHECK (state IN ('scheduled', 'running', 'done', 'cancelled')),
  round integer NOT NULL DEFAULT 0,
  note text,
  -- The final standings, written once when the tournament ends.
  standings jsonb,
  created_by text NOT NULL,
  created timestamptz NOT NULL DEFAULT now(),
  started timestamptz,
  ended timestamptz
);

-- A bot that checked in (connected during the check-in window); `seed` is set for those who entered.
CREATE TABLE tournament_entrants (
  tournament_id text NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
  bot_id text NOT NULL,
  bot_name text NOT NULL,
  checked_in timestamptz NOT NULL,
  seed integer,
  PRIMARY KEY (tournament_id, bot_id)
);

-- One game of a pairing (b_id null: a bye, scored on a_id's side). Points from each side; forfeit names the
-- absent side(s).
CREATE TABLE tournament_games (
  tournament_id text NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
  round integer NOT NULL,
  pairing integer NOT NULL,
  game integer NOT NULL,
  a_id text NOT NULL,
  b_id text,
  state text NOT NULL CHECK (state IN ('waiting', 'playing', 'done')),
  map text,
  match_id text,
  points_a double precision,
  points_b double precision,
  forfeit text CHECK (forfeit IN ('a', 'b', 'both')),
  reason text,
  started timestamptz,
  ended timestamptz,
  PRIMARY KEY (tournament_id, round, pairing, game)
);
CREATE INDEX tournament_games_match_idx ON tournament_games (match_id);
