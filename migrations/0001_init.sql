-- Bots, their versions, and finished matches with their bots and stats.
-- Timestamps are timestamptz (UTC on the way out); ids are text chosen by the application.

CREATE TABLE bots (
  id text PRIMARY KEY,
  name text NOT NULL,
  -- Names are unique ignoring case; the lowercase copy carries the unique index and the lookups.
  name_lower text NOT NULL,
  display_name text NOT NULL,
  owner text NOT NULL,
  house boolean NOT NULL DEFAULT false,
  -- sha256 hex of the bot token; null for house bots, which connect in-process.
  token_hash text,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'banned', 'retired')),
  avatar text,
  created timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX bots_name_lower_key ON bots (name_lower);
CREATE UNIQUE INDEX bots_token_hash_key ON bots (token_hash);
CREATE INDEX bots_owner_idx ON bots (owner);

CREATE TABLE bot_versions (
  bot_id text NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
  label text NOT NULL,
  notes text NOT NULL DEFAULT '',
  created timestamptz NOT NULL DEFAULT now(),
  retired boolean NOT NULL DEFAULT false,
  PRIMARY KEY (bot_id, label)
);

CREATE TABLE matches (
  id text PRIMARY KEY,
  -- Insertion order: a stable newest-first order even when two matches end in the same millisecond.
  seq bigserial NOT NULL UNIQUE,
  ladder_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('ranked', 'human')),
  seed bigint NOT NULL,
  map text NOT NULL,
  started timestamptz,
  ended timestamptz NOT NULL,
  duration_ms double precision,
  final_tick integer NOT NULL,
  reason text NOT NULL,
  -- No foreign keys to bots on match rows: a match is history and must stay readable whatever happens later.
  winner_bot_id text,
  voided boolean NOT NULL,
  note text,
  replay_file text,
  replay_trimmed boolean NOT NULL DEFAULT false
);
CREATE INDEX matches_ladder_seq_idx ON matches (ladder_id, seq);

CREATE TABLE match_bots (
  match_id text NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
  -- Copied from matches.seq so "a bot's latest matches" is one index range scan.
  seq bigint NOT NULL,
  fighter integer NOT NULL,
  bot_id text NOT NULL,
  -- Name, display name, avatar and house flag as they were when the match was played.
  name text NOT NULL,
  display_name text NOT NULL,
  version text NOT NULL,
  house boolean NOT NULL,
  avatar text,
  rating_before double precision,
  rating_after double precision,
  PRIMARY KEY (match_id, fighter)
);
CREATE INDEX match_bots_bot_seq_idx ON match_bots (bot_id, seq);
-- Lookups by a name no current bot carries (renamed or deleted bots).
CREATE INDEX match_bots_name_seq_idx ON match_bots (lower(name), seq);

CREATE TABLE match_stats (
  match_id text PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
  stats_version integer NOT NULL,
  stats jsonb NOT NULL
);
