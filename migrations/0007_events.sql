-- Timed events with achievements (issue 16, SPEC 2 Event, 3.9, 4.5, 4.6). Events themselves are defined in
-- the ladder manifest; rows here name an event by its manifest id. Flags are never stored: the operator
-- supplies them (a file or the environment) and they live only in the server's memory.

-- What staff changed on an event (schedule of an event on the default ladder, submission link and text): it
-- outranks the manifest on this run and after a restart. `revision` counts the changes.
CREATE TABLE event_overrides (
  event_id text PRIMARY KEY,
  overrides jsonb NOT NULL DEFAULT '{}'::jsonb,
  revision integer NOT NULL DEFAULT 0,
  updated timestamptz NOT NULL DEFAULT now(),
  updated_by text NOT NULL
);

-- The event's image, normalised to WebP by the server (PUT /api/admin/events/<event>/image).
CREATE TABLE event_images (
  event_id text PRIMARY KEY,
  webp bytea NOT NULL,
  width integer NOT NULL,
  height integer NOT NULL,
  alt text NOT NULL,
  digest text NOT NULL,
  updated timestamptz NOT NULL DEFAULT now()
);

-- The facts of each match an enrolled account played while an event was open: retained so that awards can
-- be recomputed (reconcile) with the same conditions.
CREATE TABLE event_facts (
  event_id text NOT NULL,
  match_id text NOT NULL,
  bot_id text NOT NULL,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  facts jsonb NOT NULL,
  ended timestamptz NOT NULL,
  PRIMARY KEY (event_id, match_id, bot_id)
);
CREATE INDEX event_facts_account_idx ON event_facts (event_id, account_id, ended);

-- Earned achievements with their evidence (match ids); a revoked award stays, with who and why.
CREATE TABLE event_awards (
  event_id text NOT NULL,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  achievement_id text NOT NULL,
  earned_at timestamptz NOT NULL,
  evidence jsonb NOT NULL,
  revoked_at timestamptz,
  revoked_reason text,
  revoked_by text,
  PRIMARY KEY (event_id, account_id, achievement_id)
);

-- Opponent requests (SPEC 3.9): at most one pending request per account and event.
CREATE TABLE event_opponent_requests (
  id text PRIMARY KEY,
  event_id text NOT NULL,
  account_id text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  bot_id text NOT NULL,
  opponent text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'served', 'cancelled', 'expired')),
  created timestamptz NOT NULL DEFAULT now(),
  ended timestamptz
);
CREATE UNIQUE INDEX event_opponent_requests_pending_idx
  ON event_opponent_requests (event_id, account_id) WHERE state = 'pending';
CREATE INDEX event_opponent_requests_account_idx ON event_opponent_requests (event_id, account_id, created);
