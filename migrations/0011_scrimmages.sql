-- Scrimmages and batch tests (issue 34, parts 1 and 2; server/scrimmages/). A scrimmage is an unrated match
-- an owner asks for between one of their bots and a chosen opponent; a batch test is N of them against a list
-- of opponents. Their matches are stored with the other matches under the mode `scrimmage`, which every
-- rating, forecast, leaderboard and quota reader leaves out (they read mode 'ranked' only).
ALTER TABLE matches DROP CONSTRAINT matches_mode_check;
ALTER TABLE matches ADD CONSTRAINT matches_mode_check CHECK (mode IN ('ranked', 'human', 'scrimmage'));

-- A bot's owner allows other owners' scrimmage requests against it (off by default: no row).
CREATE TABLE scrimmage_optin (
  bot_id text PRIMARY KEY REFERENCES bots (id) ON DELETE CASCADE,
  allowed boolean NOT NULL,
  updated timestamptz NOT NULL DEFAULT now()
);

-- A batch test: `games` games of one bot (at one version when `version` is set) against `opponents`, in turn.
CREATE TABLE scrimmage_batches (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  bot_id text NOT NULL,
  version text,
  games integer NOT NULL CHECK (games BETWEEN 1 AND 100),
  opponents jsonb NOT NULL,
  map text,
  state text NOT NULL CHECK (state IN ('running', 'done', 'cancelled')),
  created timestamptz NOT NULL DEFAULT now(),
  ended timestamptz
);
CREATE INDEX scrimmage_batches_bot_idx ON scrimmage_batches (bot_id, created);

-- One requested game: a lone scrimmage (batch_id null) or one game of a batch. Bot columns hold ids; a match
-- row keeps the names as they were.
CREATE TABLE scrimmages (
  id text PRIMARY KEY,
  seq bigserial NOT NULL UNIQUE,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  bot_id text NOT NULL,
  opponent_id text NOT NULL,
  batch_id text REFERENCES scrimmage_batches (id) ON DELETE CASCADE,
  map text,
  state text NOT NULL CHECK (state IN ('pending', 'playing', 'done', 'cancelled', 'expired')),
  match_id text,
  -- From the requesting bot's side: win, loss, draw; void when the match was voided.
  result text CHECK (result IN ('win', 'loss', 'draw', 'void')),
  version text,
  played_map text,
  reason text,
  created timestamptz NOT NULL DEFAULT now(),
  started timestamptz,
  ended timestamptz
);
CREATE INDEX scrimmages_bot_idx ON scrimmages (bot_id, seq);
CREATE INDEX scrimmages_opponent_idx ON scrimmages (opponent_id, seq);
CREATE INDEX scrimmages_account_idx ON scrimmages (account_id, created);
CREATE INDEX scrimmages_batch_idx ON scrimmages (batch_id, seq);
