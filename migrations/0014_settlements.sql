-- Settlement phases (issue 34, part 4; server/settlement/). Staff end a ladder's window (or a season of an
-- always-open ladder) with a settlement: from `starts_at` the versions of the ladder's top K are frozen, the
-- ordinary matchmaker stops pairing on that ladder, and up to `game_budget` extra rated games are played among
-- the top K, between rank neighbours whose rank intervals overlap most. At the end (the budget played, or
-- `ends_at`) the standings are written once to settlement_snapshots, which nothing may change.
CREATE TABLE settlements (
  id text PRIMARY KEY,
  ladder_id text NOT NULL,
  top_k integer NOT NULL CHECK (top_k BETWEEN 2 AND 50),
  game_budget integer NOT NULL CHECK (game_budget BETWEEN 1 AND 1000),
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL CHECK (ends_at > starts_at),
  state text NOT NULL CHECK (state IN ('scheduled', 'settling', 'final')),
  -- The top K as the settlement began: [{rank, bot_id, name, version, rating}]; null while scheduled.
  frozen jsonb,
  created_by text,
  created timestamptz NOT NULL DEFAULT now(),
  began_at timestamptz,
  ended_at timestamptz
);
-- At most one settlement per ladder that has not ended.
CREATE UNIQUE INDEX settlements_open_idx ON settlements (ladder_id) WHERE state <> 'final';
CREATE INDEX settlements_ladder_idx ON settlements (ladder_id, created);

-- Each extra game a settlement started (a ranked match of the ladder; the match row holds its result).
CREATE TABLE settlement_games (
  match_id text PRIMARY KEY,
  settlement_id text NOT NULL REFERENCES settlements (id) ON DELETE CASCADE,
  bots jsonb NOT NULL,
  overlap integer NOT NULL,
  started timestamptz NOT NULL DEFAULT now(),
  ended timestamptz,
  voided boolean
);
CREATE INDEX settlement_games_settlement_idx ON settlement_games (settlement_id, started);

-- The final standings: one row per settlement (the primary key refuses a second), never updated or deleted
-- (the trigger below refuses both, whoever asks).
CREATE TABLE settlement_snapshots (
  settlement_id text PRIMARY KEY REFERENCES settlements (id),
  ladder_id text NOT NULL,
  taken_at timestamptz NOT NULL DEFAULT now(),
  top_k integer NOT NULL,
  games_played integer NOT NULL,
  standings jsonb NOT NULL
);
CREATE FUNCTION settlement_snapshot_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'settlement snapshots are immutable (settlement %)', OLD.settlement_id
    USING ERRCODE = 'integrity_constraint_violation';
END
$$;
CREATE TRIGGER settlement_snapshot_immutable BEFORE UPDATE OR DELETE ON settlement_snapshots
  FOR EACH ROW EXECUTE FUNCTION settlement_snapshot_immutable();
